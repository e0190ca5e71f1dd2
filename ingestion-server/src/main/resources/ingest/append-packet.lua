-- Appends the records of one AVL packet to the telemetry stream in one round trip. A script runs
-- without interleaving, so a packet's entries stay together, and a failure before the script runs
-- stores none of them (only a Redis error inside the script, such as OOM, could leave a part).
-- Deduplication happens in the same step: a record whose identity (a hash of its time and content)
-- is among the device's recent ones is not stored again, so a packet resent after a lost ACK, even
-- to another replica racing this one, leaves one entry per record.
-- KEYS[1]  telemetry stream
-- KEYS[2]  device info hash: its last record time is refreshed when the hash exists (TCP logins
--          create it; it is left alone otherwise, so it never outlives its TTL)
-- KEYS[3]  the device's most recent record identities (a set; 64-bit integers, so Redis keeps it
--          compact as an intset); when it holds the per-device cap it becomes KEYS[4]
-- KEYS[4]  the generation before: checked, never added to, dropped at the next rename. So the
--          last cap to 2 x cap identities are remembered, the newest always among them, even when
--          a device replays an old backlog.
-- ARGV[1]  approximate MAXLEN ("0" = no cap)
-- ARGV[2]  newest record time of the packet (ms)
-- ARGV[3]  dedup window (ms, "0" = off), ARGV[4] identities kept per device
-- ARGV[5]  number of records R, ARGV[6] number of fields per entry F
-- ARGV[7]  F characters: "p" for a field whose value is the same for the whole packet (device,
--          codec, receive time, instance), "r" for one that has a value per record
-- then     the F field names, the values of the "p" fields, (only when dedup is on) the R
--          identities, then the "r" values, record by record. The server leaves out a record
--          repeated within the packet, so the identities are distinct.
-- Returns the number of records stored (the others were duplicates).
-- Cost matters here: Redis runs this for every packet and is the pipeline's narrowest part. Names
-- and packet-wide values travel once per packet and fill a reused XADD table; the stream is
-- trimmed once per packet. The dedup state is
-- two intsets, checked with one SMISMEMBER each: a sorted set (what this used before) cost more
-- CPU and, past 128 members, ~14 KB per device against ~1-2 KB; a string of identities searched
-- in Lua cost more still (every big Lua string is copied and hashed).
local maxlen = ARGV[1]
local window = tonumber(ARGV[3])
local records = tonumber(ARGV[5])
local fields = tonumber(ARGV[6])
local pattern = ARGV[7]
if records == 0 then
  return 0
end

local xadd = {'XADD', KEYS[1], '*'}
local base = #xadd
local perRecord = {}
local at = 8 + fields
for f = 1, fields do
  xadd[base + 2 * f - 1] = ARGV[7 + f]
  if string.byte(pattern, f) == 112 then -- 'p'
    xadd[base + 2 * f] = ARGV[at]
    at = at + 1
  else
    perRecord[#perRecord + 1] = base + 2 * f
  end
end

local fresh, idsAt
if window > 0 then
  idsAt = at
  at = at + records
  local last = idsAt + records - 1
  local inRecent = redis.call('SMISMEMBER', KEYS[3], unpack(ARGV, idsAt, last))
  local inPrevious = redis.call('SMISMEMBER', KEYS[4], unpack(ARGV, idsAt, last))
  fresh = {}
  for r = 1, records do
    fresh[r] = inRecent[r] == 0 and inPrevious[r] == 0
  end
end

local stored = 0
local perRecordCount = #perRecord
for r = 1, records do
  if not fresh or fresh[r] then
    for k = 1, perRecordCount do
      xadd[perRecord[k]] = ARGV[at + k - 1]
    end
    redis.call(unpack(xadd))
    stored = stored + 1
  end
  at = at + perRecordCount
end

-- Remembered only once stored: if an XADD failed, the script stopped there and the resend must not be skipped.
-- The previous generation's TTL is the one the recent set had when renamed, a window after its
-- newest member arrived, so every identity is kept at least a window after it was received.
if fresh then
  if stored > 0 then
    if stored == records then
      redis.call('SADD', KEYS[3], unpack(ARGV, idsAt, idsAt + records - 1))
    else
      local added = {}
      for r = 1, records do
        if fresh[r] then
          added[#added + 1] = ARGV[idsAt + r - 1]
        end
      end
      redis.call('SADD', KEYS[3], unpack(added))
    end
    redis.call('PEXPIRE', KEYS[3], ARGV[3])
    if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[4]) then
      redis.call('RENAME', KEYS[3], KEYS[4])
    end
  else
    redis.call('PEXPIRE', KEYS[3], ARGV[3])
  end
end
-- Trimmed once per packet, not by each XADD: three arguments less per record is measurable here.
if stored > 0 and tonumber(maxlen) > 0 then
  redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', maxlen)
end
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'last_record_at', ARGV[2])
end
return stored
