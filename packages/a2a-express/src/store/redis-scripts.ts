// The Lua scripts of the Redis store. Each runs atomically in Redis: that is what makes a
// compare-and-set update, a lease renewal or a lease claim safe with several replicas.
import type { StoredEvent } from '../model/record.js';

/**
 * The update script's keys, by name, in the order it is given them (Redis wants the keys a script
 * touches apart from its other arguments). The list indexes are the owner's tasks, those in the
 * task's context, those in its state, and in both (see listKey in redis.ts).
 */
const UPDATE_KEYS = [
  'task',
  'events',
  'leases',
  'history',
  'ownerIndex',
  'contextIndex',
  'listExpiry',
  'ownerStateIndex',
  'contextStateIndex',
  'queue',
] as const;

export type UpdateKeys = { readonly [K in (typeof UPDATE_KEYS)[number]]: string };

/** The update script's other arguments, by name: the script reads each as `params.<name>`. */
export interface UpdateParams {
  /** The revision the change was computed from: the script writes only while the task is at it. */
  readonly rev: number;
  /** The record but what grows in it (task-layout.ts), as JSON. */
  readonly head: string;
  readonly lastEventId: number;
  /** The task ended its turn: its keys expire after `retentionMs`, and it holds no lease. */
  readonly final: boolean;
  readonly retentionMs: number;
  readonly leaseMs: number;
  /** How many events the stream keeps (at least: Redis trims in whole nodes). */
  readonly maxEvents: number;
  readonly taskId: string;
  readonly eventsChannel: string;
  readonly turnEndedChannel: string;
  /** The notice of a turn ended from outside its handler, as JSON; '' for none. */
  readonly turnEnded: string;
  /** The key of the parts of the artifact at index N is this followed by N. */
  readonly partsPrefix: string;
  /** The artifacts' indexes after the change, space-separated. */
  readonly artifactIndexes: string;
  /** The history and every artifact's parts are written anew (the layout's `rewrite`). */
  readonly rewrite: boolean;
  /**
   * The task's status time in ms, its score in the list indexes, when its status changed; 'x' to
   * take it out of them (a task answered by a reply alone); '' to leave them as they are.
   */
  readonly listScore: string | number;
  /** The state the task leaves, whose indexes (the owner's and the context's) it is taken out of; '' for none. */
  readonly leftState: string;
  /** The process running the task's current attempt (the record's `holder`), whose renewals alone count; '' for any. */
  readonly holder: string;
  /** The turn waits in the turn queue for a worker: it holds no lease. */
  readonly queued: boolean;
  /** The turn to add to the turn queue (the `queue` stream) with this change; '' for none. */
  readonly enqueueTurn: number | '';
  /** Its attempt; '' for none. */
  readonly enqueueAttempt: number | '';
}

/**
 * The order the parameters are given in, then the number of events: named once, here, for both
 * sides. The script makes its `params` table of them by name (UPDATE_SCRIPT's first lines, made
 * from this list), so neither side counts positions; `satisfies` makes a parameter left out of the
 * list, or one it names that is not a parameter, fail to compile.
 */
const UPDATE_PARAMS = Object.keys({
  rev: true,
  head: true,
  lastEventId: true,
  final: true,
  retentionMs: true,
  leaseMs: true,
  maxEvents: true,
  taskId: true,
  eventsChannel: true,
  turnEndedChannel: true,
  turnEnded: true,
  partsPrefix: true,
  artifactIndexes: true,
  rewrite: true,
  listScore: true,
  leftState: true,
  holder: true,
  queued: true,
  enqueueTurn: true,
  enqueueAttempt: true,
} satisfies Record<keyof UpdateParams, true>) as (keyof UpdateParams)[];

/**
 * The arguments of one call of the update script: its keys, its parameters (UPDATE_PARAMS' order),
 * the number of events, the events (each its stream id and JSON), then the layout's ops.
 */
export function updateArguments(
  keys: UpdateKeys,
  params: UpdateParams,
  events: readonly StoredEvent[],
  ops: readonly string[],
): (string | number)[] {
  const args: (string | number)[] = UPDATE_KEYS.map((name) => keys[name]);
  for (const name of UPDATE_PARAMS) {
    const value = params[name];
    args.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
  }
  args.push(events.length);
  for (const { id, event } of events) args.push(`0-${id}`, JSON.stringify(event));
  for (const op of ops) args.push(op);
  return args;
}

/** The script's locals: each key by its name, and the table of its parameters by theirs. */
const UPDATE_NAMES = [
  ...UPDATE_KEYS.map((name, i) => `local ${name} = KEYS[${i + 1}]`),
  `local params = {${[...UPDATE_PARAMS, 'eventCount'].map((name, i) => `${name} = ARGV[${i + 1}]`).join(', ')}}`,
  `local i = ${UPDATE_PARAMS.length + 2}`,
].join('\n');

export const UPDATE_KEY_COUNT = UPDATE_KEYS.length;

// Writes one change of a task (see UpdateParams), only while the task is at the revision the
// change was computed from. The events go into the stream, the layout's ops (see task-layout.ts)
// into the history and the parts lists, whose keys are made here from their prefix and the indexes
// (which is why the store is for standalone Redis, not Cluster). Publishes the events as
// "<last event id>\n<JSON array of {id, event}>": a subscriber that has them already (the writer's
// own process) skips the message without parsing it.
// Returns {1, new revision}, or {0, current revision} when the expected one is stale.
export const UPDATE_SCRIPT = `
${UPDATE_NAMES}
local rev = tonumber(redis.call('HGET', task, 'rev') or '0')
if rev ~= tonumber(params.rev) then return {0, rev} end
local prefix = params.partsPrefix
if rev == 0 then redis.call('DEL', events) end
if params.rewrite == '1' then
  redis.call('DEL', history)
  local old = redis.call('HGET', task, 'artifacts')
  if old then for index in string.gmatch(old, '%S+') do redis.call('DEL', prefix .. index) end end
  redis.call('HDEL', task, 'record')
end
local eventsEnd = i + 2 * tonumber(params.eventCount)
local published = {}
while i < eventsEnd do
  redis.call('XADD', events, 'MAXLEN', '~', params.maxEvents, ARGV[i], 'e', ARGV[i + 1])
  published[#published + 1] = '{"id":' .. string.sub(ARGV[i], 3) .. ',"event":' .. ARGV[i + 1] .. '}'
  i = i + 2
end
while i <= #ARGV do
  local op = ARGV[i]
  if op == 'h' then
    redis.call('RPUSH', history, ARGV[i + 1])
    i = i + 2
  elseif op == 'r' then
    redis.call('DEL', prefix .. ARGV[i + 1])
    i = i + 2
  else
    redis.call('RPUSH', prefix .. ARGV[i + 1], ARGV[i + 2])
    i = i + 3
  end
end
redis.call('HSET', task, 'rev', rev + 1, 'head', params.head, 'last', params.lastEventId, 'artifacts', params.artifactIndexes, 'holder', params.holder)
local keys = {task, events, history}
for index in string.gmatch(params.artifactIndexes, '%S+') do keys[#keys + 1] = prefix .. index end
local taskId = params.taskId
if params.leftState ~= '' and params.listScore ~= '' then
  redis.call('ZREM', ownerIndex .. ':s:' .. params.leftState, taskId)
  redis.call('ZREM', contextIndex .. ':s:' .. params.leftState, taskId)
end
local indexes = {ownerIndex, contextIndex, ownerStateIndex, contextStateIndex}
if params.listScore == 'x' then
  for _, index in ipairs(indexes) do redis.call('ZREM', index, taskId) end
elseif params.listScore ~= '' then
  for _, index in ipairs(indexes) do redis.call('ZADD', index, params.listScore, taskId) end
end
local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local listed = ownerIndex .. '\\n' .. contextIndex .. '\\n' .. taskId
if params.final == '1' then
  for _, key in ipairs(keys) do redis.call('PEXPIRE', key, params.retentionMs) end
  redis.call('ZREM', leases, taskId)
  redis.call('ZADD', listExpiry, nowMs + tonumber(params.retentionMs), listed)
else
  for _, key in ipairs(keys) do redis.call('PERSIST', key) end
  if params.queued == '1' then
    redis.call('ZREM', leases, taskId)
  else
    redis.call('ZADD', leases, nowMs + tonumber(params.leaseMs), taskId)
  end
  redis.call('ZREM', listExpiry, listed)
end
if params.enqueueTurn ~= '' then redis.call('XADD', queue, '*', 't', taskId, 'n', params.enqueueTurn, 'a', params.enqueueAttempt) end
if #published > 0 then redis.call('PUBLISH', params.eventsChannel, params.lastEventId .. '\\n[' .. table.concat(published, ',') .. ']') end
if params.turnEnded ~= '' then redis.call('PUBLISH', params.turnEndedChannel, params.turnEnded) end
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

// KEYS: leases sorted set. ARGV: lease ms, the renewing process ('' for any), task key prefix,
// then task ids. Only leases that still exist are extended (XX): a task that ended has none to
// renew; and only of tasks whose current attempt that process runs (or that name none): a
// process whose turn another took over cannot keep it alive.
export const RENEW_SCRIPT = `
local t = redis.call('TIME')
local untilMs = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[1])
local holder = ARGV[2]
for i = 4, #ARGV do
  local current = holder ~= '' and redis.call('HGET', ARGV[3] .. ARGV[i], 'holder')
  if not current or current == '' or current == holder then redis.call('ZADD', KEYS[1], 'XX', untilMs, ARGV[i]) end
end
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

// KEYS: the workers sorted set. ARGV: the worker, how long it says it is alive (ms; 0: it
// stopped). Each worker's score is when its word runs out; those run out are dropped here.
export const HEARTBEAT_SCRIPT = `
local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMs)
if tonumber(ARGV[2]) > 0 then redis.call('ZADD', KEYS[1], nowMs + tonumber(ARGV[2]), ARGV[1]) else redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
`;

// KEYS: the workers sorted set, the turn queue stream. Returns {live workers, queued entries,
// milliseconds since the oldest entry was added (its id is its time), or -1 for none}.
export const QUEUE_FIGURES_SCRIPT = `
local t = redis.call('TIME')
local nowMs = t[1] * 1000 + math.floor(t[2] / 1000)
local live = redis.call('ZCOUNT', KEYS[1], '(' .. nowMs, '+inf')
local depth = redis.call('XLEN', KEYS[2])
local oldest = redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 1)
local age = -1
if oldest[1] then
  local id = oldest[1][1]
  age = nowMs - tonumber(string.sub(id, 1, string.find(id, '-', 1, true) - 1))
end
return {live, depth, age}
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
