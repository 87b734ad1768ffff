--[[ trim-series: deletes chart buckets older than the series retention, a batch at a time.

KEYS[1] series   KEYS[2] meta
ARGV[1] retention, ms   ARGV[2] bucket size, ms   ARGV[3] buckets per call at most
ARGV[4 …] the metric names a bucket may hold
Returns how many buckets it looked at (0 when nothing is left to trim).

Buckets are deleted by name, from where the last pass stopped (meta seriesTrimmedTo) up to the
cutoff, so no scan of the hash is needed. Safe to run twice.
]]
-- @include lib/time.lua

local now = redisNow()
local bucketMs, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
local cutoff = now - tonumber(ARGV[1])
cutoff = cutoff - (cutoff % bucketMs)
-- A queue trimmed for the first time: a day before the cutoff covers what an earlier run left.
local from = tonumber(redis.call('HGET', KEYS[2], 'seriesTrimmedTo')) or (cutoff - 86400000)
local done = 0
local bucket = from
while bucket + bucketMs <= cutoff and done < limit do
  bucket = bucket + bucketMs
  local fields = {}
  for i = 4, #ARGV do
    fields[#fields + 1] = bucket .. '|' .. ARGV[i]
  end
  redis.call('HDEL', KEYS[1], unpack(fields))
  done = done + 1
end
if done > 0 then
  redis.call('HSET', KEYS[2], 'seriesTrimmedTo', bucket)
end
return done
