-- An operator asks one live instance to drain and exit: sets its shutdown marker (which its next
-- heartbeat renewal reads) and tells it on its events channel, so it need not wait for that
-- renewal. Refuses (returns 0) when the instance has no heartbeat: nothing would read the marker.
-- KEYS[1] heartbeat hash, KEYS[2] shutdown marker
-- ARGV[1] marker value (who asked, when), ARGV[2] marker TTL (ms), ARGV[3] events channel,
-- ARGV[4] instance id, ARGV[5] the shutdown event's verb (InstanceEvent.SHUTDOWN)
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[5] .. ' ' .. ARGV[4])
return 1
