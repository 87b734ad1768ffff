-- Redis server time is the only clock (DESIGN §3.2): read once, at the top of each script.
-- Returns milliseconds since the epoch, and TIME's raw {seconds, microseconds} pair.
local function redisNow()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000), t
end

-- A time in ms as exact text. tostring() keeps only 14 significant digits, enough for today's
-- times but not for an `at` far in the future; %d prints any whole number of ms exactly.
local function msText(ms)
  return string.format('%d', ms)
end
