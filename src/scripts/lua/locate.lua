--[[ locate: where one job is, read atomically (for doctor, which must not mistake a job that
moved between two of its reads for a damaged one). Read only.

KEYS[1] job hash   KEYS[2] delayed   KEYS[3] ready   KEYS[4] prio   KEYS[5] active   KEYS[6] dead
KEYS[7] done
ARGV[1] id
Returns {the job hash as a flat field/value list (empty when there is none), then 0/1 for each
of delayed, ready, active, dead, done} (ready counts the priority set too).
]]
local id = ARGV[1]
local function inZ(key)
  return redis.call('ZSCORE', key, id) and 1 or 0
end
local inReady = (redis.call('LPOS', KEYS[3], id) or redis.call('ZSCORE', KEYS[4], id)) and 1 or 0
return { redis.call('HGETALL', KEYS[1]), { inZ(KEYS[2]), inReady, inZ(KEYS[5]), inZ(KEYS[6]), inZ(KEYS[7]) } }
