-- Functions shared by the scripts that change a command's hash: its history, its attempt limit
-- and its failure into the dead-letter set. A Redis script cannot include another, so
-- LuaScript.fromResources puts this text in front of each of them.

-- Steps a history keeps: the first (queued) and the newest, so a command handed back again and
-- again keeps a bounded hash and dead letter. 'attempts' still counts every send.
local HISTORY_MAX = 20

-- The history (JSON, or false when absent) with step appended, as JSON; past HISTORY_MAX steps
-- the oldest after the first are dropped.
local function appendHistory(historyJson, step)
  local history = {}
  if historyJson then
    history = cjson.decode(historyJson)
  end
  history[#history + 1] = step
  if #history > HISTORY_MAX then
    local kept = {history[1]}
    for i = #history - HISTORY_MAX + 2, #history do
      kept[#kept + 1] = history[i]
    end
    history = kept
  end
  return cjson.encode(history)
end

-- Marks the command hash at key failed for reason, its history (JSON) extended by that step.
local function markFailed(key, historyJson, reason, now)
  redis.call('HSET', key, 'status', 'failed', 'reason', reason, 'updated_at', now,
    'history', appendHistory(historyJson, {status = 'failed', reason = reason, at = now}))
end

-- Adds the whole command hash at key, as one JSON object, to the dead-letter sorted set dlq.
local function deadLetter(key, dlq, now)
  local all = redis.call('HGETALL', key)
  local entry = {}
  for i = 1, #all, 2 do
    entry[all[i]] = all[i + 1]
  end
  redis.call('ZADD', dlq, now, cjson.encode(entry))
end

-- Keeps the newest kept entries of the dead-letter sorted set dlq.
local function trimDeadLetters(dlq, kept)
  local excess = redis.call('ZCARD', dlq) - tonumber(kept)
  if excess > 0 then
    redis.call('ZREMRANGEBYRANK', dlq, 0, excess - 1)
  end
end

-- True when the command at key was sent as often as its 'max_attempts' allows. Commands queued
-- by an earlier version have no 'max_attempts': no limit.
local function attemptsUsedUp(key)
  local c = redis.call('HMGET', key, 'attempts', 'max_attempts')
  return c[2] ~= false and tonumber(c[1] or '0') >= tonumber(c[2])
end

-- Fails the command at key (id) for good with reason: history, dead letter, retention, and a
-- '<replyVerb> <id>' (InstanceEvent.REPLY) to the instance that accepted it, where a request may
-- wait for it.
local function failCommand(key, id, historyJson, reason, now, dlq, kept, retention, eventsPrefix, replyVerb)
  markFailed(key, historyJson, reason, now)
  deadLetter(key, dlq, now)
  trimDeadLetters(dlq, kept)
  redis.call('PEXPIRE', key, retention)
  local origin = redis.call('HGET', key, 'origin')
  if origin then
    redis.call('PUBLISH', eventsPrefix .. origin, replyVerb .. ' ' .. id)
  end
end
