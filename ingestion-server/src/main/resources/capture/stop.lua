-- Stops one device's capture: its instance hears 'capture <imei>' (InstanceEvent.CAPTURE) and stops
-- at once; the stream is kept for the retention from now.
-- Returns 1 when a capture was active, else 0.
-- KEYS[1] capture:active:{imei}, KEYS[2] captures:active, KEYS[3] capture:{imei}, KEYS[4] connections registry
-- ARGV[1] imei, ARGV[2] retention (ms), ARGV[3] events prefix, ARGV[4] the capture event's verb
local active = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if active == 1 then
  redis.call('PEXPIRE', KEYS[3], ARGV[2])
  local owner = redis.call('HGET', KEYS[4], ARGV[1])
  if owner then
    redis.call('PUBLISH', ARGV[3] .. owner, ARGV[4] .. ' ' .. ARGV[1])
  end
end
return active
