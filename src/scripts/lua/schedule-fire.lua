--[[ schedule-fire: creates a schedule's next occurrences, each exactly once, and moves its next
fire time on. Any number of Schedulers call it; the first with the schedule's current version
and next fire time wins, the others find it moved and do nothing.

KEYS[1] schedules   KEYS[2] delayed   KEYS[3] ready   KEYS[4] prio   KEYS[5] meta   KEYS[6] wake
KEYS[7] stats   KEYS[8] types   KEYS[9] schedule-current   KEYS[10] events   KEYS[11] series
KEYS[11 + i]  job hash of occurrence i: `job:sched:<name>:<fire time>`
ARGV[1] name   ARGV[2] version the caller planned with   ARGV[3] next fire time it planned from
ARGV[4] the next fire time after these ('' when the schedule is done)   ARGV[5] job key prefix
ARGV[6] fire times the catch-up policy dropped   ARGV[7 + (i-1)]  fire time of occurrence i
Returns {created, skipped, outcome}: outcome 'ok', 'moved' (planned from an older state) or 'gone'.

Each occurrence is an ordinary job whose id is the schedule name and fire time, due at that time.
When it comes due, promotion drops it if its schedule version is gone, or, under overlap 'skip',
if the occurrence that last went to run still waits or runs (lib/promote.lua); one made already
due is judged the same way here.
Reads come before writes. Safe to run twice: the second run finds the schedule moved on.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/create-job.lua
-- @include lib/observe.lua

local K = { delayed = KEYS[2], ready = KEYS[3], prio = KEYS[4], meta = KEYS[5], wake = KEYS[6], types = KEYS[8] }
local schedulesKey, statsKey, currentKey = KEYS[1], KEYS[7], KEYS[9]
local O = { events = KEYS[10], series = KEYS[11] }
local JK = 11 -- occurrence i's hash is KEYS[JK + i]
local name, jobPrefix = ARGV[1], ARGV[5]
local RECENT = 50

local raw = redis.call('HGET', schedulesKey, name)
if not raw then
  return { 0, 0, 'gone' }
end
local record = cjson.decode(raw)
if record.version ~= tonumber(ARGV[2]) or (record.next or -1) ~= (tonumber(ARGV[3]) or -1) then
  return { 0, 0, 'moved' }
end
local now = redisNow()

-- Reads: which occurrences exist already, and whether the last one still waits or runs.
local fires = {}
for i = 7, #ARGV do
  fires[#fires + 1] = tonumber(ARGV[i])
end
local exists = {}
for i = 1, #fires do
  exists[i] = redis.call('EXISTS', KEYS[JK + i]) == 1
end
local running = false
local current = redis.call('HGET', currentKey, name)
if current then
  local state = redis.call('HGET', jobPrefix .. current, 'state')
  running = state == 'ready' or state == 'active'
end

local created, skipped = 0, tonumber(ARGV[6]) or 0
local P = newPlacement()
local ev = { ids = {}, types = {}, dueAt = {}, schedules = {} }
local recent = type(record.recent) == 'table' and record.recent or {}
local job = record.job
for i, fire in ipairs(fires) do
  if record.limit and record.count >= record.limit then
    break
  end
  local id = 'sched:' .. name .. ':' .. fire
  if not exists[i] then
    local due = fire <= now
    if record.overlap == 'skip' and due and running then
      skipped = skipped + 1
    else
      local priority = tonumber(job.priority) or 0
      local state = writeJob(K, {
        id = id, key = KEYS[JK + i], type = record.type, data = record.data, due = fire, now = now,
        nowText = msText(now), dueText = msText(fire),
        priority = priority, maxAttempts = job.maxAttempts, backoff = job.backoff,
        timeout = job.timeoutMs, keep = job.keep, dedupKey = '',
        defaultMaxAttempts = record.fallback.maxAttempts, defaultBackoff = record.fallback.backoff,
        defaultTimeout = record.fallback.timeoutMs,
      }, { 'sched', name, 'schedVersion', tostring(record.version) })
      place(P, K, id, state, fire, priority)
      if due then
        redis.call('HSET', currentKey, name, id)
        running = true
      end
      created = created + 1
      ev.ids[created], ev.types[created], ev.dueAt[created], ev.schedules[created] = id, record.type, fire, name
      record.count = record.count + 1
      record.last = id
      recent[#recent + 1] = id
      while #recent > RECENT do
        table.remove(recent, 1)
      end
    end
  end
end

flushPlacement(P, K)
record.recent = recent
record.next = tonumber(ARGV[4])
if record.next == nil or (record.limit and record.count >= record.limit) then
  record.next = nil
  record.done = true
end
record.updatedAt = now
redis.call('HSET', schedulesKey, name, cjson.encode(record))
if created > 0 then
  redis.call('HINCRBY', statsKey, 'added', created)
  count(O, now, 'added', created)
  emit(O, 'added', ev, { 'ids', 'types', 'dueAt', 'schedules' })
end
if skipped > 0 then
  redis.call('HINCRBY', statsKey, 'skipped', skipped)
end
return { created, skipped, 'ok' }
