-- Sets two keys of one slot to ARGV[1]; answers how many it set.
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[1])
return 2
