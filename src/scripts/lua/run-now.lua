--[[ run-now: a delayed job becomes ready now; a dead job is replayed (attempts reset).

KEYS[1] job hash   KEYS[2] delayed   KEYS[3] ready   KEYS[4] prio   KEYS[5] dead   KEYS[6] meta
KEYS[7] wake
ARGV[1] id   ARGV[2] dedup key prefix
Returns {code, state}: 1 moved to ready, 0 no such job, 2 refused (state is ready, active or done).

Safe to run twice: the second run finds the job ready and refuses, changing nothing.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/ready.lua

local jobKey, delayedKey, readyKey, prioKey, deadKey, metaKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local id, dedupPrefix = ARGV[1], ARGV[2]

local f = redis.call('HMGET', jobKey, 'state', 'priority', 'key')
local state = f[1]
if not state then
  return { 0, '' }
end
local now = redisNow()
if state == 'delayed' then
  redis.call('ZREM', delayedKey, id)
  redis.call('HSET', jobKey, 'state', 'ready', 'dueAt', now)
elseif state == 'dead' then
  redis.call('ZREM', deadKey, id)
  redis.call('HSET', jobKey, 'state', 'ready', 'dueAt', now, 'attempt', 0, 'token', '')
  redis.call('HDEL', jobKey, 'finishedAt')
  -- The job holds its dedup key again, unless a newer job took it meanwhile.
  if f[3] then
    redis.call('SET', dedupPrefix .. f[3], id, 'NX')
  end
else
  return { 2, state }
end
pushReady(readyKey, prioKey, metaKey, id, tonumber(f[2]) or 0)
wake(wakeKey)
return { 1, state }
