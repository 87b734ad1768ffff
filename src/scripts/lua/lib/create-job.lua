-- Needs: wake.lua, ready.lua
-- Creating one job, shared by add.lua and schedule-fire.lua.

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

-- Writes a new job's hash and puts it in `delayed` or `ready` by its due time.
-- K: delayed, ready, prio, meta, wake, types keys. j: id, key (hash), type, data, due, now,
-- priority, maxAttempts, backoff, timeout, keep, dedupKey ('' for none), and defaults
-- (defaultMaxAttempts, defaultBackoff, defaultTimeout). `extra` is a list of more field/value pairs.
local function createJob(K, j, extra)
  local registered = optionsOf(K.types, j.type)
  local state = j.due > j.now and 'delayed' or 'ready'
  local timeout = pick(j.timeout, registered[3], j.defaultTimeout)
  local fields = {
    'type', j.type, 'data', j.data, 'state', state, 'attempt', 0,
    'maxAttempts', pick(j.maxAttempts, registered[1], j.defaultMaxAttempts),
    'backoff', pick(j.backoff, registered[2], j.defaultBackoff),
    'createdAt', j.now, 'dueAt', j.due,
  }
  local function add(field, value)
    fields[#fields + 1] = field
    fields[#fields + 1] = value
  end
  if j.priority > 0 then
    add('priority', j.priority)
  end
  if timeout ~= '' then
    add('timeout', timeout)
  end
  if j.keep ~= '' then
    add('keep', j.keep)
  end
  if j.dedupKey ~= '' then
    add('key', j.dedupKey)
  end
  for i = 1, #extra, 2 do
    add(extra[i], extra[i + 1])
  end
  redis.call('HSET', j.key, unpack(fields))
  if state == 'delayed' then
    addDelayed(K.delayed, K.wake, j.id, j.due)
  else
    pushReady(K.ready, K.prio, K.meta, j.id, j.priority)
    wake(K.wake)
  end
  return state
end
