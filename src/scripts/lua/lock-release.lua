--[[ lock-release: deletes a lock, only for its owner (compare and delete).

KEYS[1] the lock   ARGV[1] the owner's token
Returns 1 released, 0 not held by this token (expired, or another owner holds it now).
Safe to run twice.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
