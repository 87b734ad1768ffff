--[[ add: stores new jobs, each in `delayed` or `ready` by its due time.

KEYS[1] delayed   KEYS[2] ready   KEYS[3] prio   KEYS[4] meta   KEYS[5] wake   KEYS[6] stats
KEYS[7] types: the type registry, type → '<maxAttempts>|<backoff>|<timeoutMs>' (defineJob options)
KEYS[8] events   KEYS[9] series
KEYS[8 + 2i]      job hash of job i (i = 1..n)
KEYS[9 + 2i]      dedup key of job i, or its job hash again when the job has no key
ARGV[1] job key prefix   ARGV[2] n   ARGV[3] default maxAttempts   ARGV[4] default backoff
ARGV[5] default timeoutMs ('' for none): the Queue's defaults, used when neither the add nor the
        job type's registered options set a value
ARGV[6 + 11(i-1) …]      per job: id, type, data, delayMs, atMs, priority, maxAttempts, backoff,
                         timeoutMs, key, keep ('' for not given); keep is '<count>:<ageMs>', how
                         completed jobs are kept (0 = no limit)
Returns {id1, created1, id2, created2, …}: created is 1 for a new job, 0 when the id already
exists or the dedup key is held by a waiting or running job, whose id is returned instead.

Safe to run twice: ids come from the client, so a re-sent add finds its own jobs and returns them.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/create-job.lua
-- @include lib/observe.lua

local FIELDS = 11
local HEADER = 5
local jobPrefix = ARGV[1]
local n = tonumber(ARGV[2])
local K = { delayed = KEYS[1], ready = KEYS[2], prio = KEYS[3], meta = KEYS[4], wake = KEYS[5], types = KEYS[7] }
local O = { events = KEYS[8], series = KEYS[9] }
local JK = 8 -- job i's hash is KEYS[JK + 2i], its dedup key KEYS[JK + 2i + 1]

local function numberOrEmpty(value)
  return value == '' or tonumber(value) ~= nil
end

-- Validate everything before the first write: a script that fails half-way keeps its writes.
for i = 1, n do
  local o = HEADER + (i - 1) * FIELDS
  if ARGV[o + 1] == '' or ARGV[o + 2] == '' or not tonumber(ARGV[o + 6]) or not numberOrEmpty(ARGV[o + 4])
    or not numberOrEmpty(ARGV[o + 5]) or not numberOrEmpty(ARGV[o + 7]) or not numberOrEmpty(ARGV[o + 9]) then
    return redis.error_reply('ERR dueq add: malformed arguments for job ' .. tostring(ARGV[o + 1]))
  end
end

local now = redisNow()

-- Reads for every job first (the holder of a dedup key is found here, not declared in KEYS).
local existing = {}
for i = 1, n do
  local o = HEADER + (i - 1) * FIELDS
  local id, key = ARGV[o + 1], ARGV[o + 10]
  optionsOf(K.types, ARGV[o + 2])
  if redis.call('EXISTS', KEYS[JK + 2 * i]) == 1 then
    existing[i] = id
  elseif key ~= '' then
    local holder = redis.call('GET', KEYS[JK + 2 * i + 1])
    -- The holder's hash is in this queue's slot; a key left behind by a vanished job is stale.
    if holder and redis.call('EXISTS', jobPrefix .. holder) == 1 then
      existing[i] = holder
    end
  end
end

local result = {}
local created = 0
local added = {}
local claimedKeys = {}
local madeIds = {}
for i = 1, n do
  local o = HEADER + (i - 1) * FIELDS
  local id, key = ARGV[o + 1], ARGV[o + 10]
  -- Two jobs of this call with the same id or key: the first one made holds it.
  local holder = existing[i] or madeIds[id] or (key ~= '' and claimedKeys[key])
  if holder then
    result[#result + 1] = holder
    result[#result + 1] = 0
  else
    local due
    if ARGV[o + 5] ~= '' then
      due = tonumber(ARGV[o + 5])
    else
      due = now + tonumber(ARGV[o + 4] ~= '' and ARGV[o + 4] or 0)
    end
    if key ~= '' then
      redis.call('SET', KEYS[JK + 2 * i + 1], id)
      claimedKeys[key] = id
    end
    createJob(K, {
      id = id, key = KEYS[JK + 2 * i], type = ARGV[o + 2], data = ARGV[o + 3], due = due, now = now,
      priority = tonumber(ARGV[o + 6]), maxAttempts = ARGV[o + 7], backoff = ARGV[o + 8], timeout = ARGV[o + 9],
      keep = ARGV[o + 11], dedupKey = key,
      defaultMaxAttempts = ARGV[3], defaultBackoff = ARGV[4], defaultTimeout = ARGV[5],
    }, {})
    created = created + 1
    added[created] = { id = id, type = ARGV[o + 2], dueAt = due }
    madeIds[id] = id
    result[#result + 1] = id
    result[#result + 1] = 1
  end
end

if created > 0 then
  redis.call('HINCRBY', KEYS[6], 'added', created)
  count(O, now, 'added', created)
  emit(O, 'added', added)
end
return result
