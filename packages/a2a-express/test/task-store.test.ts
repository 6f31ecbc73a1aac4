import { setTimeout as sleep } from 'node:timers/promises';
import type { Artifact } from 'a2a-types';
import { A2AError, type TaskState } from '../src/index.js';
import { InMemoryTaskStore, applyEvents, mergeArtifact, type TaskRecord } from '../src/store/index.js';

function record(id: string, state: TaskState): TaskRecord {
  return { task: { id, status: { state } }, history: [], lastEventId: 0, turn: 1, updatedAt: Date.now() };
}

async function put(store: InMemoryTaskStore, id: string, state: TaskState) {
  return store.update(id, (current) => ({
    record: { ...(current ?? record(id, state)), task: { id, status: { state } } },
    events: [{ id, status: { state }, final: state !== 'working' }],
  }));
}

describe('InMemoryTaskStore', () => {
  const stores: InMemoryTaskStore[] = [];
  const make = (options: ConstructorParameters<typeof InMemoryTaskStore>[0]) => {
    const store = new InMemoryTaskStore(options);
    stores.push(store);
    return store;
  };
  afterAll(() => Promise.all(stores.map((s) => s.close())));

  test('numbers events per task and keeps them for replay', async () => {
    const store = make({});
    const first = await put(store, 'a', 'working');
    const second = await put(store, 'a', 'completed');
    expect(first.events.map((e) => e.id)).toEqual([1]);
    expect(second.events.map((e) => e.id)).toEqual([2]);
    expect(second.record.lastEventId).toBe(2);
    expect((await store.eventsAfter('a', 0))?.map((e) => e.id)).toEqual([1, 2]);
    expect(await store.eventsAfter('a', 2)).toEqual([]);
  });

  test('a change that throws changes nothing', async () => {
    const store = make({});
    await put(store, 'kept', 'working');
    await expect(store.update('kept', () => { throw A2AError.internalError(); })).rejects.toThrow(A2AError);
    expect((await store.get('kept'))?.lastEventId).toBe(1);
  });

  test('holds at most maxTasks: the oldest idle task makes room', async () => {
    const store = make({ maxTasks: 3 });
    await put(store, 'old-done', 'completed');
    await put(store, 'running', 'working');
    await put(store, 'new-done', 'completed');
    await put(store, 'newest', 'working');
    expect(store.size).toBe(3);
    expect(await store.get('old-done')).toBeUndefined();
    expect(await store.get('running')).toBeDefined();
    expect(await store.get('new-done')).toBeDefined();
  });

  test('when every slot holds a running task, a new task is refused with -32011', async () => {
    const store = make({ maxTasks: 2 });
    await put(store, 'r1', 'working');
    await put(store, 'r2', 'working');
    await expect(put(store, 'r3', 'working')).rejects.toMatchObject({ code: -32011 });
    expect(store.size).toBe(2);
  });

  test('idle tasks expire after retentionMs; running ones stay', async () => {
    const store = make({ retentionMs: 40 });
    await put(store, 'finished', 'completed');
    await put(store, 'paused', 'input-required');
    await put(store, 'busy', 'working');
    await sleep(60);
    expect(await store.get('finished')).toBeUndefined();
    expect(await store.get('paused')).toBeUndefined();
    expect(await store.get('busy')).toBeDefined();
  });

  test('keeps at most maxEventsPerTask events; older replays are unavailable', async () => {
    const store = make({ maxEventsPerTask: 3 });
    for (let i = 0; i < 5; i++) await put(store, 'chatty', 'working');
    expect((await store.eventsAfter('chatty', 1))).toBeUndefined();
    expect((await store.eventsAfter('chatty', 2))?.map((e) => e.id)).toEqual([3, 4, 5]);
  });

  test('subscribers get each event once, until they unsubscribe', async () => {
    const store = make({});
    const seen: number[] = [];
    const unsubscribe = await store.subscribe('s', (e) => seen.push(e.id));
    await put(store, 's', 'working');
    unsubscribe();
    await put(store, 's', 'completed');
    expect(seen).toEqual([1]);
  });

  test.each([0, -1, NaN])('refuses a bound of %p', (value) => {
    expect(() => new InMemoryTaskStore({ maxTasks: value })).toThrow(TypeError);
  });
});

describe('artifact assembly', () => {
  const text = (t: string) => ({ type: 'text' as const, text: t });

  test('append adds parts to the artifact with the same index; otherwise it replaces', () => {
    let artifacts = mergeArtifact([], { name: 'a', parts: [text('1')], index: 0 });
    artifacts = mergeArtifact(artifacts, { parts: [text('2')], index: 0, append: true, lastChunk: true });
    expect(artifacts).toEqual([{ name: 'a', parts: [text('1'), text('2')], index: 0 }]);
    artifacts = mergeArtifact(artifacts, { name: 'b', parts: [text('new')], index: 0 });
    expect(artifacts).toEqual([{ name: 'b', parts: [text('new')], index: 0 }]);
  });

  test('artifacts stay sorted by index, whatever order they arrive in', () => {
    let artifacts = mergeArtifact([], { parts: [text('two')], index: 2 });
    artifacts = mergeArtifact(artifacts, { parts: [text('zero')], index: 0 });
    artifacts = mergeArtifact(artifacts, { parts: [text('one')], index: 1 });
    expect(artifacts.map((a) => a.index)).toEqual([0, 1, 2]);
  });

  test('appends share storage, yet each record keeps exactly its own parts', () => {
    const first = mergeArtifact([], { parts: [text('a')], index: 0 });
    const second = mergeArtifact(first, { parts: [text('b')], index: 0, append: true });
    const third = mergeArtifact(second, { parts: [text('c')], index: 0, append: true });
    expect(second[0]!.parts).toEqual([text('a'), text('b')]);
    expect(third[0]!.parts).toEqual([text('a'), text('b'), text('c')]);
    // Appending again to the older record branches off without touching the newer one.
    const branch = mergeArtifact(second, { parts: [text('x')], index: 0, append: true });
    expect(branch[0]!.parts).toEqual([text('a'), text('b'), text('x')]);
    expect(third[0]!.parts).toEqual([text('a'), text('b'), text('c')]);
    // What a reader takes never grows under it.
    const held = third[0]!.parts;
    mergeArtifact(third, { parts: [text('d')], index: 0, append: true });
    expect(held).toHaveLength(3);
    // Serialized and copied, it is a plain artifact.
    expect(JSON.parse(JSON.stringify(third[0]))).toEqual({ parts: [text('a'), text('b'), text('c')], index: 0 });
    expect({ ...third[0]! }.parts).toEqual([text('a'), text('b'), text('c')]);
  });

  test('appends keep every field of the artifact, including ones the schema does not name', () => {
    const start = { parts: [text('a')], index: 0, name: 'report', metadata: { a: 1 }, 'x-origin': 'tool' } as Artifact;
    let artifacts = mergeArtifact([], start);
    artifacts = mergeArtifact(artifacts, { parts: [text('b')], index: 0, append: true, description: 'late', metadata: { b: 2 } });
    artifacts = mergeArtifact(artifacts, { parts: [text('c')], index: 0, append: true, lastChunk: true, name: 'ignored' });
    expect(JSON.parse(JSON.stringify(artifacts))).toStrictEqual([
      { index: 0, name: 'report', description: 'late', metadata: { a: 1, b: 2 }, 'x-origin': 'tool', parts: [text('a'), text('b'), text('c')] },
    ]);
  });

  test('an append to an index with no artifact starts it', () => {
    expect(mergeArtifact([], { parts: [text('x')], index: 3, append: true })).toEqual([{ parts: [text('x')], index: 3 }]);
  });

  test('status events with a message add it to the history', () => {
    const next = applyEvents(record('h', 'working'), [
      { id: 'h', status: { state: 'working', message: { role: 'agent', parts: [text('hm')] } }, final: false },
      { id: 'h', status: { state: 'completed' }, final: true },
    ]);
    expect(next.history).toEqual([{ role: 'agent', parts: [text('hm')] }]);
    expect(next.task.status.state).toBe('completed');
  });
});
