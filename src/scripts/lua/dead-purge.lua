--[[ dead-purge: deletes up to `limit` of the oldest dead jobs; the client calls it until it returns 0.

KEYS[1] dead
ARGV[1] job key prefix   ARGV[2] limit
Returns how many were deleted.
The job hashes are found here and cannot be declared in KEYS; they share the queue's slot.
Safe to run twice.
]]
local ids = redis.call('ZRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
if #ids == 0 then
  return 0
end
for i = 1, #ids do
  local jobKey = ARGV[1] .. ids[i]
  if redis.call('HGET', jobKey, 'state') == 'dead' then
    redis.call('DEL', jobKey)
  end
end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, #ids - 1)
return #ids
