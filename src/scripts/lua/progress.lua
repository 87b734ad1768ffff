--[[ progress: stores a running job's progress, if the caller still holds its lease.

KEYS[1] job hash
ARGV[1] lease token   ARGV[2] progress (JSON number)
Returns 1 stored, 0 refused (the lease is gone or the job no longer exists).
Safe to run twice.
]]
local f = redis.call('HMGET', KEYS[1], 'state', 'token')
if f[1] ~= 'active' or f[2] ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'progress', ARGV[2])
return 1
