-- Fails the commands of one device whose TTL passed while they waited in its queue (the device
-- stayed offline), into the dead-letter set with reason 'expired'. Looks at most ARGV[4] queued
-- commands, so the script stays short. Returns the number expired.
-- KEYS[1] device queue list, KEYS[2] queued devices sorted set, KEYS[3] commands dead-letter set
-- ARGV[1] imei, ARGV[2] now (ms), ARGV[3] command key prefix, ARGV[4] max to look at,
-- ARGV[5] dead letters kept, ARGV[6] retention (ms), ARGV[7] '1' for a dry run (count only)
-- markFailed, deadLetter and trimDeadLetters: command/command-lib.lua, loaded in front.
local ids = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[4]) - 1)
local expired = 0
for _, id in ipairs(ids) do
  local key = ARGV[3] .. id
  local c = redis.call('HMGET', key, 'status', 'expires_at', 'history')
  if c[1] == 'queued' and tonumber(c[2]) < tonumber(ARGV[2]) and ARGV[7] == '1' then
    expired = expired + 1
  elseif c[1] == 'queued' and tonumber(c[2]) < tonumber(ARGV[2]) then
    redis.call('LREM', KEYS[1], 1, id)
    markFailed(key, c[3], 'expired', ARGV[2])
    deadLetter(key, KEYS[3], ARGV[2])
    redis.call('PEXPIRE', key, ARGV[6])
    expired = expired + 1
  elseif not c[1] and ARGV[7] ~= '1' then
    -- The command hash is gone (purged): its id has nothing left to deliver.
    redis.call('LREM', KEYS[1], 1, id)
  end
end
if ARGV[7] == '1' then
  return expired
end
trimDeadLetters(KEYS[3], ARGV[5])
if redis.call('LLEN', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
end
return expired
