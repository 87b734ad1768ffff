-- Self-healing for hand-corrupted or half-restored state (DESIGN §3.1, §3.7): a script that
-- meets an id whose hash says it is somewhere else decides here what to do with it.
-- S holds the structure keys: delayed, ready, prio, active, dead, done.

-- Whether the job is in the structure its state names (reads only).
local function placedWhereStateSays(S, id, state)
  if state == 'delayed' then
    return redis.call('ZSCORE', S.delayed, id) ~= false
  elseif state == 'ready' then
    -- LPOS walks the list, but only on this rare path, never for a healthy job.
    return redis.call('ZSCORE', S.prio, id) ~= false or redis.call('LPOS', S.ready, id) ~= false
  elseif state == 'active' then
    return redis.call('ZSCORE', S.active, id) ~= false
  elseif state == 'dead' then
    return redis.call('ZSCORE', S.dead, id) ~= false
  elseif state == 'done' then
    return redis.call('ZSCORE', S.done, id) ~= false
  end
  return false
end

-- For an id met in a structure its hash's state does not name, returns (reading only):
--   'drop'    the id is stale: there is no hash, or the job is also where its state says;
--   'restore' a finished job (done or dead) had lost its place: put it back (restoreFinished),
--             never re-run it;
--   'take'    the job is nowhere else (or its state is unknown): the caller handles it as its own,
--             so it runs, and a job the worker cannot read goes to dead with the reason.
local function strayAction(S, jobKey, id, state)
  if not state then
    if redis.call('EXISTS', jobKey) == 0 then
      return 'drop'
    end
    return 'take'
  end
  if placedWhereStateSays(S, id, state) then
    return 'drop'
  end
  if state == 'done' or state == 'dead' then
    return 'restore'
  end
  return 'take'
end

local function restoreFinished(S, id, state, finishedAt, now)
  redis.call('ZADD', state == 'done' and S.done or S.dead, tonumber(finishedAt) or now, id)
end
