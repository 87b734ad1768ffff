--[[ trim-series: deletes chart buckets older than the series retention, a batch at a time.

KEYS[1] series   KEYS[2] meta
ARGV[1] retention, ms   ARGV[2] bucket size, ms   ARGV[3] buckets per call at most
ARGV[4 …] the metric names a bucket may hold
Returns how many buckets it deleted (0 when nothing is left to trim).

Buckets are deleted by name, from where the last pass stopped (meta seriesTrimmedTo) up to the
cutoff, so no scan of the hash is needed; each call is short (a few dozen buckets), since it runs
while workers run. A queue trimmed for the first time starts at the cutoff: buckets are only
written by running scripts, and a first pass comes within seconds of the first ones.
Safe to run twice.
]]
-- @include lib/time.lua

local now = redisNow()
local bucketMs, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local cutoff = now - tonumber(ARGV[1])
cutoff = cutoff - (cutoff % bucketMs)
local from = tonumber(redis.call('HGET', KEYS[2], 'seriesTrimmedTo'))
if from == nil then
  redis.call('HSET', KEYS[2], 'seriesTrimmedTo', cutoff)
  return 0
end
local done = 0
local bucket = from
while bucket + bucketMs <= cutoff and done < limit do
  bucket = bucket + bucketMs
  local fields = { 'HDEL', KEYS[1] }
  for i = 4, #ARGV do
    fields[#fields + 1] = bucket .. '|' .. ARGV[i]
  end
  redis.call(unpack(fields))
  done = done + 1
end
if done > 0 then
  redis.call('HSET', KEYS[2], 'seriesTrimmedTo', bucket)
end
return done
