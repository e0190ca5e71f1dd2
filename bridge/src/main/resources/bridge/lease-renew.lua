-- Renews a partition lease only while it is still this replica's (bridge README, "Partition leases").
-- KEYS[1] the lease key, ARGV[1] the consumer name, ARGV[2] the ttl in ms. 1 renewed, 0 not mine.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
