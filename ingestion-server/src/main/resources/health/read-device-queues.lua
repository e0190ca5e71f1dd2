-- Reads, for a page of devices with queued commands, what queue health needs, in one call instead
-- of five round trips per device (read-only): whether the device is online (its registry entry),
-- its queue's length and head, when the head entered the queue (its updated_at while it is
-- 'queued'), and whether a command of the device is in flight on the instance that holds it.
-- Returns five strings per device: owner ('' offline), length, head id (''), queued at (''),
-- in flight ('1' or '0').
-- KEYS[1] connections registry hash
-- ARGV[1] device queue prefix, ARGV[2] command key prefix, ARGV[3] in-flight hash prefix, ARGV[4..] IMEIs
local out = {}
for i = 4, #ARGV do
  local imei = ARGV[i]
  local owner = redis.call('HGET', KEYS[1], imei)
  local queue = ARGV[1] .. imei
  local head = redis.call('LINDEX', queue, 0)
  local queuedAt = ''
  if head then
    local h = redis.call('HMGET', ARGV[2] .. head, 'status', 'updated_at')
    if h[1] == 'queued' and h[2] then
      queuedAt = h[2]
    end
  end
  local moving = '0'
  if owner and redis.call('HEXISTS', ARGV[3] .. owner, imei) == 1 then
    moving = '1'
  end
  out[#out + 1] = owner or ''
  out[#out + 1] = tostring(redis.call('LLEN', queue))
  out[#out + 1] = head or ''
  out[#out + 1] = queuedAt
  out[#out + 1] = moving
end
return out
