--[[ schedule-remove: deletes a schedule and its occurrences that have not started.

KEYS[1] schedules   KEYS[2] delayed   KEYS[3] ready   KEYS[4] prio   KEYS[5] schedule-current
ARGV[1] name   ARGV[2] job key prefix
Returns {existed (0/1), occurrences dropped}.

Running occurrences finish. The occurrence hashes are found here, not declared in KEYS; they
share the queue's slot, and all reads come before the first write. Safe to run twice.
]]
local schedulesKey, delayedKey, readyKey, prioKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local name, jobPrefix = ARGV[1], ARGV[2]

local raw = redis.call('HGET', schedulesKey, name)
if not raw then
  return { 0, 0 }
end
local record = cjson.decode(raw)
local drop = {}
for _, id in ipairs(type(record.recent) == 'table' and record.recent or {}) do
  local f = redis.call('HMGET', jobPrefix .. id, 'state', 'sched')
  if f[2] == name and (f[1] == 'delayed' or f[1] == 'ready') then
    drop[#drop + 1] = { id, f[1] }
  end
end

for _, d in ipairs(drop) do
  local id, state = d[1], d[2]
  if state == 'delayed' then
    redis.call('ZREM', delayedKey, id)
  elseif redis.call('ZREM', prioKey, id) == 0 then
    redis.call('LREM', readyKey, 1, id)
  end
  redis.call('DEL', jobPrefix .. id)
end
redis.call('HDEL', schedulesKey, name)
redis.call('HDEL', KEYS[5], name)
return { 1, #drop }
