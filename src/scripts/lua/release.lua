--[[ release: a closing worker hands back jobs it claimed but will not finish, so they run again
at once instead of waiting for their leases to expire.

KEYS[1] active   KEYS[2] ready   KEYS[3] prio   KEYS[4] wake   KEYS[5] stats
KEYS[5 + i] job hash of job i (i = 1..n)
ARGV[1] n   ARGV[2] dedup key prefix   ARGV[3 + 2(i-1) …] per job: id, lease token
Returns how many jobs went back to the head of `ready`.

Handing back is not a failure: the attempt taken by the claim is given back. The token is
cleared, so a handler of the closing worker that still finishes cannot record a result.
Safe to run twice: a job already handed back no longer matches the token.
]]
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/finish.lua

local activeKey, readyKey, prioKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local n, dedupPrefix = tonumber(ARGV[1]), ARGV[2]
local released = 0
for i = 1, n do
  local id, token = ARGV[1 + 2 * i], ARGV[2 + 2 * i]
  local jobKey = KEYS[5 + i]
  local f = redis.call('HMGET', jobKey, 'state', 'token', 'attempt', 'priority', 'key', 'cancel')
  if f[1] == 'active' and f[2] == token then
    redis.call('ZREM', activeKey, id)
    if f[6] == '1' then
      releaseDedupKey(dedupPrefix, f[5], id)
      redis.call('DEL', jobKey)
    else
      redis.call('HSET', jobKey, 'state', 'ready', 'token', '', 'attempt', math.max((tonumber(f[3]) or 1) - 1, 0))
      pushReadyFront(readyKey, prioKey, id, tonumber(f[4]) or 0)
      released = released + 1
    end
  end
end
if released > 0 then
  redis.call('HINCRBY', KEYS[5], 'released', released)
  wake(wakeKey)
end
return released
