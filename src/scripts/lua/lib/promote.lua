-- Needs: ready.lua, heal.lua
-- Promotion reads everything first: the job hashes are found here, not declared in KEYS, and a
-- script that fails on one (a slot migration) must fail before its first write (DESIGN §6).

-- Whether an occurrence of a schedule may run now that it is due (reads only): its schedule must
-- still exist at the version that made it, and under overlap 'skip' the occurrence that last went
-- to run must not still wait or run. Returns 'take' or 'drop'.
local schedules = {}
local function occurrenceAction(S, jobPrefix, sched, version)
  if schedules[sched] == nil then
    local raw = redis.call('HGET', S.schedules, sched)
    schedules[sched] = raw and cjson.decode(raw) or false
  end
  local record = schedules[sched]
  if not record or tostring(record.version) ~= version then
    return 'drop'
  end
  if record.overlap == 'skip' then
    local current = redis.call('HGET', S.scheduleCurrent, sched)
    local state = current and redis.call('HGET', jobPrefix .. current, 'state')
    if state == 'ready' or state == 'active' then
      return 'drop'
    end
  end
  return 'take'
end

-- Moves up to `limit` due jobs from `delayed` to `ready`. Returns how many ids left `delayed`.
local function promoteDue(S, metaKey, jobPrefix, now, limit)
  local ids = redis.call('ZRANGEBYSCORE', S.delayed, '-inf', now, 'LIMIT', 0, limit)
  local n = #ids
  if n == 0 then
    return 0
  end
  local plans = {}
  local takenNow = {}
  for i = 1, n do
    local jobKey = jobPrefix .. ids[i]
    local f = redis.call('HMGET', jobKey, 'state', 'priority', 'finishedAt', 'sched', 'schedVersion')
    local action = f[1] == 'delayed' and 'take' or strayAction(S, jobKey, ids[i], f[1])
    if action == 'take' and f[4] then
      action = occurrenceAction(S, jobPrefix, f[4], f[5])
      if action == 'take' and (schedules[f[4]] or {}).overlap == 'skip' then
        -- A later occurrence of this schedule in the same batch finds this one about to run.
        if takenNow[f[4]] then
          action = 'drop'
        end
        takenNow[f[4]] = true
      end
    end
    plans[i] = { action, f }
  end

  -- The ids are the n lowest scores, so one range delete removes exactly them.
  redis.call('ZREMRANGEBYRANK', S.delayed, 0, n - 1)
  local plain = {}
  local dropped = 0
  for i = 1, n do
    local id, action, f = ids[i], plans[i][1], plans[i][2]
    if action == 'take' then
      redis.call('HSET', jobPrefix .. id, 'state', 'ready')
      if f[4] then
        redis.call('HSET', S.scheduleCurrent, f[4], id)
      end
      local priority = tonumber(f[2]) or 0
      if priority > 0 then
        pushReady(S.ready, S.prio, metaKey, id, priority)
      else
        plain[#plain + 1] = id
      end
    elseif action == 'restore' then
      restoreFinished(S, id, f[1], f[3], now)
    elseif action == 'drop' and f[4] then
      redis.call('DEL', jobPrefix .. id)
      dropped = dropped + 1
    end
  end
  if #plain > 0 then
    -- n is batch-limited to hundreds, far below unpack()'s limit of ~8000 values.
    redis.call('RPUSH', S.ready, unpack(plain))
  end
  if dropped > 0 then
    redis.call('HINCRBY', S.stats, 'skipped', dropped)
  end
  return n
end
