--[[ reclaim: takes back jobs whose lease expired (their worker died, stalled or lost Redis).

KEYS[1] active   KEYS[2] delayed   KEYS[3] dead   KEYS[4] stats   KEYS[5] wake   KEYS[6] ready
KEYS[7] prio   KEYS[8] done   KEYS[9] events   KEYS[10] series
ARGV[1] job key prefix   ARGV[2] dedup key prefix   ARGV[3] limit   ARGV[4] random seed in [0, 1)
ARGV[5] errors kept per job
Returns {reclaimed, dead}: how many went back to `delayed`, and how many of those were out of
attempts and went to `dead` instead.

An expired lease counts as a failed attempt and waits out the job's backoff (DESIGN §3.3): a job
that kills its worker every time ends in dead instead of a crash loop. The token is cleared, so
the old worker, should it come back, can neither complete nor fail the job (§3.4).
The job hashes are found here and cannot be declared in KEYS; they share the queue's slot, and
all reads come before the first write.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/backoff.lua
-- @include lib/finish.lua
-- @include lib/heal.lua
-- @include lib/observe.lua

local activeKey, delayedKey, deadKey, statsKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local S = { active = activeKey, delayed = delayedKey, dead = deadKey, ready = KEYS[6], prio = KEYS[7], done = KEYS[8] }
local O = { events = KEYS[9], series = KEYS[10] }
local jobPrefix, dedupPrefix = ARGV[1], ARGV[2]
local limit, seed, errorCap = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local now = redisNow()

local ids = redis.call('ZRANGEBYSCORE', activeKey, '-inf', now, 'LIMIT', 0, limit)
local plans = {}
for i = 1, #ids do
  local id = ids[i]
  local jobKey = jobPrefix .. id
  local f = redis.call('HMGET', jobKey, 'state', 'attempt', 'maxAttempts', 'backoff', 'key', 'cancel', 'errors', 'finishedAt', 'type')
  local action = f[1] == 'active' and 'take' or strayAction(S, jobKey, id, f[1])
  local dedupKey = action == 'take' and f[5] and dedupPrefix .. f[5]
  plans[i] = { action, f, dedupKey, dedupKey and redis.call('GET', dedupKey) }
end

local reclaimed, dead = 0, 0
local ev = { ids = {}, types = {}, attempts = {}, outcomes = {}, dueAt = {} }
local function note(id, type, attempt, outcome, due)
  local k = #ev.ids + 1
  ev.ids[k], ev.types[k], ev.attempts[k], ev.outcomes[k], ev.dueAt[k] = id, type or '', attempt, outcome, due
end
for i = 1, #ids do
  local id = ids[i]
  local jobKey = jobPrefix .. id
  local action, f, dedupKey, holder = plans[i][1], plans[i][2], plans[i][3], plans[i][4]
  if action ~= 'take' then
    redis.call('ZREM', activeKey, id)
    if action == 'restore' then
      restoreFinished(S, id, f[1], f[8], now)
    end
  elseif f[6] == '1' then
    redis.call('ZREM', activeKey, id)
    if dedupKey then
      releaseDedupKey(dedupKey, holder, id)
    end
    redis.call('DEL', jobKey)
  else
    local attempt = tonumber(f[2]) or 1
    local errors = withError(f[7], {
      message = 'Lease expired: the worker died, stalled or lost Redis while running attempt ' .. attempt,
      stack = '', at = now, attempt = attempt,
    }, errorCap)
    redis.call('HSET', jobKey, 'token', '', 'errors', errors)
    redis.call('HINCRBY', statsKey, 'reclaimed', 1)
    reclaimed = reclaimed + 1
    if attempt >= (tonumber(f[3]) or 1) then
      activeToDead(activeKey, deadKey, statsKey, jobKey, id, now)
      if dedupKey then
        releaseDedupKey(dedupKey, holder, id)
      end
      dead = dead + 1
      note(id, f[9], attempt, 'dead', 0)
    else
      -- Golden-ratio steps spread one seed into a different jitter per job.
      local rand = (seed + i * 0.6180339887) % 1
      local due = now + backoffDelay(f[4], attempt, rand)
      redis.call('ZREM', activeKey, id)
      redis.call('HSET', jobKey, 'state', 'delayed', 'dueAt', due)
      addDelayed(delayedKey, wakeKey, id, due)
      note(id, f[9], attempt, 'retrying', due)
    end
  end
end
count(O, now, 'reclaimed', reclaimed)
count(O, now, 'dead', dead)
emit(O, 'reclaimed', ev, { 'ids', 'types', 'attempts', 'outcomes', 'dueAt' })
return { reclaimed, dead }
