-- Functions shared by the scripts that fail a command into the dead-letter set. A Redis script
-- cannot include another, so LuaScript.fromResources puts this text in front of each of them.

-- Marks the command hash at key failed for reason, its history (JSON) extended by that step.
local function markFailed(key, historyJson, reason, now)
  local history = cjson.decode(historyJson)
  history[#history + 1] = {status = 'failed', reason = reason, at = now}
  redis.call('HSET', key, 'status', 'failed', 'reason', reason, 'updated_at', now,
    'history', cjson.encode(history))
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

