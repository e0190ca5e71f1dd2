-- Clean stop: the instance's heartbeat, its place in the known ids and a shutdown marker that
-- asked for this stop go together.
-- KEYS[1] heartbeat hash, KEYS[2] known ids sorted set, KEYS[3] shutdown marker; ARGV[1] id
redis.call('DEL', KEYS[1], KEYS[3])
return redis.call('ZREM', KEYS[2], ARGV[1])
