-- Announces a new instance: refuses (returns 0) if its heartbeat key exists, since then something
-- else writes in this keyspace; else writes the heartbeat with its TTL and records the id in the
-- set of known ids. The set is bounded by dropping the oldest ids whose heartbeat is gone; live
-- ids are never dropped (they are bounded by the real number of instances). A shutdown marker of
-- the new id can only be a leftover (a restore brought instance:seq back, so an id is handed out
-- again; nobody can have meant an id that did not exist yet): it is removed.
-- KEYS[1] heartbeat hash, KEYS[2] known ids sorted set, KEYS[3] shutdown marker of the id
-- ARGV[1] TTL (ms), ARGV[2] id, ARGV[3] now (ms), ARGV[4] max known ids,
-- ARGV[5] heartbeat key prefix, ARGV[6..] field, value, ...
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('DEL', KEYS[3])
local fields = {}
for i = 6, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if excess > 0 then
  -- Look at a bounded window of the oldest ids, so the script stays short.
  local oldest = redis.call('ZRANGE', KEYS[2], 0, excess + 99)
  for _, id in ipairs(oldest) do
    if excess <= 0 then
      break
    end
    if redis.call('EXISTS', ARGV[5] .. id) == 0 then
      redis.call('ZREM', KEYS[2], id)
      excess = excess - 1
    end
  end
end
return 1
