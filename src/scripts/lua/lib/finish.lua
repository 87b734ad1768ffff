-- Frees a job's dedup key, if the key still names this job: from then on an add with the same
-- key makes a new job (DESIGN §1: done or dead frees the key).
local function releaseDedupKey(dedupPrefix, key, id)
  if key and key ~= '' then
    local dedupKey = dedupPrefix .. key
    if redis.call('GET', dedupKey) == id then
      redis.call('DEL', dedupKey)
    end
  end
end

-- Appends one error to the job's capped history (the oldest drops out).
local function appendError(jobKey, entry, cap)
  local list = {}
  local raw = redis.call('HGET', jobKey, 'errors')
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
  redis.call('HSET', jobKey, 'errors', cjson.encode(list))
end

-- Moves an active job to the dead-letter queue. The token stays, so that a re-sent fail from the
-- same worker recognises its own work; reclaim clears it before calling this.
local function activeToDead(activeKey, deadKey, statsKey, jobKey, id, now)
  redis.call('ZREM', activeKey, id)
  redis.call('ZADD', deadKey, now, id)
  redis.call('HSET', jobKey, 'state', 'dead', 'finishedAt', now)
  redis.call('HINCRBY', statsKey, 'dead', 1)
end
