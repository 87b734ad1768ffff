--[[ claim: leases up to n ready jobs to one worker, promoting due jobs first when `ready` runs low.

KEYS[1] delayed   KEYS[2] ready   KEYS[3] prio   KEYS[4] active   KEYS[5] meta   KEYS[6] wake
KEYS[7] receipt: `claim:<token>`, the ids this call claimed, kept for one lease period
KEYS[8] dead   KEYS[9] done   KEYS[10] schedules   KEYS[11] stats   KEYS[12] schedule-current
KEYS[13] events   KEYS[14] series
ARGV[1] job key prefix   ARGV[2] n, jobs wanted   ARGV[3] leaseMs   ARGV[4] lease token, unique
to this call   ARGV[5] promote limit
Returns {seconds, microseconds, nextDue, flags, then 12 values per claimed job:
         id, type, data, attempt, maxAttempts, timeoutMs, backoff, dueAt, key, keep, createdAt,
         priority}
  seconds, microseconds: Redis TIME, so the worker can track its offset from Redis time;
  nextDue: due time of the earliest delayed job, -1 when there is none;
  flags: 1 the queue is paused (nothing claimed), 2 more work is ready now.

A job leaves `ready` and enters `active` with its lease deadline in this one script: there is no
window in which a killed worker loses it (DESIGN §3.3). The job hashes are found here and cannot
be declared in KEYS; they share the queue's slot. Each step (promote, then claim) reads all it
needs before its first write, so a failure on an unreachable key (a slot migration) leaves no
job half-moved.
Safe to run twice: a re-sent claim (same token) finds its receipt and answers with the jobs the
first run claimed, instead of claiming a second batch nobody would run.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/heal.lua
-- @include lib/promote.lua
-- @include lib/observe.lua

local delayedKey, readyKey, prioKey, activeKey, metaKey, wakeKey, receiptKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local S = {
  delayed = delayedKey, ready = readyKey, prio = prioKey, active = activeKey, dead = KEYS[8], done = KEYS[9],
  schedules = KEYS[10], stats = KEYS[11], scheduleCurrent = KEYS[12],
}
local O = { events = KEYS[13], series = KEYS[14] }
local jobPrefix = ARGV[1]
local wanted = tonumber(ARGV[2])
local leaseMs = tonumber(ARGV[3])
local token = ARGV[4]
local promoteLimit = tonumber(ARGV[5])

local now, time = redisNow()
-- The fields named in the call itself: unpack() of a list per job costs more than the read.
local function readJob(jobKey)
  return redis.call('HMGET', jobKey, 'state', 'type', 'data', 'attempt', 'maxAttempts', 'timeout', 'backoff',
    'dueAt', 'key', 'keep', 'createdAt', 'priority', 'token', 'finishedAt')
end

local function nextDue()
  local head = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
  return head[2] and tonumber(head[2]) or -1
end

local out = { time[1], time[2], 0, 0 }
local function append(id, f, attempt)
  local o = #out
  out[o + 1] = id
  out[o + 4] = attempt
  for j = 2, 12 do
    if j ~= 4 then
      out[o + j] = f[j] or ''
    end
  end
end

local receipt = redis.call('GET', receiptKey)
if receipt then
  for id in string.gmatch(receipt, '[^\n]+') do
    local f = readJob(jobPrefix .. id)
    if f[1] == 'active' and f[13] == token then
      append(id, f, tonumber(f[4]))
    end
  end
  out[3] = nextDue()
  return out
end

if redis.call('HGET', metaKey, 'paused') == '1' then
  return { time[1], time[2], nextDue(), 1 }
end

if readyLength(readyKey, prioKey) < wanted then
  promoteDue(S, metaKey, jobPrefix, now, promoteLimit)
end

-- Reads: the candidates from the head of `prio` (higher priorities first), then of `ready`.
-- Every one examined is popped; strays (heal.lua) are dropped or restored, not claimed.
local plans = {}
local takes = 0
local popPrio, popReady = 0, 0
local function examine(id)
  local jobKey = jobPrefix .. id
  local f = readJob(jobKey)
  local action = f[1] == 'ready' and 'take' or strayAction(S, jobKey, id, f[1])
  if action == 'take' then
    takes = takes + 1
  end
  plans[#plans + 1] = { id, action, f }
end
for _, id in ipairs(redis.call('ZRANGE', prioKey, 0, wanted - 1)) do
  if takes >= wanted then
    break
  end
  examine(id)
  popPrio = popPrio + 1
end
if takes < wanted then
  for _, id in ipairs(redis.call('LRANGE', readyKey, 0, wanted - 1)) do
    if takes >= wanted then
      break
    end
    examine(id)
    popReady = popReady + 1
  end
end

-- Writes.
if popPrio > 0 then
  redis.call('ZPOPMIN', prioKey, popPrio)
end
if popReady > 0 then
  redis.call('LPOP', readyKey, popReady)
end
-- As text once: Redis formats each Lua number argument with %.17g, per job otherwise.
local nowText, deadlineText = msText(now), msText(now + leaseMs)
local claimed = {}
local leases = {}
local ev = { ids = claimed, types = {}, attempts = {}, lateMs = {} }
for _, plan in ipairs(plans) do
  local id, action, f = plan[1], plan[2], plan[3]
  if action == 'take' then
    local attempt = (tonumber(f[4]) or 0) + 1
    redis.call('HSET', jobPrefix .. id, 'state', 'active', 'attempt', asText(attempt), 'token', token, 'startedAt', nowText)
    local k = #claimed + 1
    claimed[k] = id
    leases[2 * k - 1], leases[2 * k] = deadlineText, id
    append(id, f, attempt)
    ev.types[k], ev.attempts[k] = f[2] or '', asText(attempt)
    ev.lateMs[k] = asText(math.max(now - (tonumber(f[8]) or now), 0))
  elseif action == 'restore' then
    restoreFinished(S, id, f[1], f[14], now)
  end
end
if #claimed > 0 then
  -- One ZADD for the batch: a claim asks for a few hundred jobs at most (unpack's limit is ~8000).
  redis.call('ZADD', activeKey, unpack(leases))
  emit(O, 'active', ev, { 'ids', 'types', 'attempts', 'lateMs' })
  lateness(O, now, ev.lateMs)
  -- Ids never hold control characters (the client refuses them), so a newline separates them.
  redis.call('SET', receiptKey, table.concat(claimed, '\n'), 'PX', leaseMs)
end

local flags = 0
local head = nextDue()
if readyLength(readyKey, prioKey) > 0 or (head ~= -1 and head <= now) then
  -- Work is left: wake another idle worker to take it (the chain described in lib/wake.lua).
  flags = 2
  wake(wakeKey)
end
out[3] = head
out[4] = flags
return out
