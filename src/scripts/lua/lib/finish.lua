-- Frees a job's dedup key, if the key still names this job: from then on an add with the same
-- key makes a new job (DESIGN §1: done or dead frees the key). `holder` is the key's value, read
-- before the script's first write.
local function releaseDedupKey(dedupKey, holder, id)
  if holder == id then
    redis.call('DEL', dedupKey)
  end
end

-- The job's error history with one more entry, the oldest dropped past `cap` (no Redis call).
local function withError(raw, entry, cap)
  local list = {}
  if raw then
    local ok, decoded = pcall(cjson.decode, raw)
    if ok and type(decoded) == 'table' then
      list = decoded
    end
  end
  list[#list + 1] = entry
  while #list > cap do
    table.remove(list, 1)
  end
  return cjson.encode(list)
end

-- Moves an active job to the dead-letter queue. The token stays, so that a re-sent fail from the
-- same worker recognises its own work; reclaim clears it.
local function activeToDead(activeKey, deadKey, statsKey, jobKey, id, now)
  redis.call('ZREM', activeKey, id)
  redis.call('ZADD', deadKey, now, id)
  redis.call('HSET', jobKey, 'state', 'dead', 'finishedAt', now)
  redis.call('HINCRBY', statsKey, 'dead', 1)
end
