-- Appends the records of one or more AVL packets (of any devices) to the telemetry stream in one
-- round trip. A script runs without interleaving, so a packet's entries stay together, and a
-- failure before the script runs stores none of them (only a Redis error inside the script, such
-- as OOM, could leave a part: the packets before it stored, that one partly, the rest not).
-- Deduplication happens in the same step: a record whose identity (a hash of its time and content)
-- is among its device's recent ones is not stored again, so a packet resent after a lost ACK, even
-- to another replica racing this one, leaves one entry per record.
-- KEYS: per packet p, at 4p - 3 .. 4p:
--   stream    the telemetry stream of the device's partition (TELEMETRY_PARTITIONS); the keys of
--             one call may belong to several partitions on a single Redis, never on a cluster
--   info      device info hash: when it exists (a TCP login created it) and the packet's flags ask,
--             its TTL starts again and its last record time is set, so it lives as long as the
--             device sends; the server asks at most every 10 s per connection (ResendGuard). It is
--             never created here (it would lack the login's fields; a device that only ever sent
--             over UDP has none). On a Redis Cluster with partitions the hash is in another slot:
--             the stream's key stands here, and flag 2 is never set (the server refreshes it apart)
--   recent    the device's most recent record identities (a set of 64-bit integers, so Redis keeps
--             it compact as an intset); when it holds the per-device cap it is renamed to previous
--   previous  the generation before: checked, never added to, replaced at the next rename. So the
--             last cap to 2 x cap identities are remembered, the newest always among them, even
--             when a device replays an old backlog.
-- ARGV[1]  dedup window (ms, "0" = off), ARGV[2] identities kept per device, ARGV[3] device info
--          TTL (ms), ARGV[4] number of packets P; then per packet:
--   newest record time (ms), flags (1: the records may have been sent before, so the dedup sets
--   are read first; without it every record is stored, and still remembered; 2: refresh the info
--   hash), number of records R, number of fields F (0: same fields as the
--   packet before), and when F > 0: F characters ("p" for a field whose value is the same for the
--   whole packet: device, codec, receive time, instance; "r" for one with a value per record) and
--   the F field names; then the values of the "p" fields, (only when dedup is on) the R identities,
--   distinct (the server leaves out a record repeated within its packet), then the "r" values,
--   record by record.
-- Returns the number of records stored per packet (the others were duplicates).
-- Cost matters here: Redis runs this for every packet and is the pipeline's narrowest part. Names
-- and packet-wide values travel once per packet and fill a reused XADD table, and one call carries
-- the packets that reached an event loop together. The stream is not trimmed here: trimming must
-- respect the consumer groups' positions, and trim-stream.lua decides that once per second.
-- The dedup state is two intsets, checked with one SMISMEMBER each: a sorted set (what this used
-- before) cost more CPU and, past 128 members, ~14.5 KB per device against 1.3-2.7 KB; a string of
-- identities searched in Lua cost more still (every big Lua string is copied and hashed).
local window = ARGV[1]
local dedup = tonumber(window) > 0
local cap = tonumber(ARGV[2])
local infoTtl = ARGV[3]
local packets = tonumber(ARGV[4])
local results = {}
local at = 5
local xadd, packetSlots, recordSlots
for p = 1, packets do
  local stream, info, recent, previous = KEYS[4 * p - 3], KEYS[4 * p - 2], KEYS[4 * p - 1], KEYS[4 * p]
  local newest = ARGV[at]
  local flags = tonumber(ARGV[at + 1])
  local check = flags % 2 == 1
  local refresh = flags >= 2
  local records = tonumber(ARGV[at + 2])
  local fields = tonumber(ARGV[at + 3])
  at = at + 4
  if fields > 0 then
    local pattern = ARGV[at]
    xadd = {'XADD', stream, '*'}
    packetSlots, recordSlots = {}, {}
    for f = 1, fields do
      xadd[2 + 2 * f] = ARGV[at + f]
      if string.byte(pattern, f) == 112 then -- 'p'
        packetSlots[#packetSlots + 1] = 3 + 2 * f
      else
        recordSlots[#recordSlots + 1] = 3 + 2 * f
      end
    end
    at = at + 1 + fields
  end
  xadd[2] = stream
  for k = 1, #packetSlots do
    xadd[packetSlots[k]] = ARGV[at + k - 1]
  end
  at = at + #packetSlots

  local fresh, idsAt
  if dedup and records > 0 then
    idsAt = at
    at = at + records
  end
  if dedup and records > 0 and check then
    local last = idsAt + records - 1
    local inRecent = redis.call('SMISMEMBER', recent, unpack(ARGV, idsAt, last))
    local inPrevious = redis.call('SMISMEMBER', previous, unpack(ARGV, idsAt, last))
    fresh = {}
    for r = 1, records do
      fresh[r] = inRecent[r] == 0 and inPrevious[r] == 0
    end
  end

  local stored = 0
  local perRecord = #recordSlots
  for r = 1, records do
    if not fresh or fresh[r] then
      for k = 1, perRecord do
        xadd[recordSlots[k]] = ARGV[at + k - 1]
      end
      redis.call(unpack(xadd))
      stored = stored + 1
    end
    at = at + perRecord
  end

  -- Remembered only once stored: if an XADD failed, the script stopped there and the resend must
  -- not be skipped. The previous generation keeps the TTL the recent set had when renamed, a
  -- window after its newest member arrived, so every identity is kept a window after it came.
  if dedup and records > 0 then
    if stored > 0 then
      if not fresh or stored == records then
        redis.call('SADD', recent, unpack(ARGV, idsAt, idsAt + records - 1))
      else
        local added = {}
        for r = 1, records do
          if fresh[r] then
            added[#added + 1] = ARGV[idsAt + r - 1]
          end
        end
        redis.call('SADD', recent, unpack(added))
      end
      redis.call('PEXPIRE', recent, window)
      if redis.call('SCARD', recent) >= cap then
        redis.call('RENAME', recent, previous)
      end
    else
      redis.call('PEXPIRE', recent, window)
    end
  end
  -- PEXPIRE answers 0 for a missing key: it tests and refreshes in one call.
  if records > 0 and refresh and redis.call('PEXPIRE', info, infoTtl) == 1 then
    redis.call('HSET', info, 'last_record_at', newest)
  end
  results[p] = stored
end
return results
