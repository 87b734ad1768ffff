--[[ fail: records a failed attempt; the job retries after its backoff, or goes to dead.

KEYS[1] job hash   KEYS[2] active   KEYS[3] delayed   KEYS[4] dead   KEYS[5] stats   KEYS[6] wake
KEYS[7] the job's dedup key, or the job hash again when it has none   KEYS[8] events   KEYS[9] series
ARGV[1] id   ARGV[2] lease token   ARGV[3] dedup key prefix   ARGV[4] error message
ARGV[5] error stack   ARGV[6] 'retry' (follow the retry policy) or 'dead' (unrecoverable)
ARGV[7] random number in [0, 1) for jitter   ARGV[8] errors kept per job
Returns {code, dueAt}: 1 retrying at dueAt, 2 dead, 3 deleted (a cancel was requested while it
ran), 0 refused (the lease is gone), -1 the job no longer exists.

Reads come before writes. Safe to run twice: the token stays on the job, so a re-sent fail finds
its own result.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/backoff.lua
-- @include lib/finish.lua
-- @include lib/observe.lua

local jobKey, activeKey, delayedKey, deadKey, statsKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id, token, dedupPrefix = ARGV[1], ARGV[2], ARGV[3]
local O = { events = KEYS[8], series = KEYS[9] }

local f = redis.call('HMGET', jobKey, 'state', 'token', 'attempt', 'maxAttempts', 'backoff', 'key', 'cancel', 'dueAt', 'errors', 'type')
if not f[1] then
  return { -1, 0 }
end
if f[2] ~= token then
  return { 0, 0 }
end
if f[1] == 'delayed' then
  return { 1, tonumber(f[8]) }
elseif f[1] == 'dead' then
  return { 2, 0 }
elseif f[1] ~= 'active' then
  return { 0, 0 }
end
local dedupKey = f[6] and dedupPrefix .. f[6]
local holder = dedupKey and redis.call('GET', dedupKey)

local now = redisNow()
local attempt = tonumber(f[3]) or 1
redis.call('HINCRBY', statsKey, 'failed', 1)
count(O, now, 'failed', 1)

if f[7] == '1' then
  redis.call('ZREM', activeKey, id)
  if dedupKey then
    releaseDedupKey(dedupKey, holder, id)
  end
  redis.call('DEL', jobKey)
  emit(O, 'cancelled', { ids = { id }, types = { f[10] or '' }, attempts = { attempt } }, { 'ids', 'types', 'attempts' })
  return { 3, 0 }
end

local errors = withError(f[9], { message = ARGV[4], stack = ARGV[5], at = now, attempt = attempt }, tonumber(ARGV[8]))
redis.call('HSET', jobKey, 'errors', errors)

if ARGV[6] == 'dead' or attempt >= (tonumber(f[4]) or 1) then
  activeToDead(activeKey, deadKey, statsKey, jobKey, id, now)
  if dedupKey then
    releaseDedupKey(dedupKey, holder, id)
  end
  count(O, now, 'dead', 1)
  emit(O, 'dead', { ids = { id }, types = { f[10] or '' }, attempts = { attempt }, errors = { ARGV[4] } }, { 'ids', 'types', 'attempts', 'errors' })
  return { 2, 0 }
end

local due = now + backoffDelay(f[5], attempt, tonumber(ARGV[7]))
redis.call('ZREM', activeKey, id)
redis.call('HSET', jobKey, 'state', 'delayed', 'dueAt', due)
addDelayed(delayedKey, wakeKey, id, due)
redis.call('HINCRBY', statsKey, 'retried', 1)
emit(O, 'retrying', { ids = { id }, types = { f[10] or '' }, attempts = { attempt }, errors = { ARGV[4] }, dueAt = { due } }, {
  'ids', 'types', 'attempts', 'errors', 'dueAt',
})
return { 1, due }
