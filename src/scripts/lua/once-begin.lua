--[[ once-begin: claims a once() key for one caller, or says what became of it.

KEYS[1] the once key (a hash: state, token, result)
ARGV[1] this caller's token   ARGV[2] lease, ms: how long a runner that died holds the key
Returns {'run'} (this caller runs it), {'done', result JSON or ''}, or {'running'} (another caller
is running it now). Safe to run twice: a re-sent begin finds its own token and says 'run' again.
]]
local f = redis.call('HMGET', KEYS[1], 'state', 'token', 'result')
if not f[1] then
  redis.call('HSET', KEYS[1], 'state', 'running', 'token', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return { 'run' }
end
if f[1] == 'done' then
  return { 'done', f[3] or '' }
end
if f[2] == ARGV[1] then
  return { 'run' }
end
return { 'running' }
