--[[ schedule-set: creates or replaces a schedule, bumping its version.

KEYS[1] schedules   KEYS[2] delayed
ARGV[1] name   ARGV[2] the schedule as JSON (queue/schedules: without version and counters)
ARGV[3] job key prefix   ARGV[4] its first fire time ('' for none)
Returns the new version.

Its occurrences of the old version that are not due yet are dropped now; count, last and recent
carry over, so `limit` and `overlap` keep counting across updates. The occurrence hashes are found
here, not declared in KEYS; they share the queue's slot, and all reads come before the first write.
Safe to run twice: a second run bumps the version once more, to the same definition.
]]
-- @include lib/time.lua

local schedulesKey, delayedKey = KEYS[1], KEYS[2]
local name, jobPrefix = ARGV[1], ARGV[3]
local now = redisNow()

local raw = redis.call('HGET', schedulesKey, name)
local old = raw and cjson.decode(raw) or nil
local recent = (old and type(old.recent) == 'table') and old.recent or {}
local stale, kept = {}, {}
for _, id in ipairs(recent) do
  local f = redis.call('HMGET', jobPrefix .. id, 'state', 'schedVersion')
  if f[1] == 'delayed' and old and f[2] == tostring(old.version) then
    stale[#stale + 1] = id
  elseif f[1] then
    kept[#kept + 1] = id
  end
end

for _, id in ipairs(stale) do
  redis.call('ZREM', delayedKey, id)
  redis.call('DEL', jobPrefix .. id)
end
local record = cjson.decode(ARGV[2])
record.version = (old and old.version or 0) + 1
record.count = old and old.count or 0
record.last = old and old.last or nil
record.recent = kept
record.createdAt = old and old.createdAt or now
record.updatedAt = now
record.next = tonumber(ARGV[4])
if record.next == nil then
  record.done = true
end
redis.call('HSET', schedulesKey, name, cjson.encode(record))
return record.version
