// The Lua scripts of the Redis store. Each runs atomically in Redis: that is what makes a
// compare-and-set update, a lease renewal or a lease claim safe with several replicas.

// KEYS: task hash, events stream, leases sorted set.
// ARGV: expected revision, record JSON, last event id, final (1/0), retention ms, lease ms,
// stream max length, task id, events channel, events payload, turn-ended channel, turn-ended
// payload, then pairs of stream id and event JSON.
export const UPDATE_SCRIPT = `
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then
  return {0, rev, redis.call('HGET', KEYS[1], 'record')}
end
if rev == 0 then redis.call('DEL', KEYS[2]) end
for i = 13, #ARGV, 2 do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[7], ARGV[i], 'e', ARGV[i + 1])
end
redis.call('HSET', KEYS[1], 'rev', rev + 1, 'record', ARGV[2], 'last', ARGV[3])
if ARGV[4] == '1' then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
  redis.call('ZREM', KEYS[3], ARGV[8])
else
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
  local t = redis.call('TIME')
  redis.call('ZADD', KEYS[3], t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[6]), ARGV[8])
end
if ARGV[10] ~= '' then redis.call('PUBLISH', ARGV[9], ARGV[10]) end
if ARGV[12] ~= '' then redis.call('PUBLISH', ARGV[11], ARGV[12]) end
return {1, rev + 1}
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
