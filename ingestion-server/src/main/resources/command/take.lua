-- The reliable-queue step: moves the device's next command atomically from its queue into this
-- instance's in-flight hash (one command in flight per device, since replies carry no id), marks
-- it sent and counts the attempt. On the way, commands whose TTL passed while queued fail as
-- 'expired', and commands already sent as often as their 'max_attempts' allows fail as
-- 'attempts', both into the dead-letter set. The caller has no command of this device in flight,
-- so an in-flight entry of this instance for it is a leftover (a finish or a hand-back that did
-- not reach Redis): that command goes back to the head of the queue first. The in-flight entry is
-- 'id:attempt', so a late finish or hand-back of an earlier send of the same command changes
-- nothing. An instance told to stop (its shutdown marker is set) takes nothing: it starts no new
-- send between the marker and its next heartbeat renewal, which is what reads the marker; the
-- queue is left as it is for the replica the device goes to. With HEARTBEAT_DELETE_MEANS=shutdown
-- a missing heartbeat is such an order too (the operator's DEL), read here for the same reason. Returns {id, codec, text, attempt},
-- or false when the queue is empty or the instance is stopping.
-- KEYS[1] device queue list, KEYS[2] this instance's in-flight hash, KEYS[3] in-flight instances
-- set, KEYS[4] queued devices sorted set, KEYS[5] commands dead-letter sorted set, KEYS[6] this
-- instance's shutdown marker, KEYS[7] this instance's heartbeat
-- ARGV[1] imei, ARGV[2] instance id, ARGV[3] now (ms), ARGV[4] command key prefix,
-- ARGV[5] dead letters kept, ARGV[6] retention of finished commands (ms), ARGV[7] events prefix,
-- ARGV[8] the reply event's verb (InstanceEvent.REPLY), ARGV[9] '1' when a missing heartbeat means
-- stop (HEARTBEAT_DELETE_MEANS=shutdown)
-- appendHistory, markFailed, deadLetter, trimDeadLetters, attemptsUsedUp, failCommand:
-- command/command-lib.lua, loaded in front.
if redis.call('EXISTS', KEYS[6]) == 1 or (ARGV[9] == '1' and redis.call('EXISTS', KEYS[7]) == 0) then
  return false
end
local current = redis.call('HGET', KEYS[2], ARGV[1])
if current then
  redis.call('HDEL', KEYS[2], ARGV[1])
  local leftover = string.match(current, '^[^:]+')
  local c = redis.call('HMGET', ARGV[4] .. leftover, 'status', 'history')
  if c[1] == 'sent' then
    redis.call('HSET', ARGV[4] .. leftover, 'status', 'queued', 'updated_at', ARGV[3], 'history',
      appendHistory(c[2], {status = 'queued', reason = 'left in flight', at = ARGV[3]}))
    redis.call('LPUSH', KEYS[1], leftover)
  end
end
while true do
  local id = redis.call('LPOP', KEYS[1])
  if not id then
    redis.call('ZREM', KEYS[4], ARGV[1])
    return false
  end
  local key = ARGV[4] .. id
  local c = redis.call('HMGET', key, 'status', 'expires_at', 'codec', 'command', 'history')
  if c[1] == 'queued' then
    if tonumber(c[2]) < tonumber(ARGV[3]) then
      markFailed(key, c[5], 'expired', ARGV[3])
      deadLetter(key, KEYS[5], ARGV[3])
      trimDeadLetters(KEYS[5], ARGV[5])
      redis.call('PEXPIRE', key, ARGV[6])
    elseif attemptsUsedUp(key) then
      failCommand(key, id, c[5], 'attempts', ARGV[3], KEYS[5], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
    else
      redis.call('HSET', key, 'status', 'sent', 'sent_at', ARGV[3], 'updated_at', ARGV[3],
        'instance', ARGV[2], 'history',
        appendHistory(c[5], {status = 'sent', at = ARGV[3], instance = ARGV[2]}))
      local attempt = redis.call('HINCRBY', key, 'attempts', 1)
      redis.call('HSET', KEYS[2], ARGV[1], id .. ':' .. attempt)
      redis.call('SADD', KEYS[3], ARGV[2])
      if redis.call('LLEN', KEYS[1]) == 0 then
        redis.call('ZREM', KEYS[4], ARGV[1])
      end
      return {id, c[3], c[4], attempt}
    end
  end
end
