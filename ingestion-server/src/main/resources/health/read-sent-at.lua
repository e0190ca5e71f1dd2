-- The sent_at of a page of commands in flight, in one call (read-only); '' for a command whose
-- hash has none (finished and gone since it was listed).
-- ARGV[1] command key prefix, ARGV[2..] command ids
local out = {}
for i = 2, #ARGV do
  out[#out + 1] = redis.call('HGET', ARGV[1] .. ARGV[i], 'sent_at') or ''
end
return out
