--[[ counts: one consistent snapshot of the queue's sizes (read only).

KEYS[1] delayed   KEYS[2] ready   KEYS[3] prio   KEYS[4] active   KEYS[5] dead   KEYS[6] done
KEYS[7] stats   KEYS[8] meta
ARGV[1] job key prefix
Returns {delayed, ready, active, dead, kept completed, completed in all, paused (0/1), due time of
the oldest ready job (-1 for none), Redis time (ms)}.
]]
-- @include lib/time.lua

-- The oldest ready job is the head of the priority set or of the list, whichever is older.
local function dueOf(id)
  return id and tonumber(redis.call('HGET', ARGV[1] .. id, 'dueAt')) or nil
end
local oldest = -1
for _, due in ipairs({ dueOf(redis.call('LINDEX', KEYS[2], 0) or nil), dueOf(redis.call('ZRANGE', KEYS[3], 0, 0)[1]) }) do
  if due and (oldest == -1 or due < oldest) then
    oldest = due
  end
end

return {
  redis.call('ZCARD', KEYS[1]),
  redis.call('LLEN', KEYS[2]) + redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[4]),
  redis.call('ZCARD', KEYS[5]),
  redis.call('ZCARD', KEYS[6]),
  tonumber(redis.call('HGET', KEYS[7], 'completed') or '0'),
  redis.call('HGET', KEYS[8], 'paused') == '1' and 1 or 0,
  oldest,
  redisNow(),
}
