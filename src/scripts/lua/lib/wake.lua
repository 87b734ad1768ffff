-- Idle workers block on the wake list. One token is enough: it wakes one worker, and every claim
-- that leaves work behind pushes the next (claim.lua), so a burst wakes workers one after another
-- and tokens never pile up.
local function wake(wakeKey)
  if redis.call('LLEN', wakeKey) == 0 then
    redis.call('LPUSH', wakeKey, '1')
  end
end

-- Adds a job to `delayed`. Idle workers sleep until the earliest due time they were last told,
-- so a job that becomes the new earliest must wake one of them to learn it.
local function addDelayed(delayedKey, wakeKey, id, due)
  local head = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
  redis.call('ZADD', delayedKey, due, id)
  if head[2] == nil or due < tonumber(head[2]) then
    wake(wakeKey)
  end
end
