// a2a-express/testing: the TaskStore contract (store/task-store.ts) as a suite anyone can run on a
// store of their own, from their own test runner (Jest, Vitest, Mocha, node:test: anything with
// `describe` and `test` or `it`). The kit's own stores run it from here. It asserts with
// node:assert, and bounds every wait it makes, so that it needs nothing of the runner but the
// two functions.
//
//   import { storeContract } from 'a2a-express/testing';
//   storeContract({ name: 'MyStore', create: (bounds) => new MyStore({ ...bounds }) });
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Artifact, Message } from 'a2a-types/model';
import { A2AError } from 'a2a-types/model';
import express from 'express';
import { pino } from 'pino';
import { statusEvent } from './core/task-events.js';
import { artifact, completed, type TaskHandler } from './core/handler.js';
import { a2aRouter } from './router.js';
import { applyEvents, type TaskEvent, type TaskRecord, type TaskStore } from './store/index.js';
import { hasTurnQueue, QUEUED_HOLDER, type QueuedTurn } from './store/task-store.js';

/** The store a suite is run on, and how to make more of it. */
export interface StoreUnderTest {
  /** What the suite's `describe` calls it. */
  readonly name: string;
  /**
   * A store on fresh, empty data. With `bounds`, one that keeps at most `maxEventsPerTask` events
   * of a task (the older ones dropped, as `eventsAfter` then says). The suite closes it.
   */
  create(bounds?: { maxEventsPerTask: number }): TaskStore | Promise<TaskStore>;
  /**
   * A second store on the same data as `store`: another replica of a shared store, whose writes
   * and subscriptions must meet the first one's. Default: `store` itself (a store of one process).
   */
  peer?(store: TaskStore): TaskStore | Promise<TaskStore>;
  /** For a bounded store: one on fresh data that holds two tasks at most. Its refusal of a third is checked. */
  createWithTwoSlots?(): TaskStore | Promise<TaskStore>;
  /** Called after each test, once its stores are closed: removes what the test left (keys, rows). */
  cleanup?(): void | Promise<void>;
}

/** What the suite needs of a test runner. `it` stands for `test` where a runner names it so. */
export interface TestRunner {
  describe(name: string, body: () => void): unknown;
  test(name: string, body: () => Promise<void>): unknown;
}

/**
 * Registers the contract's tests for `store` with the runner (default: the global `describe` and
 * `test` or `it`). Each test makes its own stores and closes them.
 */
export function storeContract(store: StoreUnderTest, runner: TestRunner = globalRunner()): void {
  runner.describe(`${store.name} keeps the TaskStore contract`, () => {
    for (const [name, body] of CHECKS) {
      if (name === FULL_STORE && !store.createWithTwoSlots) continue;
      runner.test(name, async () => {
        const opened: TaskStore[] = [];
        const keep = async (made: TaskStore | Promise<TaskStore>) => {
          const ready = await made;
          if (!opened.includes(ready)) opened.push(ready);
          return ready;
        };
        const kit: Kit = {
          make: (bounds) => keep(store.create(bounds)),
          peer: (of) => (store.peer ? keep(store.peer(of)) : Promise.resolve(of)),
          makeWithTwoSlots: () => keep(store.createWithTwoSlots!()),
        };
        try {
          await body(kit, store.name);
        } finally {
          await Promise.all(opened.map((made) => made.close()));
          await store.cleanup?.();
        }
      });
    }
  });
}

function globalRunner(): TestRunner {
  const globals = globalThis as { describe?: TestRunner['describe']; test?: TestRunner['test']; it?: TestRunner['test'] };
  const test = globals.test ?? globals.it;
  if (!globals.describe || !test) {
    throw new TypeError('storeContract: no global describe and test (or it); pass them: storeContract(store, { describe, test })');
  }
  return { describe: globals.describe, test };
}

interface Kit {
  make(bounds?: { maxEventsPerTask: number }): Promise<TaskStore>;
  peer(store: TaskStore): Promise<TaskStore>;
  makeWithTwoSlots(): Promise<TaskStore>;
}

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
const textsOf = (parts: readonly unknown[]) => parts.map((part) => (part as { text: string }).text);

/** What a client could see of a value: everything JSON carries, nothing of how it is kept. */
const asJson = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

/** Polls `done` every 10 ms until it holds, for at most 5 s. */
async function eventually(what: string, done: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 5_000; !done(); ) {
    if (Date.now() > deadline) assert.fail(`${what}: not within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const FULL_STORE = 'a full store refuses a new task with -32011 and keeps nothing of it';

/** The contract, check by check. */
const CHECKS: readonly (readonly [string, (kit: Kit, storeName: string) => Promise<void>])[] = [
  [
    'the turn queue (when the store has one): the change that makes a turn queued adds one entry, which one worker of several takes, until it is settled',
    async ({ make, peer }) => {
      const store = await make();
      // Optional: a store without it serves role 'all' only (docs/replicas.md).
      if (!hasTurnQueue(store)) return;
      const other = await peer(store);
      if (!hasTurnQueue(other)) assert.fail('a peer of a store with a turn queue has one too');
      const opening = { messageAt: 0, isNewTask: true, configuration: {} };
      await store.update('queued-turn', (current) => ({
        record: { ...(current ?? created('queued-turn')), attempt: 1, holder: QUEUED_HOLDER, opening },
        events: [working('queued-turn')],
      }));
      // A further change of the turn while it waits is no second entry.
      await other.update('queued-turn', (current) => ({ record: current!, events: [working('queued-turn', 'still waiting')] }));
      assert.equal((await other.queueFigures()).depth, 1, 'one entry for the queued turn');
      const takes = await Promise.all([
        store.takeQueuedTurns('worker-a', 5, 0),
        other.takeQueuedTurns('worker-b', 5, 0),
        store.takeQueuedTurns('worker-c', 5, 0),
      ]);
      const taken = takes.flat();
      assert.equal(taken.length, 1, 'one worker of three takes the entry');
      const entry: QueuedTurn = taken[0]!;
      assert.deepEqual({ taskId: entry.taskId, turn: entry.turn, attempt: entry.attempt }, { taskId: 'queued-turn', turn: 1, attempt: 1 });
      assert.deepEqual(await other.takeQueuedTurns('worker-d', 5, 0), [], 'a taken entry is not taken again within a lease');
      // Claimed (the holder is now a process): settled, the entry is gone.
      await store.update('queued-turn', (current) => ({ record: { ...current!, holder: 'worker-a' }, events: [] }));
      await store.settleQueuedTurn(entry);
      assert.equal((await other.queueFigures()).depth, 0, 'no entry once settled');
      // Queued again (its worker lost, its next attempt): a new entry.
      await other.update('queued-turn', (current) => ({ record: { ...current!, attempt: 2, holder: QUEUED_HOLDER }, events: [] }));
      const again = await store.takeQueuedTurns('worker-e', 5, 2_000);
      assert.deepEqual(
        again.map(({ taskId, turn, attempt }) => ({ taskId, turn, attempt })),
        [{ taskId: 'queued-turn', turn: 1, attempt: 2 }],
      );
      await store.settleQueuedTurn(again[0]!);
    },
  ],
  [
    "worker heartbeats (when the store has a turn queue): a worker counts as alive, to every replica, until its heartbeat's time ends or it says it stopped",
    async ({ make, peer }) => {
      const store = await make();
      if (!hasTurnQueue(store)) return;
      const other = (await peer(store)) as typeof store;
      assert.equal(await other.liveWorkers(), 0);
      await store.heartbeatWorker('worker-a', 60_000);
      await other.heartbeatWorker('worker-b', 60_000);
      await other.heartbeatWorker('worker-b', 60_000);
      await store.heartbeatWorker('worker-c', 200);
      assert.equal(await store.liveWorkers(), 3);
      await store.heartbeatWorker('worker-a', 0);
      // worker-c's heartbeat ends (polled: when is the store's clock's).
      for (const deadline = Date.now() + 5_000; (await other.liveWorkers()) !== 1; ) {
        if (Date.now() > deadline) assert.fail('a worker that stopped, or whose heartbeat ended, still counted after 5 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  ],
  [
    'claimIdempotencyKey (when the store has it): of claims at once from every replica one wins, the others read it, until its window ends',
    async ({ make, peer }) => {
      const store = await make();
      // Optional: a store without it leaves retries of new tasks to each process (docs/idempotency.md).
      if (!store.claimIdempotencyKey) return;
      const other = await peer(store);
      const claimOn = (on: TaskStore, key: string, i: number, windowMs = 60_000) =>
        on.claimIdempotencyKey!(key, { taskId: `task-${i}`, messageId: `message-${i}` }, windowMs);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => claimOn(i % 2 === 0 ? store : other, 'raced', i)));
      const won = answers.flatMap((answer, i) => (answer === undefined ? [i] : []));
      assert.equal(won.length, 1, 'one claim of eight wins');
      const winner = { taskId: `task-${won[0]}`, messageId: `message-${won[0]}` };
      for (const answer of answers) if (answer !== undefined) assert.deepEqual(asJson(answer), winner);
      // Held: a later claim reads it, unchanged; another key is a claim of its own.
      assert.deepEqual(asJson(await claimOn(other, 'raced', 9)), winner);
      assert.equal(await claimOn(store, 'another', 10), undefined);
      // A claim whose window ended is claimed anew (polled: when it ends is the store's clock's).
      assert.equal(await claimOn(store, 'brief', 11, 200), undefined);
      let claimedAgain = false;
      for (const deadline = Date.now() + 5_000; !claimedAgain; ) {
        if (Date.now() > deadline) assert.fail('a claim of a 200 ms window still held after 5 s');
        claimedAgain = (await claimOn(other, 'brief', 12)) === undefined;
        if (!claimedAgain) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(asJson(await claimOn(store, 'brief', 13)), { taskId: 'task-12', messageId: 'message-12' });
    },
  ],
  [
    "listTasks: one owner's tasks, newest status first, filtered by context, state and time, a page at a time",
    async ({ make }) => {
      const store = await make();
      assert.ok(store.listTasks, 'the store lists tasks (listTasks)');
      const at = (minute: number) => `2026-11-24T00:${String(minute).padStart(2, '0')}:00.000Z`;
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

      assert.deepEqual(await ids(), ['t4', 't3', 't2', 't1']);
      assert.equal((await list()).total, 4);
      assert.deepEqual(await ids({ owner: 'someone' }), ['theirs']);
      assert.deepEqual(await ids({ contextId: 'ctx-b' }), ['t3']);
      assert.deepEqual(await ids({ state: 'working' }), ['t4', 't2']);
      assert.deepEqual(await ids({ statusAtOrAfterMs: Date.parse(at(2)) }), ['t4', 't3', 't2']);
      // A status change moves a task to the front; a chunk does not.
      await put('t1', 6, 'completed');
      await store.update('t2', adding('t2', chunk('t2', { index: 0, parts: [text('x')] })));
      assert.deepEqual(await ids(), ['t1', 't4', 't3', 't2']);

      const first = await list({ pageSize: 3 });
      assert.deepEqual(
        first.records.map((r) => r.task.id),
        ['t1', 't4', 't3'],
      );
      assert.equal(first.total, 4);
      assert.deepEqual(first.next, { taskId: 't3', statusMs: Date.parse(at(3)) });
      const second = await list({ pageSize: 3, after: first.next });
      assert.deepEqual(
        second.records.map((r) => r.task.id),
        ['t2'],
      );
      assert.equal(second.total, 4);
      assert.equal(second.next, undefined);
      // Whole records, as get returns them.
      assert.deepEqual(asJson(second.records[0]), asJson(await store.get('t2')));
    },
  ],
  [
    "what a turn keeps to be resumed (its attempt, the process running it, its attempts handed over, its opening, its checkpoint) is kept as written, and a change's checkpoint with its events",
    async ({ make, peer }) => {
      const store = await make();
      const opening = {
        messageAt: 0,
        isNewTask: true,
        configuration: { acceptedOutputModes: ['text/plain'] },
        metadata: { trace: 'x' },
        call: { protocol: '1.0', binding: 'jsonrpc', method: 'SendMessage', headers: { 'user-agent': 'ua' }, extensions: [] },
      };
      await store.update('resumable', (current) => ({
        record: { ...(current ?? created('resumable')), attempt: 1, holder: 'process-a', opening },
        events: [working('resumable')],
      }));
      const step = (n: number) =>
        store.update('resumable', (current) => ({
          record: { ...current!, checkpoint: { chunksSent: n, note: null } },
          events: [chunk('resumable', { index: 0, append: n > 1, parts: [text(`chunk ${n}`)] })],
        }));
      await step(1);
      await step(2);
      // Another process takes the turn over: its next attempt, in its name (handed over to it: not counted against maxAttempts).
      const other = await peer(store);
      await other.update('resumable', (current) => ({
        record: { ...current!, attempt: 2, holder: 'process-b', handOvers: 1 },
        events: [],
      }));
      for (const reader of [store, other]) {
        const read = asJson(await reader.get('resumable'))!;
        assert.equal(read.attempt, 2);
        assert.equal(read.holder, 'process-b');
        assert.equal(read.handOvers, 1);
        assert.deepEqual(read.opening, opening);
        assert.deepEqual(read.checkpoint, { chunksSent: 2, note: null });
        assert.deepEqual(textsOf(read.task.artifacts![0]!.parts), ['chunk 1', 'chunk 2']);
      }
    },
  ],
  [
    'get answers undefined for an unknown task; update creates it, numbering its events from 1',
    async ({ make }) => {
      const store = await make();
      assert.equal(await store.get('new'), undefined);
      const { record, events } = await store.update('new', adding('new', working('new'), working('new', 'again')));
      assert.deepEqual(
        events.map((e) => e.id),
        [1, 2],
      );
      assert.equal(record.lastEventId, 2);
      assert.deepEqual(asJson(await store.get('new')), asJson(record));
      const next = await store.update('new', adding('new', statusEvent('new', 'completed')));
      assert.deepEqual(
        next.events.map((e) => e.id),
        [3],
      );
      assert.equal((await store.get('new'))!.task.status.state, 'completed');
    },
  ],
  [
    'the store applies the events as applyEvents does: statuses, history, artifacts and their appends, sizes',
    async ({ make }) => {
      const store = await make();
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
      assert.deepEqual(stored.task, expected.task);
      assert.deepEqual(stored.history, expected.history);
      assert.equal(stored.bytes, expected.bytes);
      assert.deepEqual(
        stored.task.artifacts!.map((a) => textsOf(a.parts)),
        [['a', 'b', 'c'], ['one, again'], ['late']],
      );
      assert.deepEqual(asJson((await store.get('fold-at-once'))!.task.artifacts), stored.task.artifacts);
    },
  ],
  [
    'the neutral model round-trips: context id, push configs with ids and versions, every state, a reply, whichever replica reads',
    async ({ make, peer: peerOf }) => {
      const store = await make();
      const peer = await peerOf(store);
      const pushConfigs = [
        { id: 'hook-a', url: 'https://hooks.example.test/a', token: 't', protocol: '0.3' },
        {
          id: 'neutral',
          url: 'https://hooks.example.test/b',
          authentication: { schemes: ['Bearer'], credentials: 'c' },
          protocol: '0.1.0',
        },
      ];
      await store.update('model', (current) => ({ record: { ...(current ?? created('model')), pushConfigs }, events: [working('model')] }));
      const reply = statusEvent('model', 'completed', agentSays('hi'));
      reply.reply = true;
      const { record } = await store.update('model', adding('model', reply));
      assert.equal(record.replied, true);
      for (const reader of [store, peer]) {
        const read = asJson((await reader.get('model'))!);
        assert.equal(read.task.contextId, 'session');
        assert.equal('sessionId' in read.task, false);
        assert.deepEqual(read.pushConfigs, pushConfigs);
        assert.equal(read.replied, true);
        assert.deepEqual(read.history.at(-1), agentSays('hi'));
        assert.deepEqual(
          (await reader.eventsAfter('model', 1))!.map((e) => e.event),
          [asJson(reply)],
        );
      }
      for (const state of ['rejected', 'auth-required'] as const) {
        await store.update(state, adding(state, statusEvent(state, state, agentSays(state))));
        assert.equal((await peer.get(state))!.task.status.state, state);
      }
    },
  ],
  [
    'a change that edits the record (a new turn adds a message) and its events are both stored, whichever writer makes them',
    async ({ make, peer: peerOf }) => {
      const store = await make();
      const peer = await peerOf(store);
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
      assert.equal(stored.turn, 3);
      assert.deepEqual(
        stored.history.map((m) => textsOf(m.parts)[0]),
        ['hello', 'again', 'last', 'done'],
      );
      assert.deepEqual(stored.task.artifacts, [{ index: 0, parts: [text('a'), text('b'), text('c')] }]);
      assert.equal(stored.lastEventId, 4);
      assert.deepEqual(asJson(await peer.get('turns')), stored);
    },
  ],
  [
    "what get and eventsAfter return is the caller's own: changing it changes nothing stored",
    async ({ make }) => {
      const store = await make();
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

      assert.deepEqual(asJson(await store.get('owned')), before);
      assert.deepEqual(asJson(await store.eventsAfter('owned', 0)), replayBefore);
    },
  ],
  [
    'a change that throws (or whose check throws) changes nothing, tells no subscriber, and its error reaches the caller as thrown',
    async ({ make }) => {
      const store = await make();
      await store.update('refused', adding('refused', working('refused')));
      const seen: number[] = [];
      const unsubscribe = await store.subscribe('refused', (event) => seen.push(event.id));
      const refusal = A2AError.taskNotCancelable('refused', 'completed');
      await assert.rejects(
        store.update('refused', () => {
          throw refusal;
        }),
        (error) => error === refusal,
      );
      const tooLarge = new RangeError('too large');
      const checked = store.update('refused', (current) => ({
        record: current!,
        events: [chunk('refused', { parts: [text('x'.repeat(100))], index: 0 })],
        check: (after) => {
          if ((after.bytes ?? 0) > 50) throw tooLarge;
        },
      }));
      await assert.rejects(checked, (error) => error === tooLarge);
      assert.equal((await store.get('refused'))!.lastEventId, 1);
      assert.equal((await store.get('refused'))!.task.artifacts, undefined);
      assert.deepEqual(
        (await store.eventsAfter('refused', 0))!.map((e) => e.id),
        [1],
      );
      // The next change is numbered on from the last stored event: nothing was taken by the refusals.
      await store.update('refused', adding('refused', working('refused', 'after')));
      await eventually('the subscriber told of the next change', () => seen.length === 1);
      assert.deepEqual(seen, [2]);
      unsubscribe();
    },
  ],
  [
    'eventsAfter: undefined for an unknown task, [] when up to date, the exact tail otherwise, undefined past the bounded log',
    async ({ make }) => {
      const store = await make({ maxEventsPerTask: 10 });
      assert.equal(await store.eventsAfter('unknown', 0), undefined);
      for (let i = 0; i < 300; i++) await store.update('long', adding('long', working('long', `e${i}`)));
      assert.deepEqual(await store.eventsAfter('long', 300), []);
      const tail = (await store.eventsAfter('long', 295))!;
      assert.deepEqual(
        tail.map((e) => e.id),
        [296, 297, 298, 299, 300],
      );
      assert.deepEqual(
        tail.map((e) => e.event.metadata?.note),
        ['e295', 'e296', 'e297', 'e298', 'e299'],
      );
      assert.equal(await store.eventsAfter('long', 0), undefined);
    },
  ],
  [
    'subscribers get every later event once, in id order, from concurrent writers too, until they unsubscribe',
    async ({ make, peer: peerOf }) => {
      const store = await make();
      const other = await peerOf(store);
      await store.update('ordered', adding('ordered', working('ordered')));
      const first: number[] = [];
      const second: number[] = [];
      const stopFirst = await store.subscribe('ordered', (event) => first.push(event.id));
      const stopSecond = await other.subscribe('ordered', (event) => second.push(event.id));
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? store : other).update('ordered', adding('ordered', working('ordered', `w${i}`)))),
      );
      const all = Array.from({ length: 40 }, (_, i) => i + 2);
      await eventually('both subscribers told of 40 events', () => first.length === 40 && second.length === 40);
      assert.deepEqual(first, all);
      assert.deepEqual(second, all);
      stopFirst();
      await store.update('ordered', adding('ordered', working('ordered', 'late')));
      await eventually('the subscriber still there told of the late event', () => second.length === 41);
      assert.deepEqual(first, all);
      stopSecond();
    },
  ],
  [
    'concurrent writers lose nothing: every change is applied once, its events numbered without gaps or repeats',
    async ({ make, peer: peerOf }) => {
      const store = await make();
      const other = await peerOf(store);
      const writes = Array.from({ length: 60 }, (_, i) =>
        (i % 2 ? store : other).update(
          'contended',
          adding('contended', chunk('contended', { parts: [text(`p${i}`)], index: 0, append: true })),
        ),
      );
      const ids = (await Promise.all(writes)).flatMap((result) => result.events.map((e) => e.id));
      assert.deepEqual(
        [...ids].sort((a, b) => a - b),
        Array.from({ length: 60 }, (_, i) => i + 1),
      );
      const record = (await other.get('contended'))!;
      assert.equal(record.lastEventId, 60);
      const parts = textsOf(record.task.artifacts![0]!.parts);
      assert.deepEqual([...parts].sort(), Array.from({ length: 60 }, (_, i) => `p${i}`).sort());
      // The artifact holds the parts in the order of the log.
      const log = (await store.eventsAfter('contended', 0))!;
      assert.deepEqual(
        parts,
        log.map((e) => textsOf((e.event as { artifact: Artifact }).artifact.parts)[0]),
      );
    },
  ],
  [
    FULL_STORE,
    async ({ makeWithTwoSlots }) => {
      const store = await makeWithTwoSlots();
      await store.update('a', adding('a', working('a')));
      await store.update('b', adding('b', working('b')));
      await assert.rejects(store.update('c', adding('c', working('c'))), (error) => (error as { code?: number }).code === -32011);
      assert.equal(await store.get('c'), undefined);
      assert.equal(await store.eventsAfter('c', 0), undefined);
    },
  ],
  [
    'through the router: a handler that changes ctx.task, its history or its message changes nothing stored',
    async ({ make }, storeName) => {
      const store = await make();
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
      const router = a2aRouter(handler, { card: { name: 'Aliasing', version: '1.0.0' }, logger: pino({ level: 'silent' }), store });
      const server = express().use(router).listen(0, '127.0.0.1');
      try {
        await new Promise((resolve) => server.once('listening', resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
        const call = async (method: string, params: unknown) => {
          const response = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
            signal: AbortSignal.timeout(10_000),
          });
          // Parsed here, not by fetch: a runner's sandbox (Jest's) has objects of its own realm.
          const body = JSON.parse(await response.text()) as { result?: Record<string, unknown>; error?: unknown };
          assert.equal(body.error, undefined, `${method} answered an error`);
          return body.result as {
            status: { state: string };
            metadata?: unknown;
            artifacts?: unknown[];
            history?: { parts: unknown[] }[];
          };
        };
        const id = `aliasing-${storeName}`;
        const user = (said: string) => ({ role: 'user', parts: [text(said)] });
        await call('tasks/send', { id, message: user('first') });
        assert.equal((await call('tasks/send', { id, message: user('second'), historyLength: 10 })).status.state, 'completed');
        const got = await call('tasks/get', { id, historyLength: 10 });
        assert.equal(got.status.state, 'completed');
        assert.equal(got.metadata, undefined);
        assert.deepEqual(got.artifacts, [{ index: 0, parts: [text('kept')] }]);
        assert.deepEqual(
          got.history!.map((m) => textsOf(m.parts).join()),
          ['first', 'second', 'done'],
        );
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await router.close();
      }
    },
  ],
];
