-- Needs: ready.lua, heal.lua
-- Moves up to `limit` due jobs from `delayed` to `ready`. Returns how many ids left `delayed`.
-- An id whose hash says it is elsewhere is resolved by heal.lua.
local function promoteDue(S, metaKey, jobPrefix, now, limit)
  local delayedKey, readyKey, prioKey = S.delayed, S.ready, S.prio
  local ids = redis.call('ZRANGEBYSCORE', delayedKey, '-inf', now, 'LIMIT', 0, limit)
  local n = #ids
  if n == 0 then
    return 0
  end
  -- The ids are the n lowest scores, so one range delete removes exactly them.
  redis.call('ZREMRANGEBYRANK', delayedKey, 0, n - 1)
  local plain = {}
  for i = 1, n do
    local id = ids[i]
    local jobKey = jobPrefix .. id
    local f = redis.call('HMGET', jobKey, 'state', 'priority')
    if f[1] == 'delayed' or resolveStray(S, jobKey, id, f[1], now) == 'take' then
      redis.call('HSET', jobKey, 'state', 'ready')
      local priority = tonumber(f[2]) or 0
      if priority > 0 then
        pushReady(readyKey, prioKey, metaKey, id, priority)
      else
        plain[#plain + 1] = id
      end
    end
  end
  if #plain > 0 then
    -- n is batch-limited to hundreds, far below unpack()'s limit of ~8000 values.
    redis.call('RPUSH', readyKey, unpack(plain))
  end
  return n
end
