-- Deletes completed jobs kept in `done`: the oldest beyond `count`, then any older than `ageMs`
-- (0 means no limit), at most `limit` in all. Returns how many went. Reads first (the job hashes
-- are found here), then writes.
local function trimDone(doneKey, jobPrefix, now, count, ageMs, limit)
  local ids = {}
  if count > 0 then
    local excess = redis.call('ZCARD', doneKey) - count
    if excess > 0 then
      ids = redis.call('ZRANGE', doneKey, 0, math.min(excess, limit) - 1)
    end
  end
  if ageMs > 0 and #ids < limit then
    -- The oldest first either way, so the age pass continues where the count pass ended.
    local old = redis.call('ZRANGEBYSCORE', doneKey, '-inf', now - ageMs, 'LIMIT', #ids, limit - #ids)
    for i = 1, #old do
      ids[#ids + 1] = old[i]
    end
  end
  if #ids == 0 then
    return 0
  end
  local states = {}
  for i = 1, #ids do
    states[i] = redis.call('HGET', jobPrefix .. ids[i], 'state')
  end
  for i = 1, #ids do
    if states[i] == 'done' then
      redis.call('DEL', jobPrefix .. ids[i])
    end
  end
  -- The ids are the lowest scores of `done`, so one range delete removes exactly them.
  redis.call('ZREMRANGEBYRANK', doneKey, 0, #ids - 1)
  return #ids
end

-- Reads a keep spec '<count>:<ageMs>'.
local function parseKeep(spec)
  local c, a = string.match(spec or '', '^(%d+):(%d+)$')
  return tonumber(c) or 0, tonumber(a) or 0
end
