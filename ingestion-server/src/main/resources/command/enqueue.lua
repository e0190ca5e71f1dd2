-- Stores a new command and queues it for its device; wakes the instance holding the device (if
-- any) on its events channel. Returns the queue length, or -1 when the device's queue is full.
-- KEYS[1] command hash, KEYS[2] device queue list, KEYS[3] queued devices sorted set,
-- KEYS[4] connections registry hash, KEYS[5] the device's command index (sorted set)
-- ARGV[1] id, ARGV[2] imei, ARGV[3] codec, ARGV[4] command text, ARGV[5] now (ms),
-- ARGV[6] expires at (ms), ARGV[7] origin instance, ARGV[8] max queue length,
-- ARGV[9] events channel prefix, ARGV[10] sends allowed (max_attempts), ARGV[11] the command
-- event's verb (InstanceEvent.COMMAND), ARGV[12] the template that built the text ('' for none),
-- ARGV[13] ids the index keeps, ARGV[14] how long the index lives at least from now (ms)
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[8]) then
  return -1
end
local history = cjson.encode({{status = 'queued', at = ARGV[5]}})
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'imei', ARGV[2], 'codec', ARGV[3], 'command', ARGV[4],
  'status', 'queued', 'created_at', ARGV[5], 'updated_at', ARGV[5], 'expires_at', ARGV[6],
  'attempts', '0', 'max_attempts', ARGV[10], 'origin', ARGV[7], 'history', history)
if ARGV[12] ~= '' then
  redis.call('HSET', KEYS[1], 'template', ARGV[12])
end
local length = redis.call('RPUSH', KEYS[2], ARGV[1])
-- The device's commands by creation, queued, in flight and finished alike (GET
-- /api/v1/devices/{imei}/commands): the newest ARGV[13] kept, the key as long as its newest
-- command can live (its TTL, a reply wait and COMMAND_RETENTION), never shortened.
redis.call('ZADD', KEYS[5], ARGV[5], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[5], 0, -(tonumber(ARGV[13]) + 1))
if redis.call('PTTL', KEYS[5]) < tonumber(ARGV[14]) then
  redis.call('PEXPIRE', KEYS[5], ARGV[14])
end
redis.call('ZADD', KEYS[3], 'NX', ARGV[5], ARGV[2])
local owner = redis.call('HGET', KEYS[4], ARGV[2])
if owner then
  redis.call('PUBLISH', ARGV[9] .. owner, ARGV[11] .. ' ' .. ARGV[2])
end
return length
