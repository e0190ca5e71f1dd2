-- Adds IMEIs to or removes them from the allow- or deny-list in one step; a newly denied device
-- that is connected is cut off: its owner instance hears 'deny <imei>' (InstanceEvent.DENY) on its
-- events channel. One taken off the allow-list: its owner hears 'revoke <imei>' (InstanceEvent.REVOKE)
-- and, in allow-list mode, cuts it off.
-- Returns the number of IMEIs whose membership changed.
-- KEYS[1] the list (set), KEYS[2] connections registry hash
-- ARGV[1] 'add' | 'remove', ARGV[2] '1' when the list is the deny-list, ARGV[3] events prefix,
-- ARGV[4] the deny event's verb, ARGV[5] the revoke event's verb, ARGV[6..] IMEIs
local changed = 0
for i = 6, #ARGV do
  local imei = ARGV[i]
  if ARGV[1] == 'add' then
    changed = changed + redis.call('SADD', KEYS[1], imei)
    if ARGV[2] == '1' then
      local owner = redis.call('HGET', KEYS[2], imei)
      if owner then
        redis.call('PUBLISH', ARGV[3] .. owner, ARGV[4] .. ' ' .. imei)
      end
    end
  else
    local removed = redis.call('SREM', KEYS[1], imei)
    changed = changed + removed
    if removed == 1 and ARGV[2] == '0' then
      local owner = redis.call('HGET', KEYS[2], imei)
      if owner then
        redis.call('PUBLISH', ARGV[3] .. owner, ARGV[5] .. ' ' .. imei)
      end
    end
  end
end
return changed
