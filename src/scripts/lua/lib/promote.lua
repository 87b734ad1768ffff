-- Needs: ready.lua, heal.lua
-- Moves up to `limit` due jobs from `delayed` to `ready`. Returns how many ids left `delayed`.
-- All reads come first: the job hashes are found here, not declared in KEYS, and a script that
-- fails on one (a slot migration) must fail before its first write (DESIGN §6).
local function promoteDue(S, metaKey, jobPrefix, now, limit)
  local ids = redis.call('ZRANGEBYSCORE', S.delayed, '-inf', now, 'LIMIT', 0, limit)
  local n = #ids
  if n == 0 then
    return 0
  end
  local plans = {}
  for i = 1, n do
    local jobKey = jobPrefix .. ids[i]
    local f = redis.call('HMGET', jobKey, 'state', 'priority', 'finishedAt')
    local action = f[1] == 'delayed' and 'take' or strayAction(S, jobKey, ids[i], f[1])
    plans[i] = { action, f }
  end

  -- The ids are the n lowest scores, so one range delete removes exactly them.
  redis.call('ZREMRANGEBYRANK', S.delayed, 0, n - 1)
  local plain = {}
  for i = 1, n do
    local id, action, f = ids[i], plans[i][1], plans[i][2]
    if action == 'take' then
      redis.call('HSET', jobPrefix .. id, 'state', 'ready')
      local priority = tonumber(f[2]) or 0
      if priority > 0 then
        pushReady(S.ready, S.prio, metaKey, id, priority)
      else
        plain[#plain + 1] = id
      end
    elseif action == 'restore' then
      restoreFinished(S, id, f[1], f[3], now)
    end
  end
  if #plain > 0 then
    -- n is batch-limited to hundreds, far below unpack()'s limit of ~8000 values.
    redis.call('RPUSH', S.ready, unpack(plain))
  end
  return n
end
