-- What the scripts tell observers: the queue's event stream (one entry per script call, listing
-- every job it moved, so a batch of 250 completions costs one XADD), and per-10-second series
-- buckets for the dashboard's charts, kept in Redis so they survive restarts.
-- O holds the keys: events, series.
--
-- An entry's jobs are columns (ids, types, attempts, …), each a JSON array: building flat arrays
-- costs the script far less than a table per job (QueueEvents zips them back into jobs).

local EVENTS_MAXLEN = 10000
local BUCKET_MS = 10000
-- Lateness histogram bounds (ms); the last bucket is everything above.
local LATENESS_BOUNDS = { 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 5000, 30000 }
local LATENESS_LABELS = { '1', '2', '5', '10', '25', '50', '100', '250', '500', '1000', '5000', '30000', 'inf' }

-- A number as text, made once per value per call. Lua formats a number with sprintf each time,
-- and the columns repeat the same few values (attempt 1, lateness 0, one due time for a batch):
-- as text, cjson and redis.call take them as they are. QueueEvents reads them back as numbers.
local numberTexts = {}
local function asText(value)
  local text = numberTexts[value]
  if text == nil then
    text = tostring(value)
    numberTexts[value] = text
  end
  return text
end

-- Appends one entry: `event` and the columns named in `names` (all of the same length n).
local function emit(O, event, columns, names)
  local ids = columns.ids
  if ids and #ids == 0 then
    return
  end
  local args = { 'XADD', O.events, 'MAXLEN', '~', EVENTS_MAXLEN, '*', 'event', event }
  for _, name in ipairs(names) do
    args[#args + 1] = name
    args[#args + 1] = cjson.encode(columns[name])
  end
  redis.call(unpack(args))
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
  local counts, max = {}, 0
  local last = #LATENESS_BOUNDS + 1
  for i = 1, #values do
    local v = tonumber(values[i])
    local b = 1
    while b < last and v > LATENESS_BOUNDS[b] do
      b = b + 1
    end
    counts[b] = (counts[b] or 0) + 1
    if v > max then
      max = v
    end
  end
  local prefix = bucketOf(now) .. '|late:'
  for b = 1, last do
    if counts[b] then
      redis.call('HINCRBY', O.series, prefix .. LATENESS_LABELS[b], counts[b])
    end
  end
  local field = bucketOf(now) .. '|lateMax'
  if max > (tonumber(redis.call('HGET', O.series, field)) or -1) then
    redis.call('HSET', O.series, field, max)
  end
end
