-- A device logged in here: this instance owns it now (last login wins: the newest connection is
-- the live one). The previous owner, if another instance, is told on its events channel so it
-- closes its stale connection. Returns the previous owner or false.
-- KEYS[1] registry hash, KEYS[2] device info hash
-- ARGV[1] imei, ARGV[2] instance id, ARGV[3] events channel prefix, ARGV[4] now (ms),
-- ARGV[5] remote address, ARGV[6] device info TTL (ms), ARGV[7] session (this connection's id),
-- ARGV[8] device info TTL (ms) while the device has stored no record (no last_record_at): anyone can
-- log in with a made-up IMEI in open mode, and that must not leave a key for days. The first packet
-- with records gives it the full TTL (append-packets.lua). ARGV[9] the takeover event's verb
-- (InstanceEvent.TAKEOVER).
local previous = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], 'instance', ARGV[2], 'connected_at', ARGV[4], 'remote', ARGV[5], 'session', ARGV[7])
if redis.call('HEXISTS', KEYS[2], 'last_record_at') == 1 then
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
else
  redis.call('PEXPIRE', KEYS[2], ARGV[8])
end
if previous and previous ~= ARGV[2] then
  redis.call('PUBLISH', ARGV[3] .. previous, ARGV[9] .. ' ' .. ARGV[1])
end
return previous
