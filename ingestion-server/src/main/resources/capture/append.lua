-- Appends one entry to a device's capture stream while its capture is active. The bytes are counted
-- per capture, whichever instances wrote them: the entry that would go past the cap is not stored;
-- an entry saying so is, the capture ends and the stream is kept for the retention from now.
-- Returns 1 stored, 0 no active capture, -1 stopped by the cap.
-- KEYS[1] capture:active:{imei}, KEYS[2] capture:{imei}, KEYS[3] captures:active
-- ARGV[1] imei, ARGV[2] at (ms), ARGV[3] dir, ARGV[4] hex, ARGV[5] outcome, ARGV[6] the entry's cost,
-- ARGV[7] max bytes, ARGV[8] stream MAXLEN, ARGV[9] retention (ms)
local keep = redis.call('HGET', KEYS[1], 'keep')
if not keep then
  return 0
end
local used = redis.call('HINCRBY', KEYS[1], 'bytes', ARGV[6])
if used > tonumber(ARGV[7]) then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], '*', 'at', ARGV[2], 'dir', ARGV[3], 'hex', '',
    'outcome', 'capture stopped: CAPTURE_MAX_BYTES (' .. ARGV[7] .. ') reached')
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[9])
  return -1
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[8], '*', 'at', ARGV[2], 'dir', ARGV[3], 'hex', ARGV[4],
  'outcome', ARGV[5])
-- Set on each entry: the first one creates the stream.
redis.call('PEXPIREAT', KEYS[2], keep)
return 1
