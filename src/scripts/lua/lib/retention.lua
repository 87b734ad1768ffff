-- Deletes completed jobs kept in `done`: the oldest beyond `count`, then any older than `ageMs`
-- (0 means no limit), at most `limit` in all. Returns how many went.
local function trimDone(doneKey, jobPrefix, now, count, ageMs, limit)
  local removed = 0
  local function drop(ids)
    for i = 1, #ids do
      local jobKey = jobPrefix .. ids[i]
      if redis.call('HGET', jobKey, 'state') == 'done' then
        redis.call('DEL', jobKey)
      end
    end
    -- The ids are the lowest scores of `done`, so one range delete removes exactly them.
    redis.call('ZREMRANGEBYRANK', doneKey, 0, #ids - 1)
    removed = removed + #ids
  end
  if count > 0 then
    local excess = redis.call('ZCARD', doneKey) - count
    if excess > 0 then
      drop(redis.call('ZRANGE', doneKey, 0, math.min(excess, limit) - 1))
    end
  end
  if ageMs > 0 and removed < limit then
    local ids = redis.call('ZRANGEBYSCORE', doneKey, '-inf', now - ageMs, 'LIMIT', 0, limit - removed)
    if #ids > 0 then
      drop(ids)
    end
  end
  return removed
end

-- Reads a keep spec '<count>:<ageMs>'.
local function parseKeep(spec)
  local c, a = string.match(spec or '', '^(%d+):(%d+)$')
  return tonumber(c) or 0, tonumber(a) or 0
end
