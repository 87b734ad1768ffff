--[[ promote: moves due jobs from `delayed` to `ready` (the Scheduler's pass; workers promote
inside claim.lua as they go).

KEYS[1] delayed   KEYS[2] ready   KEYS[3] prio   KEYS[4] meta   KEYS[5] wake   KEYS[6] active
KEYS[7] dead   KEYS[8] done   KEYS[9] schedules   KEYS[10] stats   KEYS[11] schedule-current
ARGV[1] job key prefix   ARGV[2] limit   ARGV[3] maxReady: promotion stops at this many ready jobs
Returns {moved, nextDue, readyLength, backpressure, now}: nextDue is the earliest remaining due
time (-1 for none); backpressure is 1 when `ready` is full and due jobs were left in `delayed`;
now is Redis time, so the caller can sleep until nextDue without a clock of its own.

Backpressure keeps a flood of due jobs in `delayed`, where they can still be cancelled cheaply
and memory does not move, while consumers cannot keep up (DESIGN §3.6).
The job hashes are found here and cannot be declared in KEYS; they share the queue's slot.
Safe to run twice.
]]
-- @include lib/time.lua
-- @include lib/wake.lua
-- @include lib/ready.lua
-- @include lib/heal.lua
-- @include lib/promote.lua

local delayedKey, readyKey, prioKey, metaKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local S = {
  delayed = delayedKey, ready = readyKey, prio = prioKey, active = KEYS[6], dead = KEYS[7], done = KEYS[8],
  schedules = KEYS[9], stats = KEYS[10], scheduleCurrent = KEYS[11],
}
local jobPrefix, limit, maxReady = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now = redisNow()

local waiting = readyLength(readyKey, prioKey)
local room = math.min(limit, maxReady - waiting)
local moved = 0
if room > 0 then
  moved = promoteDue(S, metaKey, jobPrefix, now, room)
end
if moved > 0 then
  wake(wakeKey)
end
local head = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
local nextDue = head[2] and tonumber(head[2]) or -1
local backpressure = 0
if nextDue ~= -1 and nextDue <= now and waiting + moved >= maxReady then
  backpressure = 1
end
return { moved, nextDue, waiting + moved, backpressure, now }
