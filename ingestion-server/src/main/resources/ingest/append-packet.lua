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
-- ARGV[5]  number of records, then per record: number of strings n, its identity, its arrival
--          order, then n field/value strings
-- Returns the number of records stored (the others were duplicates).
local maxlen = tonumber(ARGV[1])
local window = tonumber(ARGV[3])
local records = tonumber(ARGV[5])
local stored = 0
local i = 6
for r = 1, records do
  local n = tonumber(ARGV[i])
  local identity = ARGV[i + 1]
  local fresh = window == 0 or not redis.call('ZSCORE', KEYS[3], identity)
  if fresh then
    local args
    if maxlen > 0 then
      args = {'XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*'}
    else
      args = {'XADD', KEYS[1], '*'}
    end
    for k = 1, n do
      args[#args + 1] = ARGV[i + 2 + k]
    end
    redis.call(unpack(args))
    stored = stored + 1
    -- Remembered only once stored: if the XADD failed, the resend must not be skipped.
    if window > 0 then
      redis.call('ZADD', KEYS[3], ARGV[i + 2], identity)
    end
  end
  i = i + n + 3
end
if window > 0 and records > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, -(tonumber(ARGV[4]) + 1))
  redis.call('PEXPIRE', KEYS[3], ARGV[3])
end
if records > 0 and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'last_record_at', ARGV[2])
end
return stored
