--[[ lock-extend: gives a lock a new time to live, only for its owner (compare and expire).

KEYS[1] the lock   ARGV[1] the owner's token   ARGV[2] new time to live, ms
Returns 1 extended, 0 not held by this token. Safe to run twice.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
