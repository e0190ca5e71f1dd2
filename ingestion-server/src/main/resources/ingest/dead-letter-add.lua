-- Adds one dead letter and trims the set to its cap, oldest first, as one step.
-- KEYS[1] sorted set; ARGV[1] score (ms); ARGV[2] member (JSON); ARGV[3] max entries
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if excess > 0 then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
end
return excess
