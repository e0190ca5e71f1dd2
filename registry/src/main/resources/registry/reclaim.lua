-- After this instance lost its heartbeat and took a new id: keep a device only where nobody else
-- took it meanwhile (the entry is absent or still names the old id). Returns 1 if re-claimed.
-- KEYS[1] registry hash, KEYS[2] device info hash; ARGV[1] imei, ARGV[2] old id, ARGV[3] new id
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current == ARGV[3] then
  -- It logged in again here, under the new id, between the id change and this call.
  return 1
end
if (not current) or current == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('HSET', KEYS[2], 'instance', ARGV[3])
  end
  return 1
end
return 0
