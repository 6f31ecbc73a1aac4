// The Lua scripts of the Redis store. Each runs atomically in Redis: that is what makes a
// compare-and-set update, a lease renewal or a lease claim safe with several replicas.

// KEYS: task hash, events stream, leases sorted set, history list, the owner's list index, the
// owner's list index of the task's context, the list expiry sorted set, the owner's list index of
// the task's state, the owner's list index of the task's context and state (see task-layout.ts).
// ARGV: 1 expected revision, 2 head JSON, 3 last event id, 4 final (1/0), 5 retention ms,
// 6 lease ms, 7 stream max length, 8 task id, 9 events channel, 10 turn-ended channel,
// 11 turn-ended payload, 12 parts key prefix, 13 artifact indexes, 14 rewrite (1/0),
// 15 the task's status time in ms when the status changed (its list score), 'x' to take it out
// of the list indexes (a task answered by a reply alone), else '', 16 the state the task leaves
// (its indexes of that state, made from KEYS[5] and KEYS[6] with ':s:<state>'), else '',
// 17 event count n, then n pairs of stream id and event JSON, then the layout ops (see
// task-layout.ts). The parts lists' keys are made here from their prefix and the indexes, which
// is why the store is for standalone Redis, not Cluster.
// Publishes the events as "<last event id>\n<JSON array of {id, event}>": a subscriber that has
// them already (the writer's own process) skips the message without parsing it.
// Returns {1, new revision}, or {0, current revision} when the expected one is stale.
export const UPDATE_SCRIPT = `
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return {0, rev} end
local prefix = ARGV[12]
if rev == 0 then redis.call('DEL', KEYS[2]) end
if ARGV[14] == '1' then
  redis.call('DEL', KEYS[4])
  local old = redis.call('HGET', KEYS[1], 'artifacts')
  if old then for index in string.gmatch(old, '%S+') do redis.call('DEL', prefix .. index) end end
  redis.call('HDEL', KEYS[1], 'record')
end
local i = 18
local eventsEnd = 18 + 2 * tonumber(ARGV[17])
local published = {}
while i < eventsEnd do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[7], ARGV[i], 'e', ARGV[i + 1])
  published[#published + 1] = '{"id":' .. string.sub(ARGV[i], 3) .. ',"event":' .. ARGV[i + 1] .. '}'
  i = i + 2
end
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'h' then
    redis.call('RPUSH', KEYS[4], ARGV[i + 1])
    i = i + 2
  elseif op == 'r' then
    redis.call('DEL', prefix .. ARGV[i + 1])
    i = i + 2
  else
    redis.call('RPUSH', prefix .. ARGV[i + 1], ARGV[i + 2])
    i = i + 3
  end
end
redis.call('HSET', KEYS[1], 'rev', rev + 1, 'head', ARGV[2], 'last', ARGV[3], 'artifacts', ARGV[13])
local keys = {KEYS[1], KEYS[2], KEYS[4]}
for index in string.gmatch(ARGV[13], '%S+') do keys[#keys + 1] = prefix .. index end
if ARGV[16] ~= '' and ARGV[15] ~= '' then
  redis.call('ZREM', KEYS[5] .. ':s:' .. ARGV[16], ARGV[8])
  redis.call('ZREM', KEYS[6] .. ':s:' .. ARGV[16], ARGV[8])
end
if ARGV[15] == 'x' then
  for k = 5, 9 do if k ~= 7 then redis.call('ZREM', KEYS[k], ARGV[8]) end end
elseif ARGV[15] ~= '' then
  for k = 5, 9 do if k ~= 7 then redis.call('ZADD', KEYS[k], ARGV[15], ARGV[8]) end end
end
local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local listed = KEYS[5] .. '\\n' .. KEYS[6] .. '\\n' .. ARGV[8]
if ARGV[4] == '1' then
  for _, key in ipairs(keys) do redis.call('PEXPIRE', key, ARGV[5]) end
  redis.call('ZREM', KEYS[3], ARGV[8])
  redis.call('ZADD', KEYS[7], nowMs + tonumber(ARGV[5]), listed)
else
  for _, key in ipairs(keys) do redis.call('PERSIST', key) end
  redis.call('ZADD', KEYS[3], nowMs + tonumber(ARGV[6]), ARGV[8])
  redis.call('ZREM', KEYS[7], listed)
end
if #published > 0 then redis.call('PUBLISH', ARGV[9], ARGV[3] .. '\\n[' .. table.concat(published, ',') .. ']') end
if ARGV[11] ~= '' then redis.call('PUBLISH', ARGV[10], ARGV[11]) end
return {1, rev + 1}
`;

// KEYS: task hash, history list. ARGV: parts key prefix.
// Returns {revision, head or nil, record of an older version or nil, history, parts lists}; the
// parts lists follow the order of the hash's artifact indexes, as the head's artifacts do.
export const READ_SCRIPT = `
local fields = redis.call('HMGET', KEYS[1], 'rev', 'head', 'record', 'artifacts')
if not fields[2] then return {fields[1] or '0', false, fields[3]} end
local parts = {}
if fields[4] then
  for index in string.gmatch(fields[4], '%S+') do parts[#parts + 1] = redis.call('LRANGE', ARGV[1] .. index, 0, -1) end
end
return {fields[1], fields[2], false, redis.call('LRANGE', KEYS[2], 0, -1), parts}
`;

// KEYS: leases sorted set. ARGV: lease ms, then task ids. Only leases that still exist are
// extended (XX): a task that ended has none to renew.
export const RENEW_SCRIPT = `
local t = redis.call('TIME')
local untilMs = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', untilMs, ARGV[i]) end
return 0
`;

// KEYS: leases sorted set. ARGV: lease ms, batch size, task key prefix. Claims each expired
// lease for one more period and returns its task id; a lease whose task is gone is dropped.
export const CLAIM_SCRIPT = `
local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', nowMs, 'LIMIT', 0, tonumber(ARGV[2]))
local claimed = {}
for _, id in ipairs(expired) do
  if redis.call('EXISTS', ARGV[3] .. id) == 1 then
    redis.call('ZADD', KEYS[1], nowMs + tonumber(ARGV[1]), id)
    claimed[#claimed + 1] = id
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return claimed
`;

// KEYS: the list expiry sorted set. ARGV: batch size, then the states a finished task can be in.
// Takes the tasks whose keys have expired (finished for longer than the retention) out of the
// list indexes they are in (those of their state too), at most a batch. Returns how many it took out.
export const PRUNE_LIST_SCRIPT = `
local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', nowMs, 'LIMIT', 0, tonumber(ARGV[1]))
for _, listed in ipairs(expired) do
  local a = string.find(listed, '\\n', 1, true)
  local b = string.find(listed, '\\n', a + 1, true)
  local id = string.sub(listed, b + 1)
  local owner = string.sub(listed, 1, a - 1)
  local context = string.sub(listed, a + 1, b - 1)
  redis.call('ZREM', owner, id)
  redis.call('ZREM', context, id)
  for s = 2, #ARGV do
    redis.call('ZREM', owner .. ':s:' .. ARGV[s], id)
    redis.call('ZREM', context .. ':s:' .. ARGV[s], id)
  end
  redis.call('ZREM', KEYS[1], listed)
end
return #expired
`;
