-- Starts (or changes the end of) one device's capture, unless MAX_CAPTURES others are active; the
-- instance holding the device hears 'capture <imei>' (InstanceEvent.CAPTURE) and starts at once.
-- Returns {1, owner instance or ''} when started, {0, ''} when MAX_CAPTURES captures are active.
-- KEYS[1] capture:active:{imei} (hash: until, keep = until + retention, bytes),
-- KEYS[2] captures:active (zset imei -> until),
-- KEYS[3] capture:{imei} (stream), KEYS[4] connections registry hash
-- ARGV[1] imei, ARGV[2] now (ms), ARGV[3] until (ms), ARGV[4] max captures, ARGV[5] until + retention (ms),
-- ARGV[6] events prefix, ARGV[7] the capture event's verb
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then
  return {0, ''}
end
-- A capture that is still active keeps its byte count: a new end does not reset its cap.
redis.call('HSET', KEYS[1], 'until', ARGV[3], 'keep', ARGV[5])
redis.call('HINCRBY', KEYS[1], 'bytes', 0)
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
-- An earlier capture's stream is kept as long as this one's.
redis.call('PEXPIREAT', KEYS[3], ARGV[5])
local owner = redis.call('HGET', KEYS[4], ARGV[1])
if owner then
  redis.call('PUBLISH', ARGV[6] .. owner, ARGV[7] .. ' ' .. ARGV[1])
  return {1, owner}
end
return {1, ''}
