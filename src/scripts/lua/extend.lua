--[[ extend: pushes back the lease deadline of jobs a worker is running (its heartbeat).

KEYS[1] active   KEYS[1 + i] job hash of job i (i = 1..n)
ARGV[1] n   ARGV[2] leaseMs, counted from now   ARGV[3 + 2(i-1) …] per job: id, lease token
Returns one code per job: 1 extended, 2 extended but a cancel was requested (the worker fires
the job's AbortSignal; this covers a cancel notice lost while the worker was reconnecting),
0 the lease is gone (reclaimed or handed back): the worker must stop counting on the job.

Safe to run twice: it only sets deadlines.
]]
-- @include lib/time.lua

local activeKey = KEYS[1]
local n, leaseMs = tonumber(ARGV[1]), tonumber(ARGV[2])
local deadline = redisNow() + leaseMs
local codes = {}
for i = 1, n do
  local id, token = ARGV[1 + 2 * i], ARGV[2 + 2 * i]
  local f = redis.call('HMGET', KEYS[1 + i], 'state', 'token', 'cancel')
  if f[1] == 'active' and f[2] == token then
    redis.call('ZADD', activeKey, 'XX', deadline, id)
    codes[i] = f[3] == '1' and 2 or 1
  else
    codes[i] = 0
  end
end
return codes
