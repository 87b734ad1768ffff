--[[ dead-remove: deletes one dead job.

KEYS[1] job hash   KEYS[2] dead
ARGV[1] id
Returns {code, state}: 1 deleted, 0 no such job, 2 refused (the job is not dead).
Safe to run twice.
]]
local state = redis.call('HGET', KEYS[1], 'state')
if not state then
  return { 0, '' }
end
if state ~= 'dead' then
  return { 2, state }
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return { 1, state }
