-- Starts the device info hash's TTL again and sets its last record time, if the hash exists (a TCP
-- login made it; it is never created here, it would lack the login's fields).
-- KEYS[1] device info hash; ARGV[1] TTL (ms), ARGV[2] newest record time (ms)
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'last_record_at', ARGV[2])
end
return 0
