--[[ retry-in: a running job asks to run again later without counting a failure (job.retryIn):
polling jobs, like a payment check that waits for a callback (seed 000 §6).

KEYS[1] job hash   KEYS[2] active   KEYS[3] delayed   KEYS[4] wake
KEYS[5] the job's dedup key, or the job hash again when it has none   KEYS[6] events
ARGV[1] id   ARGV[2] lease token   ARGV[3] dedup key prefix   ARGV[4] delay in ms
Returns {code, dueAt}: 1 rescheduled at dueAt, 3 deleted (a cancel was requested while it ran),
0 refused (the lease is gone), -1 the job no longer exists.

The attempt taken by the claim is given back. Reads come before writes. Safe to run twice: the
token stays on the job.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/finish.lua
-- @include lib/observe.lua

local jobKey, activeKey, delayedKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, token, dedupPrefix = ARGV[1], ARGV[2], ARGV[3]

local f = redis.call('HMGET', jobKey, 'state', 'token', 'attempt', 'key', 'cancel', 'dueAt', 'type')
local O = { events = KEYS[6] }
if not f[1] then
  return { -1, 0 }
end
if f[2] ~= token then
  return { 0, 0 }
end
if f[1] == 'delayed' then
  return { 1, tonumber(f[6]) }
elseif f[1] ~= 'active' then
  return { 0, 0 }
end
local dedupKey = f[4] and dedupPrefix .. f[4]
local holder = dedupKey and redis.call('GET', dedupKey)

redis.call('ZREM', activeKey, id)
if f[5] == '1' then
  if dedupKey then
    releaseDedupKey(dedupKey, holder, id)
  end
  redis.call('DEL', jobKey)
  emit(O, 'cancelled', { ids = { id }, types = { f[7] or '' } }, { 'ids', 'types' })
  return { 3, 0 }
end
local due = redisNow() + tonumber(ARGV[4])
redis.call('HSET', jobKey, 'state', 'delayed', 'dueAt', due, 'attempt', math.max((tonumber(f[3]) or 1) - 1, 0))
addDelayed(delayedKey, wakeKey, id, due)
emit(O, 'rescheduled', { ids = { id }, types = { f[7] or '' }, dueAt = { due } }, { 'ids', 'types', 'dueAt' })
return { 1, due }
