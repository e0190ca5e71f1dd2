-- Hands sent-but-unanswered commands back to the head of their device queues: those of one device
-- whose connection ended before the reply (ARGV[1] = its IMEI), or all of a dead instance's
-- (ARGV[1] = ''; then only while its heartbeat is still missing). Delivery is at least once: the
-- device may have received the command before the connection or the instance died. The instance
-- holding each device now is woken. Returns the number of commands handed back.
-- KEYS[1] in-flight hash of the instance, KEYS[2] in-flight instances set, KEYS[3] its heartbeat
-- key, KEYS[4] queued devices sorted set, KEYS[5] connections registry hash
-- ARGV[1] imei or '', ARGV[2] instance id, ARGV[3] now (ms), ARGV[4] queue key prefix,
-- ARGV[5] command key prefix, ARGV[6] events channel prefix, ARGV[7] with an IMEI: the in-flight
-- entry ('id:attempt') of the send that ended; a newer send of the device is left alone
local entries
if ARGV[1] == '' then
  if redis.call('EXISTS', KEYS[3]) == 1 then
    return 0
  end
  entries = redis.call('HGETALL', KEYS[1])
else
  local entry = redis.call('HGET', KEYS[1], ARGV[1])
  entries = (entry and entry == ARGV[7]) and {ARGV[1], entry} or {}
end
local handed = 0
for i = 1, #entries, 2 do
  local imei, id = entries[i], string.match(entries[i + 1], '^[^:]+')
  redis.call('HDEL', KEYS[1], imei)
  local key = ARGV[5] .. id
  local c = redis.call('HMGET', key, 'status', 'history')
  if c[1] == 'sent' then
    local history = cjson.decode(c[2])
    history[#history + 1] = {status = 'queued', reason = 'no reply before the connection ended', at = ARGV[3]}
    redis.call('HSET', key, 'status', 'queued', 'updated_at', ARGV[3], 'history', cjson.encode(history))
    redis.call('LPUSH', ARGV[4] .. imei, id)
    redis.call('ZADD', KEYS[4], 'NX', ARGV[3], imei)
    local owner = redis.call('HGET', KEYS[5], imei)
    if owner then
      redis.call('PUBLISH', ARGV[6] .. owner, 'command ' .. imei)
    end
    handed = handed + 1
  end
end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[2])
end
return handed
