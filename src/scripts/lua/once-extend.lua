--[[ once-extend: renews the lease of a once() run, only for its runner.

KEYS[1] the once key   ARGV[1] the runner's token   ARGV[2] lease, ms
Returns 1 extended, 0 not this caller's run. Safe to run twice.
]]
if redis.call('HGET', KEYS[1], 'token') == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
