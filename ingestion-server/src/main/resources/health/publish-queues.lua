-- Writes the queue health into one hash for tools without HTTP, at most once per period across
-- all instances: only when the stored computedAt is at least a period older than this one's.
-- The hash expires after a few periods, so a hash left by a stopped cluster does not look current.
-- Returns 1 when written, 0 when another instance wrote within the period.
-- KEYS[1] health:queues
-- ARGV[1] computedAt (ms), ARGV[2] period (ms), ARGV[3] time to live (ms), ARGV[4..] field, value, ...
local stored = tonumber(redis.call('HGET', KEYS[1], 'computedAt'))
if stored and tonumber(ARGV[1]) - stored < tonumber(ARGV[2]) then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'computedAt', ARGV[1], unpack(ARGV, 4))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
