-- Appends every record of one AVL packet to the telemetry stream in one round trip. A script runs
-- without interleaving, so a packet's entries stay together, and a failure before the script runs
-- stores none of them (only a Redis error inside the script, such as OOM, could leave a part).
-- KEYS[1]  telemetry stream
-- KEYS[2]  device info hash: its last record time is refreshed when the hash exists (TCP logins
--          create it; it is left alone otherwise, so it never outlives its TTL)
-- ARGV[1]  approximate MAXLEN ("0" = no cap)
-- ARGV[2]  newest record time of the packet (ms)
-- ARGV[3]  number of records, then per record: number of strings n, then n field/value strings
local maxlen = tonumber(ARGV[1])
local records = tonumber(ARGV[3])
local i = 4
for r = 1, records do
  local n = tonumber(ARGV[i])
  local args
  if maxlen > 0 then
    args = {'XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*'}
  else
    args = {'XADD', KEYS[1], '*'}
  end
  for k = 1, n do
    args[#args + 1] = ARGV[i + k]
  end
  i = i + n + 1
  redis.call(unpack(args))
end
if records > 0 and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'last_record_at', ARGV[2])
end
return records
