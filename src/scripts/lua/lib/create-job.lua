-- Needs: wake.lua, ready.lua
-- Creating jobs, shared by add.lua and schedule-fire.lua: each job's hash is written on its own;
-- placing them is batched (one RPUSH, one ZADD and one wake per call, not per job).

-- A job type's options registered by defineJob ('<maxAttempts>|<backoff>|<timeoutMs>', '' parts
-- not set), read once per type per script.
local registeredOptions = {}
local function optionsOf(typesKey, type)
  if registeredOptions[type] == nil then
    local m, b, t = string.match(redis.call('HGET', typesKey, type) or '', '^([^|]*)|([^|]*)|([^|]*)$')
    registeredOptions[type] = { m or '', b or '', t or '' }
  end
  return registeredOptions[type]
end

-- The job's own value, else its type's registered one, else the queue's default.
local function pick(explicit, registered, default)
  if explicit ~= '' then
    return explicit
  elseif registered ~= '' then
    return registered
  end
  return default
end

-- One array reused for every job's optional fields: a table per job costs more than the write
-- itself in a batch of hundreds.
local optional = {}

-- Writes a new job's hash and returns its state ('delayed' or 'ready'); place() puts it in its
-- structure. j: id, key (hash), type, data, due, dueText, now, nowText, priority, maxAttempts, backoff,
-- timeout, keep, dedupKey ('' for none), defaultMaxAttempts, defaultBackoff, defaultTimeout. The
-- caller may reuse one j for all its jobs. `extra`: more field/value pairs.
-- Times go to Redis as text made once (nowText, and dueText = nowText for a job due now): Redis
-- formats a Lua number argument with %.17g, which costs more than the rest of the HSET.
local function writeJob(K, j, extra)
  local registered = optionsOf(K.types, j.type)
  local state = j.due > j.now and 'delayed' or 'ready'
  local timeout = pick(j.timeout, registered[3], j.defaultTimeout)
  local n = 0
  if j.priority > 0 then
    optional[n + 1], optional[n + 2], n = 'priority', j.priority, n + 2
  end
  if timeout ~= '' then
    optional[n + 1], optional[n + 2], n = 'timeout', timeout, n + 2
  end
  if j.keep ~= '' then
    optional[n + 1], optional[n + 2], n = 'keep', j.keep, n + 2
  end
  if j.dedupKey ~= '' then
    optional[n + 1], optional[n + 2], n = 'key', j.dedupKey, n + 2
  end
  for i = 1, #extra do
    optional[n + i] = extra[i]
  end
  redis.call('HSET', j.key, 'type', j.type, 'data', j.data, 'state', state, 'attempt', '0',
    'maxAttempts', pick(j.maxAttempts, registered[1], j.defaultMaxAttempts),
    'backoff', pick(j.backoff, registered[2], j.defaultBackoff),
    'createdAt', j.nowText, 'dueAt', j.dueText,
    unpack(optional, 1, n + #extra))
  return state
end

local function newPlacement()
  return { ready = {}, delayed = {}, minDue = nil, anyReady = false }
end

-- Notes where a new job goes; flushPlacement() does it for the whole batch.
local function place(P, K, id, state, due, priority)
  if state == 'delayed' then
    local n = #P.delayed
    P.delayed[n + 1] = due
    P.delayed[n + 2] = id
    if P.minDue == nil or due < P.minDue then
      P.minDue = due
    end
  else
    P.anyReady = true
    if priority > 0 then
      pushReady(K.ready, K.prio, K.meta, id, priority)
    else
      P.ready[#P.ready + 1] = id
    end
  end
end

-- Batches are a few hundred jobs at most: far below unpack()'s limit of ~8000 values.
local function flushPlacement(P, K)
  if #P.ready > 0 then
    redis.call('RPUSH', K.ready, unpack(P.ready))
  end
  if #P.delayed > 0 then
    -- Idle workers sleep until the earliest due time they know: a new earliest must wake one.
    local head = redis.call('ZRANGE', K.delayed, 0, 0, 'WITHSCORES')
    redis.call('ZADD', K.delayed, unpack(P.delayed))
    if head[2] == nil or P.minDue < tonumber(head[2]) then
      wake(K.wake)
    end
  end
  if P.anyReady then
    wake(K.wake)
  end
end
