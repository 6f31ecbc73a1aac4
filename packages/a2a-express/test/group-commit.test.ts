// While one write of a turn is in flight, the handler goes on, and the events it yields meanwhile
// are written together in the next write (src/core/turn-writer.ts). A store that costs a round trip
// per write (Redis) is then asked for one per batch of a fast stream, not one per chunk; what is
// stored, and what clients receive, is what one write per event would have given.
import { collect, openStream, rpc, serverPool } from 'a2a-testing';
import type { Artifact, TaskArtifactUpdateEvent } from 'a2a-types';
import { artifact, completed, working, type TaskHandler } from '../src/index.js';
import { InMemoryTaskStore, type TaskChange, type TaskRecord, type TaskUpdateResult } from '../src/store/index.js';
import { appWith, resultOf, userText } from './helpers.js';

const pool = serverPool();
afterAll(pool.closeAll);

/** The in-memory store as it is, counting its writes. */
class CountingStore extends InMemoryTaskStore {
  writes = 0;

  override async update(taskId: string, change: (current: TaskRecord | undefined) => TaskChange): Promise<TaskUpdateResult> {
    this.writes++;
    return super.update(taskId, change);
  }
}

/** The in-memory store, made to take a few milliseconds per write as a networked one does. */
class SlowStore extends InMemoryTaskStore {
  writes = 0;

  override async update(taskId: string, change: (current: TaskRecord | undefined) => TaskChange): Promise<TaskUpdateResult> {
    this.writes++;
    await new Promise((resolve) => setTimeout(resolve, 3));
    return super.update(taskId, change);
  }
}

async function serve(handler: TaskHandler, store: InMemoryTaskStore, options = {}) {
  const { app } = appWith(handler, { store, ...options });
  return (await pool.serve(app)).url;
}

const texts = (a: Artifact) => a.parts.map((p) => (p.type === 'text' ? p.text : '?'));

test('a fast stream is written in batches: every chunk stored and streamed once, in order, with far fewer writes', async () => {
  const chunks = 1_000;
  const store = new SlowStore();
  const url = await serve(async function* () {
    for (let i = 1; i <= chunks; i++) yield artifact(`chunk ${i}`, { append: i > 1 });
    yield completed();
  }, store);
  const stream = await openStream(url, 'tasks/sendSubscribe', { id: 'fast', message: userText('go') }, { eventIds: true });
  const events = await collect(stream);
  // The turn's working status, every chunk, the completed status: ids 1, 2, 3, ... without a gap.
  expect(events.map((e) => Number(e.id))).toEqual(Array.from({ length: chunks + 2 }, (_, i) => i + 1));
  const streamed = events.slice(1, -1).map((e) => (e.message.result as TaskArtifactUpdateEvent).artifact);
  expect(streamed.map((a) => a.parts[0])).toEqual(Array.from({ length: chunks }, (_, i) => ({ type: 'text', text: `chunk ${i + 1}` })));
  expect(streamed.every((a) => a.index === 0)).toBe(true);
  const task = resultOf(await rpc(url, 'tasks/get', { id: 'fast' }));
  expect(task.status.state).toBe('completed');
  expect(texts(task.artifacts![0]!)).toEqual(Array.from({ length: chunks }, (_, i) => `chunk ${i + 1}`));
  // One write opens the turn; one per event would be 1,001 more.
  expect(store.writes).toBeLessThan(chunks / 5);
});

test('chunks without an index get the one they would have had written one by one, within a batch too', async () => {
  const handler: TaskHandler = async function* () {
    yield working();
    yield artifact('a');
    yield artifact('b', { append: true });
    yield artifact('c');
    yield artifact('d', { append: true });
    yield artifact('e', { index: 5 });
    yield artifact('f');
    yield completed();
  };
  const answers: Artifact[][] = [];
  for (const store of [new SlowStore(), new InMemoryTaskStore()]) {
    const url = await serve(handler, store);
    answers.push(resultOf(await rpc(url, 'tasks/send', { id: 'indexes', message: userText('go') })).artifacts!);
  }
  expect(answers[0]!.map((a) => [a.index, texts(a)])).toEqual([
    [0, ['a', 'b']],
    [1, ['c', 'd']],
    [5, ['e']],
    [6, ['f']],
  ]);
  expect(answers[0]).toEqual(answers[1]);
});

test('a batch that would take the task past maxTaskBytes keeps what fits, as one write per chunk does', async () => {
  const handler: TaskHandler = async function* () {
    for (let i = 0; i < 100; i++) yield artifact('y'.repeat(500), { index: 0, append: i > 0 });
    yield completed();
  };
  const kept: number[] = [];
  for (const store of [new SlowStore(), new InMemoryTaskStore()]) {
    const url = await serve(handler, store, { maxTaskBytes: 3_000 });
    const task = resultOf(await rpc(url, 'tasks/send', { id: 'prolix', message: userText('go') }));
    expect(task.status.state).toBe('failed');
    kept.push(task.artifacts![0]!.parts.length);
  }
  expect(kept[0]).toBeGreaterThan(0);
  expect(kept[0]).toBe(kept[1]);
});

test('what a handler yielded before it threw is stored, in order, before the task fails', async () => {
  const store = new SlowStore();
  const url = await serve(async function* () {
    for (let i = 1; i <= 50; i++) yield artifact(`chunk ${i}`, { index: 0, append: i > 1 });
    throw new Error('model went away');
  }, store);
  const task = resultOf(await rpc(url, 'tasks/send', { id: 'broken', message: userText('go') }));
  expect(task.status.state).toBe('failed');
  expect(texts(task.artifacts![0]!)).toEqual(Array.from({ length: 50 }, (_, i) => `chunk ${i + 1}`));
  expect(store.writes).toBeLessThan(50);
});

test('updates a handler yields back to back, without waiting on I/O, go in one write even to a store that answers at once', async () => {
  const store = new CountingStore();
  const url = await serve(async function* () {
    yield working();
    await Promise.resolve();
    for (const word of ['one ', 'two ', 'three']) yield artifact(word, { append: word !== 'one ' });
    yield completed();
  }, store);
  const stream = await openStream(url, 'tasks/sendSubscribe', { id: 'together', message: userText('go') }, { eventIds: true });
  const events = await collect(stream);
  // Every event once, in order: the turn's working status, the handler's status, three chunks, completed.
  expect(events.map((e) => Number(e.id))).toEqual([1, 2, 3, 4, 5, 6]);
  const chunks = events.slice(2, 5).map((e) => (e.message.result as TaskArtifactUpdateEvent).artifact.parts[0]);
  expect(chunks).toEqual(['one ', 'two ', 'three'].map((text) => ({ type: 'text', text })));
  // One write opens the turn, one holds the handler's five updates (one each would be five).
  expect(store.writes).toBe(2);
  const task = resultOf(await rpc(url, 'tasks/get', { id: 'together' }));
  expect(texts(task.artifacts![0]!)).toEqual(['one ', 'two ', 'three']);
});

test('a chunk given its index keeps a field named __proto__ as a field, and no other prototype', async () => {
  const sent = JSON.parse('{"name":"odd","parts":[{"type":"text","text":"a"}],"__proto__":{"kept":true}}') as Artifact;
  const url = await serve(async function* () {
    yield working();
    yield { kind: 'artifact', artifact: sent };
    yield completed();
  }, new InMemoryTaskStore());
  const stored = resultOf(await rpc(url, 'tasks/send', { id: 'proto-field', message: userText('go') })).artifacts![0]!;
  expect(Object.keys(stored)).toEqual(['name', 'parts', '__proto__', 'index']);
  expect(Object.getOwnPropertyDescriptor(stored, '__proto__')?.value).toEqual({ kept: true });
  expect(stored.index).toBe(0);
});
