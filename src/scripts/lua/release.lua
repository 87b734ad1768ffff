--[[ release: a closing worker hands back jobs it claimed but will not finish, so they run again
at once instead of waiting for their leases to expire.

KEYS[1] active   KEYS[2] ready   KEYS[3] prio   KEYS[4] wake   KEYS[5] stats   KEYS[6] events
KEYS[5 + 2i]  job hash of job i (i = 1..n)   KEYS[6 + 2i]  its dedup key, or the job hash again
ARGV[1] n   ARGV[2] dedup key prefix   ARGV[3 + 2(i-1) …] per job: id, lease token
Returns how many jobs went back to the head of `ready`.

Handing back is not a failure: the attempt taken by the claim is given back. The token is
cleared, so a handler of the closing worker that still finishes cannot record a result.
Reads come before writes. Safe to run twice: a job already handed back no longer matches the token.
]]
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/finish.lua
-- @include lib/observe.lua

local activeKey, readyKey, prioKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local n, dedupPrefix = tonumber(ARGV[1]), ARGV[2]
local O = { events = KEYS[6] }
local JK = 5 -- job i's hash is KEYS[JK + 2i]
local plans = {}
for i = 1, n do
  local id, token = ARGV[1 + 2 * i], ARGV[2 + 2 * i]
  local f = redis.call('HMGET', KEYS[JK + 2 * i], 'state', 'token', 'attempt', 'priority', 'key', 'cancel', 'type')
  if f[1] == 'active' and f[2] == token then
    local dedupKey = f[6] == '1' and f[5] and dedupPrefix .. f[5]
    plans[#plans + 1] = { i, id, f, dedupKey, dedupKey and redis.call('GET', dedupKey) }
  end
end

local released = 0
local ev = { ids = {}, types = {} }
for _, plan in ipairs(plans) do
  local i, id, f, dedupKey, holder = plan[1], plan[2], plan[3], plan[4], plan[5]
  local jobKey = KEYS[JK + 2 * i]
  redis.call('ZREM', activeKey, id)
  if f[6] == '1' then
    if dedupKey then
      releaseDedupKey(dedupKey, holder, id)
    end
    redis.call('DEL', jobKey)
  else
    redis.call('HSET', jobKey, 'state', 'ready', 'token', '', 'attempt', math.max((tonumber(f[3]) or 1) - 1, 0))
    pushReadyFront(readyKey, prioKey, id, tonumber(f[4]) or 0)
    released = released + 1
    ev.ids[released], ev.types[released] = id, f[7] or ''
  end
end
if released > 0 then
  redis.call('HINCRBY', KEYS[5], 'released', released)
  wake(wakeKey)
  emit(O, 'released', ev, { 'ids', 'types' })
end
return released
