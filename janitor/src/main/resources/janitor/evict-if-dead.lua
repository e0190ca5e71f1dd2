-- Evicts registry entries of one instance believed dead, atomically per call: only while its
-- heartbeat is still missing, and only the fields that still name it. A device that re-registered
-- on a live instance between the scan and this call keeps its entry; an instance whose heartbeat
-- came back keeps all of them. Returns the number of fields really removed (so racing janitors
-- never double-count). With ARGV[2] = "1" (dry run) it only counts.
-- KEYS[1] registry hash, KEYS[2] heartbeat key of the instance
-- ARGV[1] instance id, ARGV[2] dry run flag, ARGV[3..] IMEIs seen owned by it
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 0
end
local removed = 0
for i = 3, #ARGV do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[1] then
    if ARGV[2] ~= '1' then
      redis.call('HDEL', KEYS[1], ARGV[i])
    end
    removed = removed + 1
  end
end
return removed
