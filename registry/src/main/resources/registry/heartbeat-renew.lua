-- Renews a heartbeat only if it still holds the 'renewed' value this instance wrote last time
-- (distrust the data: a key rewritten by someone else is not ours to extend).
-- Returns 'ok', 'missing' (no key: deleted or expired) or 'foreign' (not our last write).
-- KEYS[1] heartbeat hash; ARGV[1] our last 'renewed', ARGV[2] new 'renewed', ARGV[3] TTL (ms),
-- ARGV[4..] more field, value pairs to refresh
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 'missing'
end
if redis.call('HGET', KEYS[1], 'renewed') ~= ARGV[1] then
  return 'foreign'
end
local fields = {'renewed', ARGV[2]}
for i = 4, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 'ok'
