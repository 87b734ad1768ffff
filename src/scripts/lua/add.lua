--[[ add: stores new jobs, each in `delayed` or `ready` by its due time.

KEYS[1] delayed   KEYS[2] ready   KEYS[3] prio   KEYS[4] meta   KEYS[5] wake   KEYS[6] stats
KEYS[7] types: the type registry, type → '<maxAttempts>|<backoff>|<timeoutMs>' (defineJob options)
KEYS[6 + 2i]      job hash of job i (i = 1..n)
KEYS[7 + 2i]      dedup key of job i, or its job hash again when the job has no key
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

local FIELDS = 11
local HEADER = 5
local jobPrefix = ARGV[1]
local n = tonumber(ARGV[2])

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

-- A type's registered options, read once per type ('' parts are not set).
local typeOptions = {}
local function optionsOf(type)
  if typeOptions[type] == nil then
    local m, b, t = string.match(redis.call('HGET', KEYS[7], type) or '', '^([^|]*)|([^|]*)|([^|]*)$')
    typeOptions[type] = { m or '', b or '', t or '' }
  end
  return typeOptions[type]
end
local function pick(explicit, registered, default)
  if explicit ~= '' then
    return explicit
  elseif registered ~= '' then
    return registered
  end
  return default
end

local now = redisNow()

-- Reads for every job first (the holder of a dedup key is found here, not declared in KEYS).
local existing = {}
for i = 1, n do
  local o = HEADER + (i - 1) * FIELDS
  local id, key = ARGV[o + 1], ARGV[o + 10]
  optionsOf(ARGV[o + 2])
  if redis.call('EXISTS', KEYS[6 + 2 * i]) == 1 then
    existing[i] = id
  elseif key ~= '' then
    local holder = redis.call('GET', KEYS[7 + 2 * i])
    -- The holder's hash is in this queue's slot; a key left behind by a vanished job is stale.
    if holder and redis.call('EXISTS', jobPrefix .. holder) == 1 then
      existing[i] = holder
    end
  end
end

local result = {}
local created = 0
local claimedKeys = {}
local madeIds = {}
for i = 1, n do
  local o = HEADER + (i - 1) * FIELDS
  local id, key = ARGV[o + 1], ARGV[o + 10]
  local jobKey, dedupKey = KEYS[6 + 2 * i], KEYS[7 + 2 * i]
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
    local priority = tonumber(ARGV[o + 6])
    local state = due > now and 'delayed' or 'ready'
    local registered = optionsOf(ARGV[o + 2])
    local timeout = pick(ARGV[o + 9], registered[3], ARGV[5])
    local fields = {
      'type', ARGV[o + 2], 'data', ARGV[o + 3], 'state', state, 'attempt', 0,
      'maxAttempts', pick(ARGV[o + 7], registered[1], ARGV[3]), 'backoff', pick(ARGV[o + 8], registered[2], ARGV[4]),
      'createdAt', now, 'dueAt', due,
    }
    if priority > 0 then
      fields[#fields + 1] = 'priority'
      fields[#fields + 1] = priority
    end
    if timeout ~= '' then
      fields[#fields + 1] = 'timeout'
      fields[#fields + 1] = timeout
    end
    if ARGV[o + 11] ~= '' then
      fields[#fields + 1] = 'keep'
      fields[#fields + 1] = ARGV[o + 11]
    end
    if key ~= '' then
      fields[#fields + 1] = 'key'
      fields[#fields + 1] = key
      redis.call('SET', dedupKey, id)
      claimedKeys[key] = id
    end
    redis.call('HSET', jobKey, unpack(fields))

    if state == 'delayed' then
      addDelayed(KEYS[1], KEYS[5], id, due)
    else
      pushReady(KEYS[2], KEYS[3], KEYS[4], id, priority)
      wake(KEYS[5])
    end
    created = created + 1
    madeIds[id] = id
    result[#result + 1] = id
    result[#result + 1] = 1
  end
end

if created > 0 then
  redis.call('HINCRBY', KEYS[6], 'added', created)
end
return result
