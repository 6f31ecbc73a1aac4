// Memory bounded by bytes, not only by count: parts per message, bytes per task (the client's and
// the agent's), the in-memory store's byte budget, and a warning when tasks go before their time.
import { rpc, serverPool } from 'a2a-testing';
import { artifact, completed, inputRequired, working, type TaskHandler } from '../src/index.js';
import { InMemoryTaskStore } from '../src/store/index.js';
import { appWith, memoryLogger, resultOf, userText } from './helpers.js';

const pool = serverPool();
afterAll(pool.closeAll);

async function serve(handler: TaskHandler, options = {}) {
  const { app, router } = appWith(handler, options);
  return { url: (await pool.serve(app)).url, router };
}

const parts = (count: number) => Array.from({ length: count }, (_, i) => ({ type: 'text', text: `p${i}` }));
const done: TaskHandler = async () => completed('ok');

describe('parts per message', () => {
  test('more than maxPartsPerMessage is -32602 with the limit; as many is served', async () => {
    const { url } = await serve(done, { maxPartsPerMessage: 5 });
    expect(resultOf(await rpc(url, 'tasks/send', { id: 'five', message: { role: 'user', parts: parts(5) } })).status.state).toBe(
      'completed',
    );
    const refused = await rpc(url, 'tasks/send', { id: 'six', message: { role: 'user', parts: parts(6) } });
    expect(refused.error).toMatchObject({ code: -32602, data: [{ path: '/message/parts', keyword: 'maxItems', params: { limit: 5 } }] });
    expect((await rpc(url, 'tasks/get', { id: 'six' })).error?.code).toBe(-32001); // nothing was kept
  });

  test('the default is 1,000', async () => {
    const { url } = await serve(done);
    const refused = await rpc(url, 'tasks/send', { id: 'many', message: { role: 'user', parts: parts(1_001) } });
    expect(refused.error?.data).toEqual([expect.objectContaining({ params: { limit: 1_000 } })]);
  });
});

describe('bytes per task', () => {
  test("a client's message that would take its task past maxTaskBytes is -32602; reopening cannot grow a task without end", async () => {
    const ask: TaskHandler = async function* () {
      yield inputRequired('more?');
    };
    const { url } = await serve(ask, { maxTaskBytes: 4_000 });
    const message = userText('x'.repeat(1_000));
    let accepted = 0;
    let refusal: { code: number; data?: unknown } | undefined;
    for (let turn = 0; turn < 20 && !refusal; turn++) {
      const res = await rpc(url, 'tasks/send', { id: 'growing', message });
      if (res.error) refusal = res.error;
      else accepted++;
    }
    expect(accepted).toBeGreaterThan(1);
    expect(refusal).toMatchObject({ code: -32602, data: [{ path: '/message', keyword: 'maxTaskBytes', params: { limit: 4_000 } }] });
    const task = resultOf(await rpc(url, 'tasks/get', { id: 'growing', historyLength: 100 }));
    expect(JSON.stringify(task.history).length).toBeLessThan(4_000 + 1_000);
  });

  test('an agent whose output would take its task past maxTaskBytes fails the task, saying so, and stops growing it', async () => {
    const { url } = await serve(
      async function* () {
        yield working();
        for (let i = 0; i < 100; i++) yield artifact('y'.repeat(500), { index: 0, append: i > 0 });
        yield completed();
      },
      { maxTaskBytes: 3_000 },
    );
    const task = resultOf(await rpc(url, 'tasks/send', { id: 'prolix', message: userText('go') }));
    expect(task.status).toMatchObject({
      state: 'failed',
      message: { parts: [{ text: 'The task grew past the size this agent keeps for one task; start a new task for more.' }] },
    });
    const kept = task.artifacts![0]!.parts.reduce((sum, p) => sum + (p.type === 'text' ? p.text.length : 0), 0);
    expect(kept).toBeLessThanOrEqual(3_000);
  });

  test('maxTaskBytes and maxPartsPerMessage must be positive integers', () => {
    expect(() => appWith(done, { maxTaskBytes: 0 })).toThrow(/maxTaskBytes/);
    expect(() => appWith(done, { maxPartsPerMessage: 1.5 })).toThrow(/maxPartsPerMessage/);
  });
});

describe('the in-memory store, bounded by bytes', () => {
  const big = (n: number) => userText(String(n).padEnd(1_000, '.'));

  test('past maxBytes, idle tasks are evicted oldest first; the bytes held stay under it', async () => {
    const store = new InMemoryTaskStore({ maxBytes: 5_000 });
    const { url } = await serve(done, { store });
    for (let i = 0; i < 12; i++) resultOf(await rpc(url, 'tasks/send', { id: `t${i}`, message: big(i) }));
    expect(store.bytes).toBeLessThanOrEqual(5_000);
    expect(store.size).toBeLessThan(12);
    expect((await rpc(url, 'tasks/get', { id: 't0' })).error?.code).toBe(-32001); // the oldest went first
    expect(resultOf(await rpc(url, 'tasks/get', { id: 't11' })).id).toBe('t11');
    await store.close();
  });

  test('when running tasks fill the budget, a new task gets -32011 rather than growing memory', async () => {
    const store = new InMemoryTaskStore({ maxBytes: 3_000 });
    const { url, router } = await serve(
      async function* (ctx) {
        yield working();
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      },
      { store, sendWaitMs: 50 },
    );
    resultOf(await rpc(url, 'tasks/send', { id: 'r1', message: big(1) }));
    resultOf(await rpc(url, 'tasks/send', { id: 'r2', message: big(2) }));
    const refused = await rpc(url, 'tasks/send', { id: 'r3', message: big(3) });
    expect(refused.error).toMatchObject({ code: -32011, data: { reason: expect.stringMatching(/running tasks hold \d+ of 3000 bytes/) } });
    await router.close();
    await store.close();
  });

  test('tasks evicted before their retention ended are logged, at most once a minute, with how long they were kept', async () => {
    const { logger, lines } = memoryLogger('warn');
    const store = new InMemoryTaskStore({ maxTasks: 3, logger });
    const { url } = await serve(done, { store });
    for (let i = 0; i < 10; i++) resultOf(await rpc(url, 'tasks/send', { id: `e${i}`, message: userText('x') }));
    const warnings = lines().filter((l) => /evicted/.test(String(l.msg)));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      level: 40,
      evicted: 1,
      bound: 'maxTasks',
      keptMs: { shortest: expect.any(Number), mean: expect.any(Number), longest: expect.any(Number) },
      retentionMs: 3_600_000,
    });
    expect(warnings[0]!.msg).toMatch(/evicted 1 task\(s\) before their retention ended \(maxTasks reached\)/);
    await store.close();
  });

  test("the router gives its logger to a store that has none, and a store's own logger is kept", async () => {
    const { logger, lines } = memoryLogger('warn');
    const store = new InMemoryTaskStore({ maxTasks: 1 });
    const { url } = await serve(done, { store, logger });
    for (let i = 0; i < 3; i++) resultOf(await rpc(url, 'tasks/send', { id: `l${i}`, message: userText('x') }));
    expect(lines().some((l) => /evicted/.test(String(l.msg)))).toBe(true);
    await store.close();
  });

  test('maxBytes must be positive', () => {
    expect(() => new InMemoryTaskStore({ maxBytes: 0 })).toThrow(/maxBytes must be a positive number/);
  });
});
