-- Adds a dead letter unless the stream already holds its cap: trimming would drop an undrained one,
-- a record lost, so the bridge holds the entry (unacknowledged) until the dead letters are drained.
-- KEYS[1] dlq:bridge:<group>, ARGV[1] the cap, ARGV[2..] field, value, ... The new id, or nil when full.
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[1]) then
  return false
end
return redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
