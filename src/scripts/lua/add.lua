--[[ add: stores new jobs, each in `delayed` or `ready` by its due time.

KEYS[1] delayed   KEYS[2] ready   KEYS[3] prio   KEYS[4] meta   KEYS[5] wake   KEYS[6] stats
KEYS[7] types: the type registry, type → '<maxAttempts>|<backoff>|<timeoutMs>' (defineJob options)
KEYS[8] events   KEYS[9] series
KEYS[9 + i]       job hash of job i (i = 1..n)
KEYS[9 + n + …]   the dedup keys of the jobs that have one, in order
ARGV[1] job key prefix   ARGV[2] n   ARGV[3] default maxAttempts   ARGV[4] default backoff
ARGV[5] default timeoutMs ('' for none): the Queue's defaults, used when neither the add nor the
        job type's registered options set a value
ARGV[6 + 4(i-1) …]  per job: id, type, data, options. Options is '' for a plain job (the common
        case, so a batch carries four values per job), else a JSON object with any of: delayMs,
        atMs, priority, maxAttempts, backoff, timeoutMs, keep ('<count>:<ageMs>', how completed
        jobs are kept, 0 = no limit), key (the dedup key as given) and keyAt (its Redis key's
        index in KEYS).
Returns { created, holder1, holder2, … }: created is a string with one '1' (new job) or '0' per
job; each '0' has its holder in order: the job's own id when it already exists, or the waiting or
running job that holds its dedup key.

Safe to run twice: ids come from the client, so a re-sent add finds its own jobs and returns them.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/create-job.lua
-- @include lib/observe.lua

local FIELDS = 4
local HEADER = 5
local NO_EXTRA = {}
local jobPrefix = ARGV[1]
local n = tonumber(ARGV[2])
local K = { delayed = KEYS[1], ready = KEYS[2], prio = KEYS[3], meta = KEYS[4], wake = KEYS[5], types = KEYS[7] }
local O = { events = KEYS[8], series = KEYS[9] }
local JK = 9 -- job i's hash is KEYS[JK + i]

local function integerOrNil(value)
  return value == nil or (type(value) == 'number' and value == math.floor(value))
end

-- Validate everything before the first write: a script that fails half-way keeps its writes.
local options = {}
for i = 1, n do
  local o = HEADER + (i - 1) * FIELDS
  local bad = ARGV[o + 1] == nil or ARGV[o + 1] == '' or ARGV[o + 2] == '' or KEYS[JK + i] == nil
  if not bad and ARGV[o + 4] ~= '' then
    local ok, opts = pcall(cjson.decode, ARGV[o + 4])
    bad = not ok or type(opts) ~= 'table' or not integerOrNil(opts.delayMs) or not integerOrNil(opts.atMs)
      or not integerOrNil(opts.priority) or not integerOrNil(opts.maxAttempts) or not integerOrNil(opts.timeoutMs)
      or (opts.key ~= nil and (type(opts.key) ~= 'string' or KEYS[opts.keyAt or 0] == nil))
    options[i] = opts
  end
  if bad then
    return redis.error_reply('ERR dueq add: malformed arguments for job ' .. tostring(ARGV[o + 1]))
  end
end

local now = redisNow()
local PLAIN = {}

-- Reads for every job first (the holder of a dedup key is found here, not declared in KEYS).
local existing = {}
for i = 1, n do
  local o = HEADER + (i - 1) * FIELDS
  optionsOf(K.types, ARGV[o + 2])
  if redis.call('EXISTS', KEYS[JK + i]) == 1 then
    existing[i] = ARGV[o + 1]
  elseif options[i] and options[i].key then
    local holder = redis.call('GET', KEYS[options[i].keyAt])
    -- The holder's hash is in this queue's slot; a key left behind by a vanished job is stale.
    if holder and redis.call('EXISTS', jobPrefix .. holder) == 1 then
      existing[i] = holder
    end
  end
end

local flags = {}
local holders = {}
local created = 0
local claimedKeys = {}
local madeIds = {}
local P = newPlacement()
local ev = { ids = {}, types = {}, dueAt = {} }
-- One description reused for every job (see writeJob).
local j = {
  now = now, nowText = msText(now),
  defaultMaxAttempts = ARGV[3], defaultBackoff = ARGV[4], defaultTimeout = ARGV[5],
}
for i = 1, n do
  local o = HEADER + (i - 1) * FIELDS
  local id = ARGV[o + 1]
  local opts = options[i] or PLAIN
  local key = opts.key
  -- Two jobs of this call with the same id or key: the first one made holds it.
  local holder = existing[i] or madeIds[id] or (key and claimedKeys[key])
  if holder then
    flags[i] = '0'
    holders[#holders + 1] = holder
  else
    local due = opts.atMs or (now + (opts.delayMs or 0))
    if key then
      redis.call('SET', KEYS[opts.keyAt], id)
      claimedKeys[key] = id
    end
    local priority = opts.priority or 0
    local dueText = due == now and j.nowText or msText(due)
    j.id, j.key, j.type, j.data, j.due, j.dueText = id, KEYS[JK + i], ARGV[o + 2], ARGV[o + 3], due, dueText
    j.priority = priority
    j.maxAttempts, j.backoff = opts.maxAttempts and tostring(opts.maxAttempts) or '', opts.backoff or ''
    j.timeout, j.keep = opts.timeoutMs and tostring(opts.timeoutMs) or '', opts.keep or ''
    j.dedupKey = key or ''
    local state = writeJob(K, j, NO_EXTRA)
    place(P, K, id, state, due, priority)
    created = created + 1
    ev.ids[created], ev.types[created], ev.dueAt[created] = id, ARGV[o + 2], dueText
    madeIds[id] = id
    flags[i] = '1'
  end
end
flushPlacement(P, K)

if created > 0 then
  redis.call('HINCRBY', KEYS[6], 'added', created)
  count(O, now, 'added', created)
  emit(O, 'added', ev, { 'ids', 'types', 'dueAt' })
end
return { table.concat(flags), unpack(holders) }
