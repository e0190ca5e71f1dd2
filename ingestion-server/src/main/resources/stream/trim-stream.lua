-- Trims the telemetry stream to what its consumer groups still need, and reports what it saw.
-- One script, so that reading the groups' positions and trimming cannot interleave with a group
-- being created or a consumer reading: an entry a group has not been delivered (or, in
-- 'acknowledged' mode, has not acknowledged) is never removed.
--   no group:  XTRIM MAXLEN ~ ARGV[1] (0 = keep everything): a development set-up with nobody
--              reading keeps the newest entries, as XADD ... MAXLEN ~ did before.
--   groups:    XTRIM MINID ~ floor, where floor is the slowest group's oldest entry still needed:
--              its oldest pending entry ('acknowledged') or the entry after its last delivered one,
--              and never later than ARGV[4] ms ago (a replay window, by Redis's clock, which made
--              the ids). '~' removes whole macro nodes only, so it may keep a few entries more.
-- KEYS[1] the stream
-- ARGV[1] count cap when no group exists, ARGV[2] 'acknowledged' or 'delivered',
-- ARGV[3] most entries removed by one call (bounds the time Redis spends in it), ARGV[4] minimum
-- age in ms of a trimmed entry while groups exist (0 = none)
-- Returns {length after trimming, entries trimmed, group count, first id, last id, Redis's
--   used_memory, its maxmemory (0 = none), then per group:
--   name, consumers, pending, last delivered id, oldest pending id ('' = none),
--   lag (-1 when Redis does not report it: before 7.0, or when it cannot compute it),
--   id of the oldest entry not yet delivered to it ('' = none)}
local stream = KEYS[1]
local maxlen = tonumber(ARGV[1])
local acknowledged = ARGV[2] == 'acknowledged'
local limit = ARGV[3]
local minAge = tonumber(ARGV[4])

local memory = redis.call('INFO', 'memory')
local used = tonumber(string.match(memory, 'used_memory:(%d+)')) or 0
local max = tonumber(string.match(memory, 'maxmemory:(%d+)')) or 0

if redis.call('EXISTS', stream) == 0 then
  return {0, 0, 0, '', '', used, max}
end

local function parse(id)
  local dash = string.find(id, '-', 1, true)
  return tonumber(string.sub(id, 1, dash - 1)), tonumber(string.sub(id, dash + 1))
end

local function less(a, b)
  local ams, aseq = parse(a)
  local bms, bseq = parse(b)
  return ams < bms or (ams == bms and aseq < bseq)
end

-- The smallest id greater than id: MINID keeps ids >= its threshold.
local function after(id)
  local ms, seq = parse(id)
  return string.format('%.0f-%.0f', ms, seq + 1)
end

local groups = redis.call('XINFO', 'GROUPS', stream)
local reported = {}
local floor
for g = 1, #groups do
  local info = {}
  local flat = groups[g]
  for i = 1, #flat, 2 do
    info[flat[i]] = flat[i + 1]
  end
  local delivered = info['last-delivered-id']
  local pending = tonumber(info['pending'])
  local oldestPending = ''
  if pending > 0 then
    oldestPending = redis.call('XPENDING', stream, info['name'])[2]
  end
  local needed = after(delivered)
  if acknowledged and oldestPending ~= '' then
    needed = oldestPending
  end
  if floor == nil or less(needed, floor) then
    floor = needed
  end
  local lag = info['lag']
  if type(lag) ~= 'number' then
    lag = -1
  end
  local next = redis.call('XRANGE', stream, '(' .. delivered, '+', 'COUNT', 1)
  local nextId = ''
  if #next > 0 then
    nextId = next[1][1]
  end
  local row = {info['name'], tonumber(info['consumers']), pending, delivered, oldestPending, lag, nextId}
  for i = 1, #row do
    reported[#reported + 1] = row[i]
  end
end

if floor ~= nil and minAge > 0 then
  local time = redis.call('TIME')
  local keep = string.format('%.0f-0', tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) - minAge)
  if less(keep, floor) then
    floor = keep
  end
end

local trimmed = 0
if floor ~= nil then
  trimmed = redis.call('XTRIM', stream, 'MINID', '~', floor, 'LIMIT', limit)
elseif maxlen > 0 then
  trimmed = redis.call('XTRIM', stream, 'MAXLEN', '~', maxlen, 'LIMIT', limit)
end

local first = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)
local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
local result = {redis.call('XLEN', stream), trimmed, #groups, first[1] and first[1][1] or '',
  last[1] and last[1][1] or '', used, max}
for i = 1, #reported do
  result[#result + 1] = reported[i]
end
return result
