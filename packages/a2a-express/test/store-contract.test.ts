// The TaskStore contract (src/store/task-store.ts), held against both built-in stores: the same
// tests, the same expectations, except where the interface says stores may differ (bounds).
import express from 'express';
import request from 'supertest';
import { deleteKeys, redisUrl, requireRedis, uniquePrefix } from 'a2a-testing';
import type { Artifact, Message } from 'a2a-types';
import type { TaskEvent } from '../src/store/index.js';
import { A2AError, a2aRouter, artifact, completed, type TaskHandler } from '../src/index.js';
import { RedisTaskStore } from '../src/redis.js';
import { applyEvents, InMemoryTaskStore, type TaskRecord, type TaskStore } from '../src/store/index.js';
import { statusEvent } from '../src/core/task-events.js';
import { eventually, request as rpcRequest, resultOf, sendRequest, silent } from './helpers.js';

interface StoreKind {
  readonly name: string;
  /** A store on fresh, empty data. */
  make(options?: { maxEventsPerTask?: number }): Promise<TaskStore>;
  /** A second store on the same data as `store`: another replica for Redis, the store itself in memory. */
  peer(store: TaskStore): TaskStore;
  /** For a bounded store, one that holds at most two tasks. */
  makeWithTwoSlots?(): Promise<TaskStore>;
}

const url = redisUrl();
const opened: TaskStore[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  for (const prefix of prefixes) await deleteKeys(url, prefix);
});
const keep = <S extends TaskStore>(store: S): S => {
  opened.push(store);
  return store;
};

const memory: StoreKind = {
  name: 'InMemoryTaskStore',
  make: async (options) => keep(new InMemoryTaskStore(options)),
  peer: (store) => store,
  makeWithTwoSlots: async () => keep(new InMemoryTaskStore({ maxTasks: 2 })),
};

const redis: StoreKind = {
  name: 'RedisTaskStore',
  async make(options) {
    await requireRedis(url);
    const prefix = uniquePrefix('contract');
    prefixes.push(prefix);
    return keep(new RedisTaskStore({ url, prefix, ...options }));
  },
  peer: (store) => keep(new RedisTaskStore({ url, prefix: (store as RedisTaskStore).prefix })),
};

const text = (t: string) => ({ type: 'text' as const, text: t });
const agentSays = (t: string): Message => ({ role: 'agent', parts: [text(t)] });

function created(taskId: string): TaskRecord {
  return {
    task: { id: taskId, contextId: 'session', status: { state: 'submitted', timestamp: '2026-11-22T00:00:00.000Z' } },
    history: [{ role: 'user', parts: [text('hello')] }],
    lastEventId: 0,
    turn: 1,
    updatedAt: Date.now(),
    bytes: 0,
  };
}

/** A change adding `events` to the task (created when new). */
const adding =
  (taskId: string, ...events: TaskEvent[]) =>
  (current: TaskRecord | undefined) => ({ record: current ?? created(taskId), events });

const working = (taskId: string, note = '') => statusEvent(taskId, 'working', undefined, note ? { note } : undefined);
const chunk = (taskId: string, artifactChunk: Artifact): TaskEvent => ({ id: taskId, artifact: artifactChunk });

/** What a client could see of a record: everything JSON carries, nothing of how it is kept. */
const asJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe.each([memory, redis])('$name keeps the TaskStore contract', (kind) => {
  test("listTasks: one owner's tasks, newest status first, filtered by context, state and time, a page at a time", async () => {
    const store = await kind.make();
    const at = (minute: number) => `2026-11-24T00:${String(minute).padStart(2, '0')}:00.000Z`;
    /** A task of `owner` in `contextId` whose status is `state` at `minute`. */
    const put = (taskId: string, minute: number, state: 'working' | 'completed', owner?: string, contextId = 'ctx-a') =>
      store.update(taskId, (current) => {
        const record = current ?? { ...created(taskId), owner, task: { ...created(taskId).task, contextId } };
        return { record, events: [{ id: taskId, status: { state, timestamp: at(minute) }, final: state === 'completed' }] };
      });
    await put('t1', 1, 'completed');
    await put('t2', 2, 'working');
    await put('t3', 3, 'completed', undefined, 'ctx-b');
    await put('t4', 4, 'working');
    await put('theirs', 5, 'working', 'someone');
    const list = (query: Partial<Parameters<NonNullable<TaskStore['listTasks']>>[0]> = {}) =>
      store.listTasks!({ owner: undefined, pageSize: 50, ...query });
    const ids = async (query = {}) => (await list(query)).records.map((r) => r.task.id);

    expect(await ids()).toEqual(['t4', 't3', 't2', 't1']);
    expect((await list()).total).toBe(4);
    expect(await ids({ owner: 'someone' })).toEqual(['theirs']);
    expect(await ids({ contextId: 'ctx-b' })).toEqual(['t3']);
    expect(await ids({ state: 'working' })).toEqual(['t4', 't2']);
    expect(await ids({ statusAtOrAfterMs: Date.parse(at(2)) })).toEqual(['t4', 't3', 't2']);
    // A status change moves a task to the front; a chunk does not.
    await put('t1', 6, 'completed');
    await store.update('t2', adding('t2', chunk('t2', { index: 0, parts: [text('x')] })));
    expect(await ids()).toEqual(['t1', 't4', 't3', 't2']);

    const first = await list({ pageSize: 3 });
    expect(first.records.map((r) => r.task.id)).toEqual(['t1', 't4', 't3']);
    expect(first).toMatchObject({ total: 4, next: { taskId: 't3', statusMs: Date.parse(at(3)) } });
    const second = await list({ pageSize: 3, after: first.next });
    expect(second.records.map((r) => r.task.id)).toEqual(['t2']);
    expect(second.total).toBe(4);
    expect(second.next).toBeUndefined();
    // Whole records, as get returns them.
    expect(asJson(second.records[0])).toEqual(asJson(await store.get('t2')));
  });

  test('get answers undefined for an unknown task; update creates it, numbering its events from 1', async () => {
    const store = await kind.make();
    expect(await store.get('new')).toBeUndefined();
    const { record, events } = await store.update('new', adding('new', working('new'), working('new', 'again')));
    expect(events.map((e) => e.id)).toEqual([1, 2]);
    expect(record.lastEventId).toBe(2);
    expect(asJson(await store.get('new'))).toEqual(asJson(record));
    const next = await store.update('new', adding('new', statusEvent('new', 'completed')));
    expect(next.events.map((e) => e.id)).toEqual([3]);
    expect((await store.get('new'))!.task.status.state).toBe('completed');
  });

  test('the store applies the events as applyEvents does: statuses, history, artifacts and their appends, sizes', async () => {
    const store = await kind.make();
    const events: TaskEvent[] = [
      working('fold'),
      chunk('fold', { name: 'report', parts: [text('a')], index: 0, metadata: { a: 1 } }),
      chunk('fold', { parts: [text('b')], index: 0, append: true, metadata: { b: 2 } }),
      chunk('fold', { parts: [text('late')], index: 2 }),
      chunk('fold', { parts: [text('one')], index: 1 }),
      chunk('fold', { parts: [text('c')], index: 0, append: true, lastChunk: true }),
      chunk('fold', { parts: [text('one, again')], index: 1 }),
      statusEvent('fold', 'input-required', agentSays('more?')),
    ];
    // One event per update, as a streaming handler makes them, and all at once: the same record.
    for (const event of events) await store.update('fold', adding('fold', event));
    await store.update('fold-at-once', adding('fold-at-once', ...events.map((e) => ({ ...e, id: 'fold-at-once' }))));
    const expected = asJson(applyEvents(created('fold'), events));
    const stored = asJson((await store.get('fold'))!);
    expect(stored.task).toEqual(expected.task);
    expect(stored.history).toEqual(expected.history);
    expect(stored.bytes).toBe(expected.bytes);
    expect(stored.task.artifacts!.map((a) => a.parts.map((p) => (p as { text: string }).text))).toEqual([
      ['a', 'b', 'c'],
      ['one, again'],
      ['late'],
    ]);
    expect(asJson((await store.get('fold-at-once'))!.task.artifacts)).toEqual(stored.task.artifacts);
  });

  test('the neutral model round-trips: context id, push configs with ids and versions, every state, a reply, whichever replica reads', async () => {
    const store = await kind.make();
    const peer = kind.peer(store);
    const pushConfigs = [
      { id: 'hook-a', url: 'https://hooks.example.test/a', token: 't', protocol: '0.3' },
      { id: 'neutral', url: 'https://hooks.example.test/b', authentication: { schemes: ['Bearer'], credentials: 'c' }, protocol: '0.1.0' },
    ];
    await store.update('model', (current) => ({ record: { ...(current ?? created('model')), pushConfigs }, events: [working('model')] }));
    const reply = statusEvent('model', 'completed', agentSays('hi'));
    reply.reply = true;
    const { record } = await store.update('model', adding('model', reply));
    expect(record.replied).toBe(true);
    for (const reader of [store, peer]) {
      const read = asJson((await reader.get('model'))!);
      expect(read.task.contextId).toBe('session');
      expect(read.task).not.toHaveProperty('sessionId');
      expect(read.pushConfigs).toEqual(pushConfigs);
      expect(read.replied).toBe(true);
      expect(read.history.at(-1)).toEqual(agentSays('hi'));
      expect((await reader.eventsAfter('model', 1))!.map((e) => e.event)).toEqual([asJson(reply)]);
    }
    for (const state of ['rejected', 'auth-required'] as const) {
      await store.update(state, adding(state, statusEvent(state, state, agentSays(state))));
      expect((await peer.get(state))!.task.status.state).toBe(state);
    }
  });

  test('a change that edits the record (a new turn adds a message) and its events are both stored, whichever writer makes them', async () => {
    const store = await kind.make();
    const peer = kind.peer(store);
    const newTurn =
      (says: string, ...events: TaskEvent[]) =>
      (current: TaskRecord | undefined) => {
        const record = current ?? created('turns');
        return {
          record: { ...record, turn: record.turn + 1, history: [...record.history, { role: 'user' as const, parts: [text(says)] }] },
          events,
        };
      };
    await store.update('turns', adding('turns', chunk('turns', { index: 0, parts: [text('a')] })));
    await peer.update('turns', newTurn('again', chunk('turns', { index: 0, append: true, parts: [text('b')] })));
    // The first writer's own view is stale now; the store must not lose the peer's change.
    await store.update('turns', adding('turns', chunk('turns', { index: 0, append: true, parts: [text('c')] })));
    await peer.update('turns', newTurn('last', statusEvent('turns', 'completed', agentSays('done'))));
    const stored = asJson((await store.get('turns'))!);
    expect(stored.turn).toBe(3);
    expect(stored.history.map((m) => (m.parts[0] as { text: string }).text)).toEqual(['hello', 'again', 'last', 'done']);
    expect(stored.task.artifacts).toEqual([{ index: 0, parts: [text('a'), text('b'), text('c')] }]);
    expect(stored.lastEventId).toBe(4);
    expect(asJson(await peer.get('turns'))).toEqual(stored);
  });

  test("what get and eventsAfter return is the caller's own: changing it changes nothing stored", async () => {
    const store = await kind.make();
    await store.update('owned', adding('owned', working('owned'), chunk('owned', { parts: [text('a')], index: 0 })));
    await store.update('owned', adding('owned', chunk('owned', { parts: [text('b')], index: 0, append: true })));
    const before = asJson(await store.get('owned'));
    const replayBefore = asJson(await store.eventsAfter('owned', 0));

    const record = (await store.get('owned'))! as unknown as {
      task: { status: { state: string }; artifacts: { parts: unknown[] }[] };
      history: unknown[];
      turn: number;
    };
    record.task.status.state = 'failed';
    record.task.artifacts[0]!.parts.push(text('smuggled'));
    record.history.push(agentSays('smuggled'));
    record.turn = 99;
    const replay = (await store.eventsAfter('owned', 0))!;
    (replay[2]!.event as { artifact: { parts: unknown[] } }).artifact.parts.push(text('smuggled'));
    (replay[0]!.event as { status: { state: string } }).status.state = 'failed';
    replay.pop();

    expect(asJson(await store.get('owned'))).toEqual(before);
    expect(asJson(await store.eventsAfter('owned', 0))).toEqual(replayBefore);
  });

  test('a change that throws (or whose check throws) changes nothing, tells no subscriber, and its error reaches the caller as thrown', async () => {
    const store = await kind.make();
    await store.update('refused', adding('refused', working('refused')));
    const seen: number[] = [];
    const unsubscribe = await store.subscribe('refused', (event) => seen.push(event.id));
    const refusal = A2AError.taskNotCancelable('refused', 'completed');
    await expect(
      store.update('refused', () => {
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    const tooLarge = new RangeError('too large');
    const checked = store.update('refused', (current) => ({
      record: current!,
      events: [chunk('refused', { parts: [text('x'.repeat(100))], index: 0 })],
      check: (after) => {
        if ((after.bytes ?? 0) > 50) throw tooLarge;
      },
    }));
    await expect(checked).rejects.toBe(tooLarge);
    expect((await store.get('refused'))!.lastEventId).toBe(1);
    expect((await store.get('refused'))!.task.artifacts).toBeUndefined();
    expect((await store.eventsAfter('refused', 0))!.map((e) => e.id)).toEqual([1]);
    // The next change is numbered on from the last stored event: nothing was taken by the refusals.
    await store.update('refused', adding('refused', working('refused', 'after')));
    await eventually(async () => (seen.length === 1 ? true : undefined));
    expect(seen).toEqual([2]);
    unsubscribe();
  });

  test('eventsAfter: undefined for an unknown task, [] when up to date, the exact tail otherwise, undefined past the bounded log', async () => {
    const store = await kind.make({ maxEventsPerTask: 10 });
    expect(await store.eventsAfter('unknown', 0)).toBeUndefined();
    for (let i = 0; i < 300; i++) await store.update('long', adding('long', working('long', `e${i}`)));
    expect(await store.eventsAfter('long', 300)).toEqual([]);
    const tail = (await store.eventsAfter('long', 295))!;
    expect(tail.map((e) => e.id)).toEqual([296, 297, 298, 299, 300]);
    expect(tail.map((e) => e.event.metadata?.note)).toEqual(['e295', 'e296', 'e297', 'e298', 'e299']);
    expect(await store.eventsAfter('long', 0)).toBeUndefined();
  });

  test('subscribers get every later event once, in id order, from concurrent writers too, until they unsubscribe', async () => {
    const store = await kind.make();
    const other = kind.peer(store);
    await store.update('ordered', adding('ordered', working('ordered')));
    const first: number[] = [];
    const second: number[] = [];
    const stopFirst = await store.subscribe('ordered', (event) => first.push(event.id));
    const stopSecond = await other.subscribe('ordered', (event) => second.push(event.id));
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? store : other).update('ordered', adding('ordered', working('ordered', `w${i}`)))),
    );
    const all = Array.from({ length: 40 }, (_, i) => i + 2);
    await eventually(async () => (first.length === 40 && second.length === 40 ? true : undefined));
    expect(first).toEqual(all);
    expect(second).toEqual(all);
    stopFirst();
    await store.update('ordered', adding('ordered', working('ordered', 'late')));
    await eventually(async () => (second.length === 41 ? true : undefined));
    expect(first).toEqual(all);
    stopSecond();
  });

  test('concurrent writers lose nothing: every change is applied once, its events numbered without gaps or repeats', async () => {
    const store = await kind.make();
    const other = kind.peer(store);
    const writes = Array.from({ length: 60 }, (_, i) =>
      (i % 2 ? store : other).update(
        'contended',
        adding('contended', chunk('contended', { parts: [text(`p${i}`)], index: 0, append: true })),
      ),
    );
    const ids = (await Promise.all(writes)).flatMap((result) => result.events.map((e) => e.id));
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const record = (await other.get('contended'))!;
    expect(record.lastEventId).toBe(60);
    const parts = record.task.artifacts![0]!.parts.map((p) => (p as { text: string }).text);
    expect([...parts].sort()).toEqual(Array.from({ length: 60 }, (_, i) => `p${i}`).sort());
    // The artifact holds the parts in the order of the log.
    const log = (await store.eventsAfter('contended', 0))!;
    expect(parts).toEqual(log.map((e) => ((e.event as { artifact: Artifact }).artifact.parts[0] as { text: string }).text));
  });

  if (kind.makeWithTwoSlots) {
    test('a full store refuses a new task with -32011 and keeps nothing of it', async () => {
      const store = await kind.makeWithTwoSlots!();
      await store.update('a', adding('a', working('a')));
      await store.update('b', adding('b', working('b')));
      await expect(store.update('c', adding('c', working('c')))).rejects.toMatchObject({ code: -32011 });
      expect(await store.get('c')).toBeUndefined();
      expect(await store.eventsAfter('c', 0)).toBeUndefined();
    });
  }

  test('through the router: a handler that changes ctx.task, its history or its message changes nothing stored', async () => {
    const store = await kind.make();
    const handler: TaskHandler = async function* (ctx) {
      if (ctx.isNewTask) {
        yield artifact('kept');
        yield completed();
        return;
      }
      const task = ctx.task as unknown as { status: { state: string }; artifacts: { parts: unknown[] }[]; metadata?: unknown };
      task.status.state = 'failed';
      task.artifacts[0]!.parts.push(text('smuggled'));
      task.metadata = { changed: true };
      (ctx.history as Message[]).push(agentSays('smuggled'));
      (ctx.message.parts as unknown[]).push(text('smuggled'));
      yield completed('done');
    };
    const app = express().use(a2aRouter(handler, { card: { name: 'Aliasing', version: '1.0.0' }, logger: silent, store }));
    const id = `aliasing-${kind.name}`;
    await request(app).post('/').send(sendRequest(id, 'first')).expect(200);
    const second = resultOf(
      (
        await request(app)
          .post('/')
          .send(sendRequest(id, 'second', { historyLength: 10 }))
          .expect(200)
      ).body,
    );
    expect(second.status.state).toBe('completed');
    const got = resultOf(
      (
        await request(app)
          .post('/')
          .send(rpcRequest('tasks/get', { id, historyLength: 10 }))
          .expect(200)
      ).body,
    );
    expect(got.status.state).toBe('completed');
    expect(got.metadata).toBeUndefined();
    expect(got.artifacts).toEqual([{ index: 0, parts: [text('kept')] }]);
    expect(got.history!.map((m) => m.parts.map((p) => (p as { text: string }).text).join())).toEqual(['first', 'second', 'done']);
  });
});
