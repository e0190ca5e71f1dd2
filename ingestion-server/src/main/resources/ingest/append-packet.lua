-- Appends the records of one AVL packet to the telemetry stream in one round trip. A script runs
-- without interleaving, so a packet's entries stay together, and a failure before the script runs
-- stores none of them (only a Redis error inside the script, such as OOM, could leave a part).
-- Deduplication happens in the same step: a record whose identity (timestamp and content hash) is
-- among the device's recent ones is not stored again, so a packet resent after a lost ACK, even to
-- another replica racing this one, leaves one entry per record.
-- KEYS[1]  telemetry stream
-- KEYS[2]  device info hash: its last record time is refreshed when the hash exists (TCP logins
--          create it; it is left alone otherwise, so it never outlives its TTL)
-- KEYS[3]  the device's recent record identities (sorted set, score = arrival order, so the cap
--          keeps the most recently received ones even when a device replays an old backlog)
-- ARGV[1]  approximate MAXLEN ("0" = no cap)
-- ARGV[2]  newest record time of the packet (ms)
-- ARGV[3]  dedup window (ms, "0" = off), ARGV[4] identities kept per device
-- ARGV[5]  number of records R, ARGV[6] number of fields per record F, then the F field names,
--          then (only when dedup is on) R pairs of arrival order and identity, then R x F values.
-- Returns the number of records stored (the others were duplicates).
-- Cost matters here: Redis runs this for every packet and is the pipeline's narrowest part. The
-- field names travel once per packet and the XADD arguments are a table reused across records,
-- and the dedup set is read and written once per packet (ZMSCORE, Redis 6.2+), not per record.
local maxlen = ARGV[1]
local window = tonumber(ARGV[3])
local records = tonumber(ARGV[5])
local fields = tonumber(ARGV[6])
if records == 0 then
  return 0
end
local pairsAt = 7 + fields
local valuesAt = pairsAt
local fresh
if window > 0 then
  valuesAt = pairsAt + 2 * records
  local ids = {}
  for r = 1, records do
    ids[r] = ARGV[pairsAt + 2 * r - 1]
  end
  local known = redis.call('ZMSCORE', KEYS[3], unpack(ids))
  fresh = {}
  local seen = {}
  for r = 1, records do
    -- A record repeated within the packet is stored once, as it would be across packets.
    fresh[r] = not known[r] and not seen[ids[r]]
    seen[ids[r]] = true
  end
end

local xadd
if tonumber(maxlen) > 0 then
  xadd = {'XADD', KEYS[1], 'MAXLEN', '~', maxlen, '*'}
else
  xadd = {'XADD', KEYS[1], '*'}
end
local base = #xadd
for f = 1, fields do
  xadd[base + 2 * f - 1] = ARGV[6 + f]
end
local stored = 0
local at = valuesAt
for r = 1, records do
  if not fresh or fresh[r] then
    for f = 1, fields do
      xadd[base + 2 * f] = ARGV[at + f - 1]
    end
    redis.call(unpack(xadd))
    stored = stored + 1
  end
  at = at + fields
end

-- Remembered only once stored: if an XADD failed, the script stopped there and the resend must not be skipped.
if fresh then
  if stored == records then
    redis.call('ZADD', KEYS[3], unpack(ARGV, pairsAt, valuesAt - 1))
  elseif stored > 0 then
    local members = {}
    for r = 1, records do
      if fresh[r] then
        members[#members + 1] = ARGV[pairsAt + 2 * r - 2]
        members[#members + 1] = ARGV[pairsAt + 2 * r - 1]
      end
    end
    redis.call('ZADD', KEYS[3], unpack(members))
  end
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[4]) + 1))
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'last_record_at', ARGV[2])
end
return stored
