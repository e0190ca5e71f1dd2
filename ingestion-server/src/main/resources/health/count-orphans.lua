-- One step of the walk over command hashes that estimates the orphans (read-only): SCAN one page
-- of command hashes and count those nothing will ever deliver or finish, as command/fail-orphan.lua
-- defines them: queued but in no queue, or sent but in no instance's in-flight place. In a script,
-- so a command taken or finished meanwhile is never miscounted. Returns {next cursor, hashes seen,
-- queued orphans, sent orphans}.
-- KEYS[1] the queued devices' sorted set, not read: it names the node that holds the namespace's
-- slot, where every command hash, queue and in-flight hash lives (a cluster's SCAN sees one node).
-- ARGV[1] cursor, ARGV[2] SCAN COUNT, ARGV[3] MATCH pattern of command hashes,
-- ARGV[4] command key prefix, ARGV[5] device queue prefix, ARGV[6] in-flight hash prefix
local page = redis.call('SCAN', ARGV[1], 'MATCH', ARGV[3], 'COUNT', ARGV[2], 'TYPE', 'hash')
local seen, queued, sent = 0, 0, 0
for _, key in ipairs(page[2]) do
  local id = string.sub(key, string.len(ARGV[4]) + 1)
  local c = redis.call('HMGET', key, 'status', 'imei', 'instance')
  seen = seen + 1
  if c[1] == 'queued' and c[2] then
    if not redis.call('LPOS', ARGV[5] .. c[2], id) then
      queued = queued + 1
    end
  elseif c[1] == 'sent' and c[2] then
    local entry = c[3] and redis.call('HGET', ARGV[6] .. c[3], c[2])
    if not entry or string.match(entry, '^[^:]+') ~= id then
      sent = sent + 1
    end
  end
end
return {page[1], seen, queued, sent}
