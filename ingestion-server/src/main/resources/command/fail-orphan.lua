-- A command hash that nothing will ever deliver or finish: queued but in no queue, or sent but
-- in no instance's in-flight place (its queue or in-flight entry was lost, e.g. deleted by
-- hand). It fails with reason 'orphaned' into the dead-letter set rather than vanishing.
-- Everything the verdict rests on (the key's TTL, the hash's status, device and sending
-- instance, the queue and the in-flight entry) is read here, in one atomic step: read outside,
-- a command taken (queued -> sent) between the read and this script would be failed while in
-- flight. Returns 1 if it was (or, dry run, would be) failed.
-- KEYS[1] command hash, KEYS[2] commands dead-letter set
-- ARGV[1] now (ms), ARGV[2] retention (ms), ARGV[3] dead letters kept, ARGV[4] '1' dry run,
-- ARGV[5] device queue key prefix, ARGV[6] in-flight hash key prefix
-- markFailed, deadLetter and trimDeadLetters: command/command-lib.lua, loaded in front.
-- A hash with a TTL has finished (retention) or is going: not an orphan.
if redis.call('PTTL', KEYS[1]) ~= -1 then
  return 0
end
local c = redis.call('HMGET', KEYS[1], 'id', 'imei', 'status', 'instance', 'history')
local id, imei, status, instance = c[1], c[2], c[3], c[4]
if not id or not imei then
  return 0
end
if status == 'queued' then
  if redis.call('LPOS', ARGV[5] .. imei, id) then
    return 0
  end
elseif status == 'sent' then
  if instance then
    local entry = redis.call('HGET', ARGV[6] .. instance, imei)
    if entry and string.match(entry, '^[^:]+') == id then
      return 0
    end
  end
else
  return 0
end
if ARGV[4] == '1' then
  return 1
end
markFailed(KEYS[1], c[5], 'orphaned', ARGV[1])
deadLetter(KEYS[1], KEYS[2], ARGV[1])
trimDeadLetters(KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
