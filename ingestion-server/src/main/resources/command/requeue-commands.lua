-- Hands sent-but-unanswered commands back to the head of their device queues: the one of a device
-- whose connection ended before the reply (mode 'device'), one page of a dead instance's
-- (mode 'dead'; then only while its heartbeat is still missing; the janitor walks the in-flight
-- hash with HSCAN and passes each page's IMEIs, so no call runs over the whole hash), or the
-- entries of one page of a live instance's own in-flight hash that no send of its own will end
-- (mode 'stale': the device is registered to another instance now, or the command has been in
-- flight longer than the reply timeout and a margin, e.g. after its 'finish' write failed; each
-- entry only while it is still the very send the caller saw, so a finish or a new send in between
-- wins). Delivery is
-- at least once: the device may have received the command before the connection or the instance
-- died. A command already sent as often as its 'max_attempts' allows is not queued again but
-- fails as 'attempts' into the dead-letter set (a command that makes the device drop before it
-- replies, such as a reset, would otherwise be sent at every reconnect until its TTL). The
-- instance holding each device now is woken. Returns {handed back, failed}.
-- KEYS[1] in-flight hash of the instance, KEYS[2] in-flight instances set, KEYS[3] its heartbeat
-- key, KEYS[4] queued devices sorted set, KEYS[5] connections registry hash, KEYS[6] commands
-- dead-letter sorted set
-- ARGV[1] 'device' or 'dead', ARGV[2] instance id, ARGV[3] now (ms), ARGV[4] queue key prefix,
-- ARGV[5] command key prefix, ARGV[6] events channel prefix, ARGV[7] dead letters kept,
-- ARGV[8] retention of finished commands (ms), ARGV[9] the reply event's verb (InstanceEvent.REPLY),
-- ARGV[10] the command event's verb (InstanceEvent.COMMAND), then for 'device': ARGV[11] the IMEI
-- and ARGV[12] the in-flight entry ('id:attempt') of the send that ended (a newer send is left
-- alone); for 'dead': ARGV[11..] IMEIs of one page of the in-flight hash; for 'stale': ARGV[11]
-- the longest a command may be in flight (ms, from its 'sent_at'), ARGV[12..] IMEI, in-flight
-- entry, IMEI, in-flight entry, ... as the caller read them
-- appendHistory, markFailed, deadLetter, trimDeadLetters, attemptsUsedUp, failCommand:
-- command/command-lib.lua, loaded in front.
local entries = {}
local reason = 'no reply before the connection ended'
if ARGV[1] == 'stale' then
  reason = 'left in flight'
  local now, limit = tonumber(ARGV[3]), tonumber(ARGV[11])
  for i = 12, #ARGV - 1, 2 do
    local imei, token = ARGV[i], ARGV[i + 1]
    if redis.call('HGET', KEYS[1], imei) == token then
      local owner = redis.call('HGET', KEYS[5], imei)
      local sentAt = redis.call('HGET', ARGV[5] .. string.match(token, '^[^:]+'), 'sent_at')
      local moved = owner and owner ~= ARGV[2]
      local overdue = (not sentAt) or now - tonumber(sentAt) > limit
      if moved or overdue then
        entries[#entries + 1] = imei
        entries[#entries + 1] = token
      end
    end
  end
elseif ARGV[1] == 'dead' then
  if redis.call('EXISTS', KEYS[3]) == 1 then
    return {0, 0}
  end
  for i = 11, #ARGV do
    local entry = redis.call('HGET', KEYS[1], ARGV[i])
    if entry then
      entries[#entries + 1] = ARGV[i]
      entries[#entries + 1] = entry
    end
  end
else
  local entry = redis.call('HGET', KEYS[1], ARGV[11])
  if entry and entry == ARGV[12] then
    entries = {ARGV[11], entry}
  end
end
local handed, failed = 0, 0
for i = 1, #entries, 2 do
  local imei, id = entries[i], string.match(entries[i + 1], '^[^:]+')
  redis.call('HDEL', KEYS[1], imei)
  local key = ARGV[5] .. id
  local c = redis.call('HMGET', key, 'status', 'history')
  if c[1] == 'sent' and attemptsUsedUp(key) then
    failCommand(key, id, c[2], 'attempts', ARGV[3], KEYS[6], ARGV[7], ARGV[8], ARGV[6], ARGV[9])
    failed = failed + 1
  elseif c[1] == 'sent' then
    redis.call('HSET', key, 'status', 'queued', 'updated_at', ARGV[3], 'history',
      appendHistory(c[2], {status = 'queued', reason = reason, at = ARGV[3]}))
    redis.call('LPUSH', ARGV[4] .. imei, id)
    redis.call('ZADD', KEYS[4], 'NX', ARGV[3], imei)
    local owner = redis.call('HGET', KEYS[5], imei)
    if owner then
      redis.call('PUBLISH', ARGV[6] .. owner, ARGV[10] .. ' ' .. imei)
    end
    handed = handed + 1
  end
end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[2])
end
return {handed, failed}
