--[[ repair: puts one job where its hash says it belongs (doctor --repair), atomically, so that it
is safe on a queue whose workers are running.

KEYS[1] job hash   KEYS[2] delayed   KEYS[3] ready   KEYS[4] prio   KEYS[5] active   KEYS[6] dead
KEYS[7] done   KEYS[8] wake
ARGV[1] id
Returns what it did: 'ok' (nothing was wrong), 'dropped' (an id with no hash left every
structure), 'deduped' (an id in several structures kept only where its state says), 'placed'
(a job in no structure, or in the wrong one, went back: done and dead jobs to their sets, never
re-run; any other job to the head of ready, its token cleared so no old worker can finish it).
Safe to run twice: the second run finds nothing wrong.
]]
-- @include lib/wake.lua

local jobKey, id = KEYS[1], ARGV[1]
local S = { delayed = KEYS[2], active = KEYS[5], dead = KEYS[6], done = KEYS[7] }

local function removeFrom(place)
  if place == 'ready' then
    redis.call('LREM', KEYS[3], 0, id)
    redis.call('ZREM', KEYS[4], id)
  else
    redis.call('ZREM', S[place], id)
  end
end

local places = {}
for _, place in ipairs({ 'delayed', 'active', 'dead', 'done' }) do
  if redis.call('ZSCORE', S[place], id) then
    places[#places + 1] = place
  end
end
if redis.call('LPOS', KEYS[3], id) or redis.call('ZSCORE', KEYS[4], id) then
  places[#places + 1] = 'ready'
end

if redis.call('EXISTS', jobKey) == 0 then
  for _, place in ipairs(places) do
    removeFrom(place)
  end
  return #places > 0 and 'dropped' or 'ok'
end

local state = redis.call('HGET', jobKey, 'state')
local home = false
for _, place in ipairs(places) do
  if place == state then
    home = true
  end
end
if home then
  if #places == 1 then
    return 'ok'
  end
  for _, place in ipairs(places) do
    if place ~= state then
      removeFrom(place)
    end
  end
  return 'deduped'
end

for _, place in ipairs(places) do
  removeFrom(place)
end
if state == 'done' or state == 'dead' then
  local t = redis.call('TIME')
  local at = tonumber(redis.call('HGET', jobKey, 'finishedAt')) or (tonumber(t[1]) * 1000)
  redis.call('ZADD', S[state], at, id)
else
  redis.call('HSET', jobKey, 'state', 'ready', 'token', '')
  redis.call('LPUSH', KEYS[3], id)
  -- Idle workers sleep on the wake list: without a token the job would wait for their next look.
  wake(KEYS[8])
end
return 'placed'
