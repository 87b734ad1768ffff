--[[ dead-purge: deletes up to `limit` of the oldest dead jobs; the client calls it until it returns 0.

KEYS[1] dead
ARGV[1] job key prefix   ARGV[2] limit
Returns how many were deleted.
The job hashes are found here and cannot be declared in KEYS; they share the queue's slot, and
all reads come before the first write. Safe to run twice.
]]
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
if #ids == 0 then
  return 0
end
local states = {}
for i = 1, #ids do
  states[i] = redis.call('HGET', ARGV[1] .. ids[i], 'state')
end
for i = 1, #ids do
  -- A hash that says it is elsewhere keeps living there; only the stale `dead` entry goes.
  if states[i] == 'dead' then
    redis.call('DEL', ARGV[1] .. ids[i])
  end
end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, #ids - 1)
return #ids
