-- Clean stop: the instance's heartbeat, its place in the known ids and a shutdown marker that
-- asked for this stop go together. Returns what it removed, {heartbeat, ids, marker} (each 0 or
-- 1), for the stop log.
-- KEYS[1] heartbeat hash, KEYS[2] known ids sorted set, KEYS[3] shutdown marker; ARGV[1] id
local heartbeat = redis.call('DEL', KEYS[1])
local marker = redis.call('DEL', KEYS[3])
return {heartbeat, redis.call('ZREM', KEYS[2], ARGV[1]), marker}
