-- Clean stop: the instance's heartbeat and its place in the known ids go together.
-- KEYS[1] heartbeat hash, KEYS[2] known ids sorted set; ARGV[1] id
redis.call('DEL', KEYS[1])
return redis.call('ZREM', KEYS[2], ARGV[1])
