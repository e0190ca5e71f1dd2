-- Releases a partition lease only if it is still this replica's: one it lost may be another's now.
-- KEYS[1] the lease key, ARGV[1] the consumer name. 1 released, 0 not mine.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
