-- `ready` is a list for priority 0 (FIFO, O(1) both ends) and `prio` a sorted set for priority > 0,
-- scored (2^20 - priority) * 2^32 + sequence: ZPOPMIN gives the highest priority, oldest first,
-- and every score stays below 2^53, exact as a double.
local PRIORITY_SPAN = 1048576
local SEQ_SPAN = 4294967296

local function pushReady(readyKey, prioKey, metaKey, id, priority)
  if priority > 0 then
    local seq = redis.call('HINCRBY', metaKey, 'seq', 1) % SEQ_SPAN
    redis.call('ZADD', prioKey, (PRIORITY_SPAN - priority) * SEQ_SPAN + seq, id)
  else
    redis.call('RPUSH', readyKey, id)
  end
end

-- Puts a job at the head of its priority class: a job handed back runs next, not last.
local function pushReadyFront(readyKey, prioKey, id, priority)
  if priority > 0 then
    redis.call('ZADD', prioKey, (PRIORITY_SPAN - priority) * SEQ_SPAN, id)
  else
    redis.call('LPUSH', readyKey, id)
  end
end

local function readyLength(readyKey, prioKey)
  return redis.call('LLEN', readyKey) + redis.call('ZCARD', prioKey)
end
