-- Ends a sent command: 'replied' with the device's reply, or 'failed' with a reason (timeout,
-- nack). Clears the in-flight entry, keeps the command for the retention time, puts failures in
-- the dead-letter set with their full context, and tells the instance that accepted the command
-- (a waiting HTTP request may be there). Returns 1, or 0 when the command was not in flight
-- (already finished, or handed back to its queue meanwhile).
-- KEYS[1] command hash, KEYS[2] the sending instance's in-flight hash, KEYS[3] commands
-- dead-letter sorted set
-- ARGV[1] id, ARGV[2] imei, ARGV[3] 'replied' | 'failed', ARGV[4] reason, ARGV[5] reply text,
-- ARGV[6] now (ms), ARGV[7] dead letters kept, ARGV[8] retention (ms), ARGV[9] events prefix,
-- ARGV[10] the in-flight entry of this send ('id:attempt'), ARGV[11] the reply event's verb
-- (InstanceEvent.REPLY)
-- appendHistory, deadLetter and trimDeadLetters: command/command-lib.lua, loaded in front.
if redis.call('HGET', KEYS[2], ARGV[2]) ~= ARGV[10] then
  -- Not this send's entry any more (handed back, or sent again): it belongs to someone else now.
  return 0
end
redis.call('HDEL', KEYS[2], ARGV[2])
local c = redis.call('HMGET', KEYS[1], 'status', 'history', 'origin')
if c[1] ~= 'sent' then
  return 0
end
local step = {status = ARGV[3], at = ARGV[6]}
if ARGV[4] ~= '' then
  step.reason = ARGV[4]
end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'updated_at', ARGV[6], 'history', appendHistory(c[2], step))
if ARGV[3] == 'replied' then
  redis.call('HSET', KEYS[1], 'reply', ARGV[5], 'replied_at', ARGV[6])
else
  redis.call('HSET', KEYS[1], 'reason', ARGV[4])
  if ARGV[5] ~= '' then
    redis.call('HSET', KEYS[1], 'reply', ARGV[5])
  end
  deadLetter(KEYS[1], KEYS[3], ARGV[6])
  trimDeadLetters(KEYS[3], ARGV[7])
end
redis.call('PEXPIRE', KEYS[1], ARGV[8])
if c[3] then
  redis.call('PUBLISH', ARGV[9] .. c[3], ARGV[11] .. ' ' .. ARGV[1])
end
return 1
