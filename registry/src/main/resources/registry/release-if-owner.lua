-- The connection ended: remove the entry only if it still names this instance, because the
-- device may already be connected elsewhere. Returns 1 if removed.
-- KEYS[1] registry hash; ARGV[1] imei, ARGV[2] instance id
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
