--[[ counts: one consistent snapshot of the queue's sizes (read only).

KEYS[1] delayed   KEYS[2] ready   KEYS[3] prio   KEYS[4] active   KEYS[5] dead   KEYS[6] done
KEYS[7] stats   KEYS[8] meta
Returns {delayed, ready, active, dead, kept completed, completed in all, paused (0/1)}.
]]
return {
  redis.call('ZCARD', KEYS[1]),
  redis.call('LLEN', KEYS[2]) + redis.call('ZCARD', KEYS[3]),
  redis.call('ZCARD', KEYS[4]),
  redis.call('ZCARD', KEYS[5]),
  redis.call('ZCARD', KEYS[6]),
  tonumber(redis.call('HGET', KEYS[7], 'completed') or '0'),
  redis.call('HGET', KEYS[8], 'paused') == '1' and 1 or 0,
}
