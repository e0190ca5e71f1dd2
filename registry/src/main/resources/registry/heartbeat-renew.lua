-- Renews a heartbeat only if it still holds a 'renewed' value this instance wrote (distrust the
-- data: a key rewritten by someone else is not ours to extend). Our values are the last confirmed
-- one and those of renewals that got no answer in time but may still have run in Redis.
-- An operator's shutdown marker wins over everything: the instance drains and exits.
-- Returns 'ok', 'shutdown' (the marker is set), 'missing' (no key: expired, deleted, or lost with
-- a restore or an eviction) or 'foreign' (not a value we wrote).
-- KEYS[1] heartbeat hash, KEYS[2] shutdown marker
-- ARGV[1] new 'renewed', ARGV[2] TTL (ms), ARGV[3] n, ARGV[4 .. 3+n] our values,
-- ARGV[4+n ..] more field, value pairs to refresh
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 'shutdown'
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 'missing'
end
local current = redis.call('HGET', KEYS[1], 'renewed')
local n = tonumber(ARGV[3])
local ours = false
for i = 4, 3 + n do
  if current == ARGV[i] then
    ours = true
  end
end
if not ours then
  return 'foreign'
end
local fields = {'renewed', ARGV[1]}
for i = 4 + n, #ARGV do
  fields[#fields + 1] = ARGV[i]
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 'ok'
