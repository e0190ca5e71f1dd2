-- The connection ended: remove the entry only if it still names this instance, because the
-- device may already be connected elsewhere, and only if it is still this connection's claim
-- (the device info's 'session'): a newer connection of the same device on this same instance
-- has the same instance id, and a late release must not remove its claim. Returns 1 if removed.
-- KEYS[1] registry hash, KEYS[2] device info hash; ARGV[1] imei, ARGV[2] instance id, ARGV[3] session
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then
  return 0
end
local session = redis.call('HGET', KEYS[2], 'session')
if session and ARGV[3] ~= '' and session ~= ARGV[3] then
  return 0
end
return redis.call('HDEL', KEYS[1], ARGV[1])
