-- The delay before the next attempt after failed attempt number `attempt` (1-based), from the
-- spec written by queue/backoff.ts: 'e:<delay>:<max>:<jitter>', 'f:<delay>:<jitter>' or
-- 't:<ms>,<ms>,…'. `rand` in [0, 1) comes from the client: scripts have no entropy of their own.
local function backoffDelay(spec, attempt, rand)
  local kind = string.sub(spec or '', 1, 1)
  local delay, jitter
  if kind == 't' then
    local table_ = {}
    for d in string.gmatch(string.sub(spec, 3), '[^,]+') do
      table_[#table_ + 1] = tonumber(d)
    end
    delay = table_[math.min(attempt, #table_)]
    jitter = 0
  elseif kind == 'f' then
    local d, j = string.match(spec, '^f:([^:]+):([^:]+)$')
    delay, jitter = tonumber(d), tonumber(j)
  elseif kind == 'e' then
    local d, m, j = string.match(spec, '^e:([^:]+):([^:]+):([^:]+)$')
    if d then
      -- 2^(attempt-1) overflows to inf for huge attempt counts; math.min keeps it at max.
      delay, jitter = math.min(tonumber(d) * 2 ^ (attempt - 1), tonumber(m)), tonumber(j)
    end
  end
  if delay == nil or delay ~= delay then
    -- An unreadable spec (a hand-edited hash) must not stop the retry: one second, then onwards.
    delay, jitter = 1000, 0
  end
  if jitter and jitter > 0 then
    delay = delay * (1 - jitter * rand)
  end
  return math.floor(delay)
end
