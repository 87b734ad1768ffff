--[[ once-finish: records how a once() run ended, only for the caller that runs it.

KEYS[1] the once key
ARGV[1] the runner's token   ARGV[2] 'done' or 'failed'   ARGV[3] result JSON ('' for none)
ARGV[4] how long a done result is kept, ms
Returns 1 recorded, 0 not this caller's run any more (its lease expired).
A failure frees the key, so a retry runs it again (seed 002 §4.1: the idempotency key must not
outlive a failed attempt). Safe to run twice.
]]
local f = redis.call('HMGET', KEYS[1], 'state', 'token')
if f[1] == 'done' and ARGV[2] == 'done' then
  return 1
end
if f[2] ~= ARGV[1] then
  return 0
end
if ARGV[2] == 'done' then
  redis.call('HSET', KEYS[1], 'state', 'done', 'result', ARGV[3])
  redis.call('HDEL', KEYS[1], 'token')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
else
  redis.call('DEL', KEYS[1])
end
return 1
