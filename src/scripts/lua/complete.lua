--[[ complete: records that jobs finished, each only if the caller still holds its lease.

KEYS[1] active   KEYS[2] done   KEYS[3] stats   KEYS[4] events   KEYS[5] series
KEYS[4 + 2i]  job hash of job i (i = 1..n)   KEYS[5 + 2i]  its dedup key, or the job hash again
ARGV[1] job key prefix   ARGV[2] dedup key prefix   ARGV[3] n   ARGV[4] retention limit
ARGV[5 + 3(i-1) …]  per job: id, lease token, result (JSON; stored only when the job is kept)
Returns one code per job: 1 completed, 0 refused (the lease is gone: reclaimed, or handed to
another worker), -1 the job no longer exists (cancelled, removed, or already completed and deleted).

A completed job is deleted, or kept in `done` when it was added with keepCompleted; `done` is
then trimmed to the job's limits, batch-limited. Reads come before writes. Safe to run twice:
a job this token already completed and kept answers 1 again; one already deleted answers -1.
]]
-- @include lib/time.lua
-- @include lib/finish.lua
-- @include lib/retention.lua
-- @include lib/observe.lua

local activeKey, doneKey, statsKey = KEYS[1], KEYS[2], KEYS[3]
local O = { events = KEYS[4], series = KEYS[5] }
local JK = 4 -- job i's hash is KEYS[JK + 2i]
local jobPrefix, dedupPrefix = ARGV[1], ARGV[2]
local n = tonumber(ARGV[3])
local retentionLimit = tonumber(ARGV[4])
local now = redisNow()

local codes = {}
local finishing = {}
for i = 1, n do
  local o = 4 + (i - 1) * 3
  local id, token = ARGV[o + 1], ARGV[o + 2]
  local f = redis.call('HMGET', KEYS[JK + 2 * i], 'state', 'token', 'key', 'keep', 'type', 'attempt', 'startedAt')
  if not f[1] then
    codes[i] = -1
  elseif f[2] ~= token then
    codes[i] = 0
  elseif f[1] == 'done' then
    codes[i] = 1
  elseif f[1] ~= 'active' then
    codes[i] = 0
  else
    codes[i] = 1
    local dedupKey = f[3] and dedupPrefix .. f[3]
    finishing[#finishing + 1] = { i, id, f, dedupKey, dedupKey and redis.call('GET', dedupKey) }
  end
end

local keepSpec = nil
local ev = { ids = {}, types = {}, attempts = {}, durationMs = {} }
local deleted = { 'DEL' }
for k, job in ipairs(finishing) do
  local i, id, f, dedupKey, holder = job[1], job[2], job[3], job[4], job[5]
  local jobKey = KEYS[JK + 2 * i]
  ev.ids[k], ev.types[k], ev.attempts[k] = id, f[5] or '', f[6] or '0'
  ev.durationMs[k] = asText(now - (tonumber(f[7]) or now))
  if dedupKey then
    releaseDedupKey(dedupKey, holder, id)
  end
  if f[4] then
    redis.call('HSET', jobKey, 'state', 'done', 'finishedAt', now, 'result', ARGV[4 + (i - 1) * 3 + 3])
    redis.call('HDEL', jobKey, 'cancel')
    redis.call('ZADD', doneKey, now, id)
    keepSpec = f[4]
  else
    deleted[#deleted + 1] = jobKey
  end
end

if #finishing > 0 then
  -- One ZREM and one DEL for the batch (a few hundred at most, far below unpack's limit).
  redis.call('ZREM', activeKey, unpack(ev.ids))
  if #deleted > 1 then
    redis.call(unpack(deleted))
  end
  redis.call('HINCRBY', statsKey, 'completed', #finishing)
  count(O, now, 'completed', #finishing)
  emit(O, 'completed', ev, { 'ids', 'types', 'attempts', 'durationMs' })
end
if keepSpec then
  local count, ageMs = parseKeep(keepSpec)
  trimDone(doneKey, jobPrefix, now, count, ageMs, retentionLimit)
end
return codes
