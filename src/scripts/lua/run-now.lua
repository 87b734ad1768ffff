--[[ run-now: a delayed job becomes ready now; a dead job is replayed (attempts reset).

KEYS[1] job hash   KEYS[2] delayed   KEYS[3] ready   KEYS[4] prio   KEYS[5] dead   KEYS[6] meta
KEYS[7] wake   KEYS[8] events
ARGV[1] id   ARGV[2] dedup key prefix
Returns {code, state}: 1 moved to ready (or already ready), 0 no such job, 2 refused (state is
active or done).

Safe to run twice: the second run finds the job ready, and says so.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/observe.lua

local jobKey, delayedKey, readyKey, prioKey, deadKey, metaKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local id, dedupPrefix = ARGV[1], ARGV[2]

local O = { events = KEYS[8] }
local f = redis.call('HMGET', jobKey, 'state', 'priority', 'key', 'type')
local state = f[1]
if not state then
  return { 0, '' }
end
if state == 'ready' then
  return { 1, state }
end
if state ~= 'delayed' and state ~= 'dead' then
  return { 2, state }
end
-- The dedup key is named in the hash: read it before the first write.
local dedupKey = state == 'dead' and f[3] and dedupPrefix .. f[3]
local holder = dedupKey and redis.call('GET', dedupKey)

local now = redisNow()
if state == 'delayed' then
  redis.call('ZREM', delayedKey, id)
  redis.call('HSET', jobKey, 'state', 'ready', 'dueAt', now)
else
  redis.call('ZREM', deadKey, id)
  redis.call('HSET', jobKey, 'state', 'ready', 'dueAt', now, 'attempt', 0, 'token', '')
  redis.call('HDEL', jobKey, 'finishedAt')
  -- The job holds its dedup key again, unless a newer job took it meanwhile.
  if dedupKey and not holder then
    redis.call('SET', dedupKey, id)
  end
end
pushReady(readyKey, prioKey, metaKey, id, tonumber(f[2]) or 0)
wake(wakeKey)
emit(O, state == 'dead' and 'replayed' or 'promoted', { ids = { id }, types = { f[4] or '' } }, { 'ids', 'types' })
return { 1, state }
