-- The sent_at of a page of commands in flight, in one call (read-only); '' for a command whose
-- hash has none (finished and gone since it was listed).
-- KEYS the command hashes
local out = {}
for i = 1, #KEYS do
  out[#out + 1] = redis.call('HGET', KEYS[i], 'sent_at') or ''
end
return out
