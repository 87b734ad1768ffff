--[[ cancel: removes a waiting job, or asks the worker running it to stop.

KEYS[1] job hash   KEYS[2] delayed   KEYS[3] ready   KEYS[4] prio   KEYS[5] stats   KEYS[6] events
ARGV[1] id   ARGV[2] dedup key prefix   ARGV[3] control channel
Returns {code, state}: 1 removed (it was delayed or ready), 2 signalled (it is running: the
worker fires its AbortSignal, and the job is deleted when the attempt ends unless it completed),
0 no such job, 3 nothing to cancel (state is done or dead).

The dedup key is named in the job hash, so it is read here, before the first write.
Safe to run twice: a removed job is gone; a running one is flagged again and noticed once.
]]
-- @include lib/finish.lua
-- @include lib/observe.lua

local jobKey, delayedKey, readyKey, prioKey, statsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, dedupPrefix = ARGV[1], ARGV[2]

local O = { events = KEYS[6] }
local f = redis.call('HMGET', jobKey, 'state', 'key', 'type')
local state = f[1]
if not state then
  return { 0, '' }
end
if state == 'active' then
  redis.call('HSET', jobKey, 'cancel', '1')
  -- The notice is fast; the heartbeat (extend.lua) catches one a reconnecting worker missed.
  redis.call('PUBLISH', ARGV[3], 'cancel:' .. id)
  return { 2, state }
end
if state ~= 'delayed' and state ~= 'ready' then
  return { 3, state }
end
local dedupKey = f[2] and dedupPrefix .. f[2]
local holder = dedupKey and redis.call('GET', dedupKey)

if state == 'delayed' then
  redis.call('ZREM', delayedKey, id)
elseif redis.call('ZREM', prioKey, id) == 0 then
  -- LREM walks the list; cancelling a ready job is rare next to claims, which stay O(1).
  redis.call('LREM', readyKey, 1, id)
end
if dedupKey then
  releaseDedupKey(dedupKey, holder, id)
end
redis.call('DEL', jobKey)
redis.call('HINCRBY', statsKey, 'cancelled', 1)
emit(O, 'cancelled', { ids = { id }, types = { f[3] or '' }, states = { state } }, { 'ids', 'types', 'states' })
return { 1, state }
