--[[ complete: records that jobs finished, each only if the caller still holds its lease.

KEYS[1] active   KEYS[2] done   KEYS[3] stats   KEYS[3 + i] job hash of job i (i = 1..n)
ARGV[1] job key prefix   ARGV[2] dedup key prefix   ARGV[3] n   ARGV[4] retention limit
ARGV[5 + 3(i-1) …]  per job: id, lease token, result (JSON; stored only when the job is kept)
Returns one code per job: 1 completed, 0 refused (the lease is gone: reclaimed, or handed to
another worker), -1 the job no longer exists (cancelled, removed, or already completed and deleted).

A completed job is deleted, or kept in `done` when it was added with keepCompleted; `done` is
then trimmed to the job's limits, batch-limited. Safe to run twice: a job this token already
completed and kept answers 1 again; one already deleted answers -1.
]]
-- @include lib/time.lua
-- @include lib/finish.lua
-- @include lib/retention.lua

local activeKey, doneKey, statsKey = KEYS[1], KEYS[2], KEYS[3]
local jobPrefix, dedupPrefix = ARGV[1], ARGV[2]
local n = tonumber(ARGV[3])
local retentionLimit = tonumber(ARGV[4])
local now = redisNow()

local codes = {}
local completed = 0
local keepSpec = nil

for i = 1, n do
  local o = 4 + (i - 1) * 3
  local id, token = ARGV[o + 1], ARGV[o + 2]
  local jobKey = KEYS[3 + i]
  local f = redis.call('HMGET', jobKey, 'state', 'token', 'key', 'keep')
  if not f[1] then
    codes[i] = -1
  elseif f[2] ~= token then
    codes[i] = 0
  elseif f[1] == 'done' then
    codes[i] = 1
  elseif f[1] ~= 'active' then
    codes[i] = 0
  else
    redis.call('ZREM', activeKey, id)
    releaseDedupKey(dedupPrefix, f[3], id)
    if f[4] then
      redis.call('HSET', jobKey, 'state', 'done', 'finishedAt', now, 'result', ARGV[o + 3])
      redis.call('HDEL', jobKey, 'cancel')
      redis.call('ZADD', doneKey, now, id)
      keepSpec = f[4]
    else
      redis.call('DEL', jobKey)
    end
    completed = completed + 1
    codes[i] = 1
  end
end

if completed > 0 then
  redis.call('HINCRBY', statsKey, 'completed', completed)
end
if keepSpec then
  local count, ageMs = parseKeep(keepSpec)
  trimDone(doneKey, jobPrefix, now, count, ageMs, retentionLimit)
end
return codes
