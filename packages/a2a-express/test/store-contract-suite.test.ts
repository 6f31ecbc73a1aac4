// The exported store contract (a2a-express/testing) as a user runs it: from another test runner
// (node:test, on the built package), and on stores that break the contract, each caught by the
// check made for what it breaks.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemoryTaskStore, type TaskChange, type TaskRecord, type TaskStore, type TaskUpdateResult } from '../src/store/index.js';
import { storeContract, type StoreUnderTest } from '../src/testing.js';

const dist = join(dirname(fileURLToPath(import.meta.url)), '../dist');

/** Runs the suite on `store` with a runner that collects each test's outcome: the names of those that failed. */
async function failedChecks(store: StoreUnderTest): Promise<string[]> {
  const tests: [string, () => Promise<void>][] = [];
  storeContract(store, { describe: (_name, body) => body(), test: (name, body) => tests.push([name, body]) });
  const failed: string[] = [];
  for (const [name, body] of tests) {
    try {
      await body();
    } catch {
      failed.push(name);
    }
  }
  return failed;
}

/** An in-memory store with one of its methods replaced. */
function brokenStore(name: string, replace: (inner: InMemoryTaskStore) => Partial<TaskStore>, bounds = true): StoreUnderTest {
  return {
    name,
    create: (options) => {
      const inner = new InMemoryTaskStore(bounds ? options : undefined);
      return Object.assign(Object.create(inner) as TaskStore, replace(inner));
    },
  };
}

describe('the store contract suite a user runs (a2a-express/testing)', () => {
  test('runs under node:test on the built package, every check passing on the in-memory store', () => {
    const folder = mkdtempSync(join(tmpdir(), 'store-contract-'));
    try {
      const file = join(folder, 'contract.test.mjs');
      writeFileSync(
        file,
        [
          "import { describe, test } from 'node:test';",
          `import { storeContract } from ${JSON.stringify(join(dist, 'testing.js'))};`,
          `import { InMemoryTaskStore } from ${JSON.stringify(join(dist, 'store/index.js'))};`,
          "storeContract({ name: 'InMemoryTaskStore', create: (bounds) => new InMemoryTaskStore(bounds) }, { describe, test });",
        ].join('\n'),
      );
      const run = spawnSync(process.execPath, ['--test', file], { encoding: 'utf8', timeout: 60_000 });
      expect({ status: run.status, failed: /^# fail (\d+)$/m.exec(run.stdout)?.[1] }).toEqual({ status: 0, failed: '0' });
      expect(Number(/^# pass (\d+)$/m.exec(run.stdout)?.[1])).toBe(15);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 90_000);

  test('a correct store passes every check; each broken one fails the check made for what it breaks', async () => {
    expect(await failedChecks({ name: 'correct', create: (bounds) => new InMemoryTaskStore(bounds) })).toEqual([]);

    // Hands readers the stored record itself: a reader's change is a change to the store.
    const aliasing = brokenStore('aliasing', (inner) => ({
      get: async (taskId) => (inner as unknown as { entries: Map<string, { record: TaskRecord }> }).entries.get(taskId)?.record,
    }));
    expect(await failedChecks(aliasing)).toContain(
      "what get and eventsAfter return is the caller's own: changing it changes nothing stored",
    );

    // Reads, waits, then writes from what it read: two writers at once lose each other's changes.
    const lostUpdates = brokenStore('lost updates', (inner) => ({
      async update(taskId: string, change: (current: TaskRecord | undefined) => TaskChange): Promise<TaskUpdateResult> {
        const before = await inner.get(taskId);
        await new Promise((resolve) => setImmediate(resolve));
        return inner.update(taskId, () => change(before));
      },
    }));
    expect(await failedChecks(lostUpdates)).toContain(
      'concurrent writers lose nothing: every change is applied once, its events numbered without gaps or repeats',
    );

    // Keeps every event however it is bounded: a client resuming from before the log is not told.
    expect(await failedChecks(brokenStore('unbounded', () => ({}), false))).toContain(
      'eventsAfter: undefined for an unknown task, [] when up to date, the exact tail otherwise, undefined past the bounded log',
    );

    // Tells a subscriber of every other event only.
    const forgetful = brokenStore('forgetful', (inner) => ({
      subscribe: (taskId, listener) => {
        let count = 0;
        return inner.subscribe(taskId, (event) => {
          if (count++ % 2 === 0) listener(event);
        });
      },
    }));
    expect(await failedChecks(forgetful)).toContain(
      'subscribers get every later event once, in id order, from concurrent writers too, until they unsubscribe',
    );

    // Lets every claim of an idempotency key win: a retry would run its message again.
    const claimsNothing = brokenStore('claims nothing', () => ({ claimIdempotencyKey: async () => undefined }));
    expect(await failedChecks(claimsNothing)).toContain(
      'claimIdempotencyKey (when the store has it): of claims at once from every replica one wins, the others read it, until its window ends',
    );
  }, 60_000);

  test('without a runner given or global, it says how to give one', () => {
    const globals = globalThis as { describe?: unknown; test?: unknown; it?: unknown };
    const saved = { describe: globals.describe, test: globals.test, it: globals.it };
    Object.assign(globals, { describe: undefined, test: undefined, it: undefined });
    try {
      expect(() => storeContract({ name: 'x', create: () => new InMemoryTaskStore() })).toThrow(
        /pass them: storeContract\(store, \{ describe, test \}\)/,
      );
    } finally {
      Object.assign(globals, saved);
    }
  });
});
