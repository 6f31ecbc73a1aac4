// RedisTaskStore on its own, against the real Redis: atomic updates between two store
// instances (two replicas), keys, retention, bounded logs, and live events surviving a dropped
// subscriber connection.
import { deleteKeys, redisUrl, requireRedis, uniquePrefix } from 'a2a-testing';
import { Redis } from 'ioredis';
import type { StoredEvent, TaskChange, TaskRecord } from '../src/store/index.js';
import { RedisTaskStore, taskStoreFromEnv, type RedisTaskStoreOptions } from '../src/redis.js';
import { statusEvent } from '../src/core/task-events.js';
import { UPDATE_KEY_COUNT, UPDATE_SCRIPT, updateArguments } from '../src/store/redis-scripts.js';
import { eventually } from './helpers.js';

const url = redisUrl();
const stores: RedisTaskStore[] = [];
const prefixes: string[] = [];
let admin: Redis;

beforeAll(async () => {
  await requireRedis(url);
  admin = new Redis(url);
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  for (const prefix of prefixes) await deleteKeys(url, prefix);
  admin.disconnect();
});

/** `count` stores on one fresh prefix, as that many replicas have. */
function storesOnOnePrefix(count: number, options: RedisTaskStoreOptions): RedisTaskStore[] {
  const prefix = uniquePrefix('store');
  prefixes.push(prefix);
  return Array.from({ length: count }, () => {
    const store = new RedisTaskStore({ url, prefix, ...options });
    stores.push(store);
    return store;
  });
}

const twoStores = (options: RedisTaskStoreOptions = {}) => storesOnOnePrefix(2, options) as [RedisTaskStore, RedisTaskStore];
const oneStore = (options: RedisTaskStoreOptions = {}) => storesOnOnePrefix(1, options)[0]!;

function created(taskId: string): TaskRecord {
  return {
    task: { id: taskId, contextId: 's', status: { state: 'working', timestamp: new Date().toISOString() } },
    history: [],
    lastEventId: 0,
    turn: 1,
    updatedAt: Date.now(),
  };
}

/** A change that adds one `working` status event carrying `note` in its metadata. */
const addEvent =
  (taskId: string, note: string) =>
  (current: TaskRecord | undefined): TaskChange => {
    const event = statusEvent(taskId, 'working', undefined, { note });
    return { record: current ?? created(taskId), events: [event] };
  };

const notes = (events: StoredEvent[]) => events.map((e) => (e.event.metadata as { note: string }).note);

/** A change that adds one chunk of text to the artifact at `index`, appended unless it is the first. */
const addChunk =
  (taskId: string, index: number, text: string, append = true) =>
  (current: TaskRecord | undefined): TaskChange => ({
    record: current ?? created(taskId),
    events: [{ id: taskId, artifact: { index, append, parts: [{ type: 'text', text }] } }],
  });

/** A change that adds a message to the history, as a new turn does. */
const addMessage =
  (taskId: string, text: string) =>
  (current: TaskRecord | undefined): TaskChange => {
    const record = current ?? created(taskId);
    return { record: { ...record, history: [...record.history, { role: 'user', parts: [{ type: 'text', text }] }] }, events: [] };
  };

test('keys live under the prefix, one per growing part of a task, and the list indexes; another prefix sees nothing', async () => {
  const store = oneStore();
  const other = oneStore();
  await store.update('namespaced', addMessage('namespaced', 'hello'));
  await store.update('namespaced', addChunk('namespaced', 0, 'a', false));
  await store.update('namespaced', addChunk('namespaced', 1, 'b', false));
  const keys = await admin.keys(`${store.prefix}*`);
  expect(keys.sort()).toEqual(
    [
      'events:namespaced',
      'history:namespaced',
      'leases',
      // The tasks created without authentication, all and in the task's context, each also by
      // state (ListTasks).
      'list:-',
      'list:-:c:s',
      'list:-:c:s:s:working',
      'list:-:s:working',
      'parts:namespaced:0',
      'parts:namespaced:1',
      'task:namespaced',
    ].map((key) => `${store.prefix}${key}`),
  );
  expect(await other.get('namespaced')).toBeUndefined();
  expect(await other.eventsAfter('namespaced', 0)).toBeUndefined();
});

test('an event appends to the lists and rewrites only the small head: the record itself is never written whole', async () => {
  const store = oneStore();
  await store.update('appended', addMessage('appended', 'hello'));
  for (let i = 0; i < 50; i++) await store.update('appended', addChunk('appended', 0, `chunk ${i}`, i > 0));
  const head = await admin.hget(`${store.prefix}task:appended`, 'head');
  expect(head).not.toContain('chunk');
  expect(await admin.hget(`${store.prefix}task:appended`, 'record')).toBeNull();
  // One list element per update here (chunks of one update share an element).
  expect(await admin.llen(`${store.prefix}parts:appended:0`)).toBe(50);
  expect(await admin.llen(`${store.prefix}history:appended`)).toBe(1);
  const record = (await store.get('appended'))!;
  expect(record.task.artifacts![0]!.parts).toEqual(Array.from({ length: 50 }, (_, i) => ({ type: 'text', text: `chunk ${i}` })));
  expect(record.history).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }]);
});

test('a record stored by the previous version (one JSON string) is read as it is, and laid out anew by its next change', async () => {
  const store = oneStore();
  const older: TaskRecord = {
    ...created('older'),
    task: {
      ...created('older').task,
      artifacts: [{ index: 0, name: 'draft', parts: [{ type: 'text', text: 'a' }] }],
    },
    history: [{ role: 'user', parts: [{ type: 'text', text: 'hello' }] }],
    lastEventId: 3,
  };
  await admin.hset(`${store.prefix}task:older`, 'rev', 4, 'record', JSON.stringify(older), 'last', 3);
  expect(await store.get('older')).toEqual(older);
  const { events } = await store.update('older', addChunk('older', 0, 'b'));
  expect(events.map((e) => e.id)).toEqual([4]);
  expect(await admin.hget(`${store.prefix}task:older`, 'record')).toBeNull();
  const after = (await store.get('older'))!;
  expect(after.history).toEqual(older.history);
  expect(after.task.artifacts).toEqual([{ index: 0, name: 'draft', parts: ['a', 'b'].map((text) => ({ type: 'text', text })) }]);
});

test('records of the previous release (sessionId, one pushNotification) are read in the new model and stored so by their next change', async () => {
  const store = oneStore();
  const timestamp = '2026-11-01T00:00:00.000Z';
  // The head as the previous release laid it out: the task's context under `sessionId`, its one
  // push config under `pushNotification`, and the record's history and parts in their lists.
  const previousHead = {
    task: {
      id: 'previous',
      sessionId: 'session-1',
      status: { state: 'input-required', timestamp },
      artifacts: [{ index: 0, parts: null }],
    },
    lastEventId: 2,
    turn: 1,
    pushNotification: { url: 'https://hooks.example.test/one', token: 'tok' },
    updatedAt: Date.now(),
    bytes: 200,
  };
  await admin.hset(`${store.prefix}task:previous`, 'rev', 2, 'head', JSON.stringify(previousHead), 'last', 2, 'artifacts', '0');
  await admin.rpush(`${store.prefix}history:previous`, JSON.stringify({ role: 'user', parts: [{ type: 'text', text: 'hello' }] }));
  await admin.rpush(`${store.prefix}parts:previous:0`, JSON.stringify([{ type: 'text', text: 'a' }]));
  // And one of the release before, stored whole.
  const wholeRecord = { ...previousHead, task: { ...previousHead.task, id: 'whole', artifacts: undefined }, history: [] };
  await admin.hset(`${store.prefix}task:whole`, 'rev', 1, 'record', JSON.stringify(wholeRecord), 'last', 2);

  for (const id of ['previous', 'whole']) {
    const read = (await store.get(id))!;
    expect(read.task.contextId).toBe('session-1');
    expect(read.task).not.toHaveProperty('sessionId');
    expect(read.pushConfigs).toEqual([{ id, url: 'https://hooks.example.test/one', token: 'tok', protocol: '0.1.0' }]);
    expect(read).not.toHaveProperty('pushNotification');
  }
  expect((await store.get('previous'))!.task.artifacts).toEqual([{ index: 0, parts: [{ type: 'text', text: 'a' }] }]);

  await store.update('previous', addChunk('previous', 0, 'b'));
  const head = JSON.parse((await admin.hget(`${store.prefix}task:previous`, 'head'))!) as Record<string, Record<string, unknown>>;
  expect(head.task).toMatchObject({ id: 'previous', contextId: 'session-1' });
  expect(head.task).not.toHaveProperty('sessionId');
  expect(head).not.toHaveProperty('pushNotification');
  expect(head.pushConfigs).toEqual([{ id: 'previous', url: 'https://hooks.example.test/one', token: 'tok', protocol: '0.1.0' }]);
  expect((await store.get('previous'))!.task.artifacts![0]!.parts).toEqual(['a', 'b'].map((text) => ({ type: 'text', text })));
});

test('a running task has no expiry and holds a lease; once finished all its keys expire after the retention time and its lease is gone', async () => {
  const store = oneStore({ retentionMs: 60_000, leaseMs: 5_000 });
  await store.update('retained', addMessage('retained', 'hello'));
  await store.update('retained', addChunk('retained', 0, 'a', false));
  const keys = ['task', 'events', 'history', 'parts'].map((key) => `${store.prefix}${key}:retained${key === 'parts' ? ':0' : ''}`);
  for (const key of keys) expect(await admin.pttl(key)).toBe(-1);
  expect(await admin.zscore(`${store.prefix}leases`, 'retained')).not.toBeNull();
  await store.update('retained', (current) => {
    const event = statusEvent('retained', 'completed');
    return { record: current!, events: [event] };
  });
  for (const key of keys) {
    const ttl = await admin.pttl(key);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  }
  expect(await admin.zscore(`${store.prefix}leases`, 'retained')).toBeNull();
  // A new turn keeps them again.
  await store.update('retained', addMessage('retained', 'more'));
  await store.update('retained', (current) => ({ record: current!, events: [statusEvent('retained', 'working')] }));
  for (const key of keys) expect(await admin.pttl(key)).toBe(-1);
});

test('a task leaves the list indexes when its keys expire; a new turn keeps it listed', async () => {
  const store = oneStore({ retentionMs: 100 });
  const finish = (taskId: string) => store.update(taskId, (current) => ({ record: current!, events: [statusEvent(taskId, 'completed')] }));
  for (const taskId of ['gone', 'reopened', 'running']) await store.update(taskId, addMessage(taskId, 'hello'));
  await finish('gone');
  await finish('reopened');
  await store.update('reopened', (current) => ({ record: current!, events: [statusEvent('reopened', 'working')] }));
  const list = () => store.listTasks({ owner: undefined, pageSize: 10 });
  expect((await list()).total).toBe(3);
  await new Promise((resolve) => setTimeout(resolve, 250));
  const after = await list();
  expect(after.records.map((r) => r.task.id).sort()).toEqual(['reopened', 'running']);
  expect(after.total).toBe(2);
  expect((await admin.zrange(`${store.prefix}list:-`, 0, -1)).sort()).toEqual(['reopened', 'running']);
  expect(await admin.zcard(`${store.prefix}list-expiry`)).toBe(0);
});

test('the event log is bounded; a replay from before its start is refused (undefined), one within it is exact', async () => {
  const store = oneStore({ maxEventsPerTask: 10 });
  for (let i = 0; i < 500; i++) await store.update('long', addEvent('long', `e${i}`));
  // Redis trims whole stream nodes (100 entries by default): at most the bound plus one node.
  expect(await admin.xlen(`${store.prefix}events:long`)).toBeLessThanOrEqual(110);
  expect(await store.eventsAfter('long', 0)).toBeUndefined();
  expect(notes((await store.eventsAfter('long', 495))!)).toEqual(['e495', 'e496', 'e497', 'e498', 'e499']);
  expect(await store.eventsAfter('long', 500)).toEqual([]);
});

test('a subscriber whose connection is dropped gets every event anyway, in order (the gap is read from the stream)', async () => {
  const name = `gap-test-${Date.now()}`;
  const [writer, reader] = twoStores({ redisOptions: { connectionName: name } });
  const received: number[] = [];
  await writer.update('gappy', addEvent('gappy', 'before'));
  const unsubscribe = await reader.subscribe('gappy', (event) => received.push(event.id));
  await writer.update('gappy', addEvent('gappy', 'live'));
  await eventually(async () => (received.length === 1 ? true : undefined));

  // Kill the reader's subscriber connection; publish while it reconnects.
  const clients = (await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
  const ids = clients
    .split('\n')
    .filter((line) => line.includes(`name=${name}`))
    .map((line) => /id=(\d+)/.exec(line)![1]!);
  expect(ids.length).toBeGreaterThan(0);
  for (const id of ids) await admin.call('CLIENT', 'KILL', 'ID', id);
  for (let i = 0; i < 5; i++) await writer.update('gappy', addEvent('gappy', `while-down-${i}`));
  await writer.update('gappy', addEvent('gappy', 'after'));

  await eventually(async () => (received.length >= 7 ? true : undefined));
  expect(received).toEqual([2, 3, 4, 5, 6, 7, 8]);
  unsubscribe();
});

test('options and environment: bad values are TypeErrors; no A2A_REDIS_URL means the in-memory store', () => {
  expect(() => new RedisTaskStore({ leaseMs: 0, url })).toThrow(/leaseMs must be a positive number/);
  expect(taskStoreFromEnv('a2a:x:', {})).toBeUndefined();
  expect(() => taskStoreFromEnv('a2a:x:', { A2A_REDIS_URL: 'localhost:6379' })).toThrow(/redis:\/\//);
  expect(() => taskStoreFromEnv('a2a:x:', { A2A_REDIS_URL: url, A2A_REDIS_LEASE_MS: 'soon' })).toThrow(/A2A_REDIS_LEASE_MS/);
  const fromEnv = taskStoreFromEnv('a2a:x:', { A2A_REDIS_URL: url, A2A_REDIS_PREFIX: 'custom:', A2A_REDIS_LEASE_MS: '2500' })!;
  stores.push(fromEnv);
  expect(fromEnv).toMatchObject({ prefix: 'custom:', leaseMs: 2500 });
});

test('ids with lone surrogates are refused (-32602): in Redis they would all be one key', async () => {
  const store = oneStore();
  for (const id of ['\ud800', '\udbff']) {
    await expect(store.get(id)).rejects.toMatchObject({ code: -32602 });
    await expect(store.update(id, () => ({ record: created(id), events: [] }))).rejects.toMatchObject({ code: -32602 });
  }
  // U+FFFD itself is a well-formed id of its own.
  await store.update('\ufffd', () => ({ record: created('\ufffd'), events: [] }));
  expect((await store.get('\ufffd'))?.task.id).toBe('\ufffd');
});

test('the update script takes its arguments by name: each it reads is one the store gives, where the store gives it', () => {
  const key = (name: string) => `a2a:test:${name}`;
  const event = statusEvent('t', 'working');
  const keys = {
    task: key('task'),
    events: key('events'),
    leases: key('leases'),
    history: key('history'),
    ownerIndex: key('owner'),
    contextIndex: key('context'),
    listExpiry: key('expiry'),
    ownerStateIndex: key('owner-state'),
    contextStateIndex: key('context-state'),
    queue: key('queue'),
  };
  const params = {
    rev: 3,
    head: '{"head":true}',
    lastEventId: 5,
    final: false,
    retentionMs: 1000,
    leaseMs: 2000,
    maxEvents: 30,
    taskId: 't',
    eventsChannel: key('events-channel'),
    turnEndedChannel: key('turn-ended'),
    turnEnded: '{"ended":true}',
    partsPrefix: key('parts:'),
    artifactIndexes: '0 1',
    rewrite: true,
    listScore: 1234,
    leftState: 'submitted',
    holder: 'process-a',
    queued: true,
    enqueueTurn: 2,
    enqueueAttempt: 1,
  };
  const args = updateArguments(keys, params, [{ id: 5, event }], ['h', '{}']);
  // What the script takes where: its locals, `name = KEYS[n]` and `name = ARGV[n]`.
  const keyAt = new Map([...UPDATE_SCRIPT.matchAll(/local (\w+) = KEYS\[(\d+)\]/g)].map(([, name, at]) => [name!, Number(at)]));
  const paramAt = new Map([...UPDATE_SCRIPT.matchAll(/(\w+) = ARGV\[(\d+)\]/g)].map(([, name, at]) => [name!, Number(at)]));
  expect(keyAt.size).toBe(UPDATE_KEY_COUNT);
  for (const [name, value] of Object.entries(keys)) expect(args[keyAt.get(name)! - 1]).toBe(value);
  const given = { ...params, final: 0, rewrite: 1, queued: 1, eventCount: 1 };
  expect([...paramAt.keys()].sort()).toEqual(Object.keys(given).sort());
  for (const [name, value] of Object.entries(given)) expect(args[UPDATE_KEY_COUNT + paramAt.get(name)! - 1]).toBe(value);
  // Every parameter the script reads is in its table.
  for (const [, name] of UPDATE_SCRIPT.matchAll(/params\.(\w+)/g)) expect(paramAt.has(name!)).toBe(true);
  // After them: the event (its stream id and JSON), then the layout's ops.
  expect(args.slice(UPDATE_KEY_COUNT + paramAt.size)).toEqual(['0-5', JSON.stringify(event), 'h', '{}']);
});
