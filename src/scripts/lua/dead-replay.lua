--[[ dead-replay: moves the oldest dead jobs back to ready, attempts reset.

KEYS[1] dead   KEYS[2] ready   KEYS[3] prio   KEYS[4] meta   KEYS[5] wake   KEYS[6] stats
KEYS[7] receipt: `receipt:<request id>`, this call's answer, kept for a minute   KEYS[8] events
ARGV[1] job key prefix   ARGV[2] dedup key prefix   ARGV[3] limit
Returns how many jobs moved.

The job hashes are found here and cannot be declared in KEYS; they share the queue's slot, and
all reads come before the first write.
Safe to run twice: a re-sent call finds its receipt and moves nothing more.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/observe.lua

local deadKey, readyKey, prioKey, metaKey, wakeKey, statsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local jobPrefix, dedupPrefix, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local now = redisNow()

local receipt = redis.call('GET', KEYS[7])
if receipt then
  return tonumber(receipt)
end

local ids = redis.call('ZRANGE', deadKey, 0, limit - 1)
if #ids == 0 then
  return 0
end
local plans = {}
for i = 1, #ids do
  local f = redis.call('HMGET', jobPrefix .. ids[i], 'state', 'priority', 'key', 'type')
  local dedupKey = f[1] == 'dead' and f[3] and dedupPrefix .. f[3]
  plans[i] = { f, dedupKey, dedupKey and redis.call('GET', dedupKey) }
end

redis.call('ZREMRANGEBYRANK', deadKey, 0, #ids - 1)
local moved = 0
local ev = { ids = {}, types = {} }
for i = 1, #ids do
  local id = ids[i]
  local f, dedupKey, holder = plans[i][1], plans[i][2], plans[i][3]
  -- An id whose hash says it is elsewhere (or has none) only leaves `dead`.
  if f[1] == 'dead' then
    local jobKey = jobPrefix .. id
    redis.call('HSET', jobKey, 'state', 'ready', 'dueAt', now, 'attempt', 0, 'token', '')
    redis.call('HDEL', jobKey, 'finishedAt')
    if dedupKey and not holder then
      redis.call('SET', dedupKey, id)
    end
    pushReady(readyKey, prioKey, metaKey, id, tonumber(f[2]) or 0)
    moved = moved + 1
    ev.ids[moved], ev.types[moved] = id, f[4] or ''
  end
end
if moved > 0 then
  redis.call('HINCRBY', statsKey, 'replayed', moved)
  wake(wakeKey)
  emit({ events = KEYS[8] }, 'replayed', ev, { 'ids', 'types' })
end
redis.call('SET', KEYS[7], moved, 'PX', 60000)
return moved
