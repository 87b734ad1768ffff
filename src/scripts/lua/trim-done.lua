--[[ trim-done: deletes completed jobs past their retention, for the time no completion trims them.

KEYS[1] done
ARGV[1] job key prefix   ARGV[2] limit
Returns how many completed jobs were deleted.

The limits are the oldest kept job's own (its `keep` field: '<count>:<ageMs>'), as written by
the Queue that added it. The job hashes are found here and cannot be declared in KEYS; they
share the queue's slot. Safe to run twice.
]]
-- @include lib/time.lua
-- @include lib/retention.lua

local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)
if #oldest == 0 then
  return 0
end
local count, ageMs = parseKeep(redis.call('HGET', ARGV[1] .. oldest[1], 'keep'))
return trimDone(KEYS[1], ARGV[1], redisNow(), count, ageMs, tonumber(ARGV[2]))
