--[[ pause: stops or restarts claiming for the whole queue, on every worker.

KEYS[1] meta   KEYS[2] wake   KEYS[3] events
ARGV[1] '1' to pause, '0' to resume
Returns 1. Jobs keep falling due and wait in `ready`; running jobs finish.
On resume one wake token starts the chain that wakes every idle worker (lib/wake.lua).
Safe to run twice.
]]
-- @include lib/wake.lua

if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'paused', '1')
else
  redis.call('HDEL', KEYS[1], 'paused')
  wake(KEYS[2])
end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', 10000, '*', 'event', ARGV[1] == '1' and 'paused' or 'resumed', 'jobs', '[]')
return 1
