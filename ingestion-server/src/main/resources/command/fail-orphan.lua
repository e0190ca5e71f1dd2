-- A command hash that nothing will ever deliver or finish: queued but in no queue, or sent but
-- in no instance's in-flight place (its queue or in-flight entry was lost, e.g. deleted by
-- hand). It fails with reason 'orphaned' into the dead-letter set rather than vanishing.
-- Returns 1 if it was (or, dry run, would be) failed.
-- KEYS[1] command hash, KEYS[2] its device queue, KEYS[3] the in-flight hash of its sending
-- instance ('' key name when it has none), KEYS[4] commands dead-letter set
-- ARGV[1] id, ARGV[2] now (ms), ARGV[3] retention (ms), ARGV[4] dead letters kept, ARGV[5] '1' dry run
-- markFailed, deadLetter and trimDeadLetters: command/command-lib.lua, loaded in front.
local c = redis.call('HMGET', KEYS[1], 'status', 'imei', 'history')
if c[1] == 'queued' then
  if redis.call('LPOS', KEYS[2], ARGV[1]) then
    return 0
  end
elseif c[1] == 'sent' then
  local entry = redis.call('HGET', KEYS[3], c[2])
  if entry and string.match(entry, '^[^:]+') == ARGV[1] then
    return 0
  end
else
  return 0
end
if ARGV[5] == '1' then
  return 1
end
markFailed(KEYS[1], c[3], 'orphaned', ARGV[2])
deadLetter(KEYS[1], KEYS[4], ARGV[2])
trimDeadLetters(KEYS[4], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
