import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { runCommand } from 'a2a-testing';
import type { Artifact } from 'a2a-types';
import type { TaskState } from '../src/index.js';
import { mergeGrowingArtifact } from '../src/store/growing-artifacts.js';
import { InMemoryTaskStore, applyEvents, mergeArtifact, type TaskRecord } from '../src/store/index.js';

function record(id: string, state: TaskState): TaskRecord {
  return { task: { id, contextId: id, status: { state } }, history: [], lastEventId: 0, turn: 1, updatedAt: Date.now() };
}

async function put(store: InMemoryTaskStore, id: string, state: TaskState) {
  return store.update(id, (current) => ({
    record: current ?? record(id, state),
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

  test("the in-memory store's appends share storage, yet each record keeps exactly its own parts, as a frozen array", () => {
    const mergeArtifact = mergeGrowingArtifact;
    const first = mergeArtifact([], { parts: [text('a')], index: 0 });
    const second = mergeArtifact(first, { parts: [text('b')], index: 0, append: true });
    const third = mergeArtifact(second, { parts: [text('c')], index: 0, append: true });
    // A reader sees one frozen array, the same on every read: changing it throws, never a silent no-op.
    expect(third[0]!.parts).toBe(third[0]!.parts);
    expect(() => (third[0]!.parts as unknown as unknown[]).push(text('z'))).toThrow(TypeError);
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

  test.each([
    ['mergeArtifact', mergeArtifact],
    ['the in-memory store', mergeGrowingArtifact],
  ])('appends keep every field of the artifact, including ones the schema does not name (%s)', (_name, mergeArtifact) => {
    const start = { parts: [text('a')], index: 0, name: 'report', metadata: { a: 1 }, 'x-origin': 'tool' } as Artifact;
    let artifacts = mergeArtifact([], start);
    artifacts = mergeArtifact(artifacts, { parts: [text('b')], index: 0, append: true, description: 'late', metadata: { b: 2 } });
    artifacts = mergeArtifact(artifacts, { parts: [text('c')], index: 0, append: true, lastChunk: true, name: 'ignored' });
    expect(JSON.parse(JSON.stringify(artifacts))).toStrictEqual([
      {
        index: 0,
        name: 'report',
        description: 'late',
        metadata: { a: 1, b: 2 },
        'x-origin': 'tool',
        parts: [text('a'), text('b'), text('c')],
      },
    ]);
  });

  test("a batch of appends folds as each chunk would alone (the in-memory store's merge grows its own artifact in place), and leaves the record before it as it was", () => {
    const chunk = (parts: string, fields: Partial<Artifact> = {}) => ({
      id: 'b',
      artifact: { parts: [text(parts)], index: 0, append: true, ...fields },
    });
    const before = applyEvents(
      record('b', 'working'),
      [{ id: 'b', artifact: { parts: [text('a')], index: 0 } }, chunk('b')],
      mergeGrowingArtifact,
    );
    const heldParts = before.task.artifacts![0]!.parts;
    // Later chunks bring a field the artifact lacks (it goes where a fresh artifact has it) and
    // metadata merged over the batch; the second artifact starts and grows within the batch.
    const batch = [
      chunk('c'),
      chunk('d', { metadata: { d: 1 } }),
      chunk('e', { description: 'late', metadata: { e: 2 } }),
      chunk('f', { name: 'named', metadata: { d: 3 } }),
      chunk('g', { metadata: { g: 4 } }),
      chunk('h'),
      { id: 'b', artifact: { parts: [text('x')], index: 1 } },
      { id: 'b', artifact: { parts: [text('y')], index: 1, append: true } },
      { id: 'b', artifact: { parts: [text('z')], index: 1, append: true, lastChunk: true } },
    ];
    const batched = applyEvents(before, batch, mergeGrowingArtifact);
    let oneByOne = before;
    for (const event of batch) oneByOne = applyEvents(oneByOne, [event], mergeArtifact);
    // The same text: the same fields, values and order.
    expect(JSON.stringify(batched.task.artifacts)).toBe(JSON.stringify(oneByOne.task.artifacts));
    expect(batched.task.artifacts![0]!.parts.map((p) => (p as { text: string }).text).join('')).toBe('abcdefgh');
    expect(batched.bytes).toBe(oneByOne.bytes);
    expect(before.task.artifacts![0]!.parts).toBe(heldParts);
    expect(JSON.stringify(before.task.artifacts)).toBe(JSON.stringify([{ index: 0, parts: [text('a'), text('b')] }]));
    // A batch after it grows the stored artifact into a new one, never in place.
    const after = applyEvents(batched, [chunk('g'), chunk('h')], mergeGrowingArtifact);
    expect(after.task.artifacts![0]!.parts).toHaveLength(10);
    expect(batched.task.artifacts![0]!.parts).toHaveLength(8);
  });

  test('an artifact grown in place within a fold shows its parts as they are at each read', () => {
    const fold = 7;
    let artifacts = mergeGrowingArtifact([], { parts: [text('a')], index: 0 }, fold);
    artifacts = mergeGrowingArtifact(artifacts, { parts: [text('b')], index: 0, append: true }, fold);
    expect(artifacts[0]!.parts).toEqual([text('a'), text('b')]);
    artifacts = mergeGrowingArtifact(artifacts, { parts: [text('c')], index: 0, append: true }, fold);
    expect(artifacts[0]!.parts).toEqual([text('a'), text('b'), text('c')]);
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

describe('the record copy', () => {
  // copyRecord copies field by field, by name, for speed; a field added to TaskRecord and not
  // copied there would be silently dropped from every stored record. The build refuses it.
  test('a field added to TaskRecord fails to compile until copyRecord copies it', async () => {
    const packageDir = fileURLToPath(new URL('..', import.meta.url));
    const dir = mkdtempSync(join(packageDir, '.record-field-check-'));
    try {
      const source = readFileSync(join(packageDir, 'src/model/record.ts'), 'utf8');
      const withField = source.replace(
        'export interface TaskRecord {\n',
        'export interface TaskRecord {\n  readonly addedLater?: string;\n',
      );
      expect(withField).not.toBe(source);
      // record.ts imports the task's types and the JSON value type from beside it: the copy keeps that layout.
      for (const beside of ['task.ts', 'plain-json.ts']) copyFileSync(join(packageDir, 'src/model', beside), join(dir, beside));
      writeFileSync(join(dir, 'record.ts'), withField);
      const tsc = join(packageDir, '../../node_modules/typescript/bin/tsc');
      const args = [
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        join(dir, 'record.ts'),
      ];
      const result = await runCommand(process.execPath, [tsc, ...args], { cwd: packageDir, timeoutMs: 60_000 });
      expect(result.stdout).toMatch(/TS2741: Property 'addedLater' is missing/);
      // The unchanged file compiles the same way.
      writeFileSync(join(dir, 'record.ts'), source);
      expect((await runCommand(process.execPath, [tsc, ...args], { cwd: packageDir, timeoutMs: 60_000 })).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
