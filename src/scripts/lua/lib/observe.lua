-- What the scripts tell observers: the queue's event stream (one entry per script call, listing
-- every job it moved, so a batch of 250 completions costs one XADD), and per-10-second series
-- buckets for the dashboard's charts, kept in Redis so they survive restarts.
-- O holds the keys: events, series.

local EVENTS_MAXLEN = 10000
local BUCKET_MS = 10000
-- Lateness histogram bounds (ms); the last bucket is everything above.
local LATENESS_BOUNDS = { 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000, 30000 }

-- Appends one entry: `event` and the jobs it concerns (a list of small tables), JSON-encoded.
local function emit(O, event, jobs)
  if #jobs > 0 then
    redis.call('XADD', O.events, 'MAXLEN', '~', EVENTS_MAXLEN, '*', 'event', event, 'jobs', cjson.encode(jobs))
  end
end

local function bucketOf(now)
  return now - (now % BUCKET_MS)
end

-- Adds n to a counter of the current bucket: 'added', 'completed', 'failed', 'dead', 'reclaimed'.
local function count(O, now, metric, n)
  if n > 0 then
    redis.call('HINCRBY', O.series, bucketOf(now) .. '|' .. metric, n)
  end
end

-- Records how late jobs started (ms past their due time), into the bucket's histogram and max.
local function lateness(O, now, values)
  if #values == 0 then
    return
  end
  local bucket = bucketOf(now)
  local counts, max = {}, 0
  for _, v in ipairs(values) do
    local label = 'inf'
    for _, bound in ipairs(LATENESS_BOUNDS) do
      if v <= bound then
        label = tostring(bound)
        break
      end
    end
    counts[label] = (counts[label] or 0) + 1
    if v > max then
      max = v
    end
  end
  for label, n in pairs(counts) do
    redis.call('HINCRBY', O.series, bucket .. '|late:' .. label, n)
  end
  local field = bucket .. '|lateMax'
  if max > (tonumber(redis.call('HGET', O.series, field)) or -1) then
    redis.call('HSET', O.series, field, max)
  end
end
