// ListTasks under hostile sizes and counts, on both stores: a page holds what fits in one answer
// (never a 500, never the whole page built first), and a call reads only the index of its filters,
// however many tasks of other owners, contexts or states there are.
import { Redis } from 'ioredis';
import { type OwnRedis, serverPool, startOwnRedis, uniquePrefix } from 'a2a-testing';
import { artifact, completed, failed, textOf, type A2ARouterOptions, type TaskHandler } from '../src/index.js';
import { RedisTaskStore } from '../src/redis.js';
import { InMemoryTaskStore, type TaskRecord, type TaskStore } from '../src/store/index.js';
import { appWith, eventually, message10 } from './helpers.js';

const { serve, closeAll } = serverPool();
const stores: TaskStore[] = [];
/**
 * A redis-server of this file's own: the work a call does is counted with MONITOR, which sees
 * every client's commands, and the shared Redis carries other test files' replicas meanwhile
 * (their scripts' traffic once threw ioredis's monitor off its command queue).
 */
let own: OwnRedis | undefined;
afterAll(async () => {
  await closeAll();
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await own?.dispose();
});

const V1 = { 'a2a-version': '1.0', 'content-type': 'application/json' };
// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field.
type Json = Record<string, any>;

const kinds = [
  { name: 'in memory', make: async (): Promise<TaskStore> => new InMemoryTaskStore({ maxTasks: 100_000 }) },
  {
    name: 'Redis',
    async make(): Promise<TaskStore> {
      own ??= await startOwnRedis();
      return new RedisTaskStore({ url: own.url, prefix: uniquePrefix('list-bounds') });
    },
  },
];

/** `big <n>` answers with an artifact of n characters; `fail` fails; anything else completes with its text. */
const handler: TaskHandler = async function* (ctx) {
  const text = textOf(ctx.message);
  const big = /^big (\d+)$/.exec(text);
  if (big) yield artifact('x'.repeat(Number(big[1])), { name: 'big' });
  if (text === 'fail') return yield failed('as asked');
  yield completed(text);
};

async function agent(store: TaskStore, options: Partial<A2ARouterOptions> = {}): Promise<string> {
  stores.push(store);
  const { app } = appWith(handler, { store, ...options });
  return `${(await serve(app)).url}/v1`;
}

async function send(base: string, text: string, extra: Record<string, unknown> = {}, configuration?: Json): Promise<Json> {
  const response = await fetch(`${base}/message:send`, {
    method: 'POST',
    headers: V1,
    body: JSON.stringify({ message: message10(text, extra), ...(configuration && { configuration }) }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as Json).task;
}

async function list(base: string, query: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${base}/tasks?${query}`, { headers: { 'a2a-version': '1.0' } });
  return { status: response.status, body: (await response.json()) as Json };
}

describe.each(kinds)('ListTasks on the $name store', (kind) => {
  test('a page holds what fits in one answer: the rest follows with nextPageToken, and a task too large alone is a 400 naming includeArtifacts', async () => {
    // Room for three 60,000-character tasks in a 200,000-character answer, not five.
    const base = await agent(await kind.make(), { maxResponseBytes: 200_000 });
    const contextId = `ctx-${Math.random()}`;
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await send(base, 'big 60000', { contextId })).id);

    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const { status, body } = await list(base, `contextId=${contextId}&pageSize=100&includeArtifacts=true&pageToken=${token}`);
      expect(status).toBe(200);
      expect(JSON.stringify(body).length).toBeLessThanOrEqual(200_000);
      expect(body.tasks.length).toBeGreaterThan(0);
      expect(body.totalSize).toBe(5);
      for (const task of body.tasks) {
        expect(task.artifacts[0].parts[0].text).toHaveLength(60_000);
        seen.push(task.id);
      }
      token = body.nextPageToken;
      pages++;
    } while (token && pages < 10);
    expect(pages).toBeGreaterThan(1);
    // Every task once, none twice.
    expect(seen.length).toBe(5);
    expect(new Set(seen)).toEqual(ids);

    // Without their artifacts, all five fit in one page.
    const plain = await list(base, `contextId=${contextId}&pageSize=100`);
    expect(plain.body.tasks).toHaveLength(5);
    expect(plain.body.nextPageToken).toBe('');

    // A task that alone is more than an answer: a clear 400 in 1.0's terms, not a 500.
    // Answered before its artifact is made: the answer with it would be past the bound too.
    const huge = await send(base, 'big 250000', { contextId: `${contextId}-huge` }, { returnImmediately: true });
    await eventually(async () =>
      (await list(base, `contextId=${contextId}-huge`)).body.tasks[0]?.status.state === 'TASK_STATE_COMPLETED' ? true : undefined,
    );
    const refused = await list(base, `contextId=${contextId}-huge&includeArtifacts=true`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(refused.body.error.message + JSON.stringify(refused.body.error.details)).toMatch(/includeArtifacts/);
    expect(JSON.stringify(refused.body)).toContain(huge.id);
    // The same task listed without its artifacts is fine.
    expect((await list(base, `contextId=${contextId}-huge`)).body.tasks).toHaveLength(1);
  });

  test('a state filter reads only the tasks in that state: the same work with 20 or 400 tasks in other states', async () => {
    const cost: number[] = [];
    for (const others of [20, 400]) {
      const store = await kind.make();
      const base = await agent(store);
      const contextId = `ctx-${others}`;
      for (let i = 0; i < others; i++) await send(base, `done ${i}`, { contextId });
      const failedOne = (await send(base, 'fail', { contextId })).id;
      for (let i = 0; i < 5; i++) await send(base, `done again ${i}`, { contextId });
      // The in-memory store builds its indexes at its first list (then keeps them up to date by
      // the tasks that change): what a list costs once they are there.
      await list(base, 'status=TASK_STATE_WORKING');
      const work = await readsOf(store);
      const before = await work.count();
      const { body } = await list(base, 'status=TASK_STATE_FAILED&pageSize=1');
      cost.push((await work.count()) - before);
      await work.stop();
      expect(body.tasks.map((task: Json) => task.id)).toEqual([failedOne]);
      expect(body.totalSize).toBe(1);
      // With its context too: the same one task.
      const inContext = await list(base, `contextId=${contextId}&status=TASK_STATE_FAILED`);
      expect(inContext.body.tasks.map((task: Json) => task.id)).toEqual([failedOne]);
      // The index follows the state: the completed ones are all there.
      expect((await list(base, 'status=TASK_STATE_COMPLETED&pageSize=1')).body.totalSize).toBe(others + 5);
    }
    // What a call costs does not grow with the tasks it does not list.
    expect(cost[1]).toBe(cost[0]);
    expect(cost[0]).toBeLessThan(20);
  });
});

test('the in-memory indexes follow tasks that change, come and go between lists, also past the most they note', async () => {
  // Three tasks at most: the index notes at most three changes between lists, then drops itself
  // and is built anew at the next list.
  const base = await agent(new InMemoryTaskStore({ maxTasks: 3, retentionMs: 60_000 }));
  // Sorted: tasks whose status has the same millisecond are listed by id.
  const ids = async (query: string) => ((await list(base, query)).body.tasks.map((task: Json) => task.id) as string[]).sort();
  const first = (await send(base, 'one')).id;
  expect(await ids('')).toEqual([first]);
  const failedOne = (await send(base, 'fail')).id;
  expect(await ids('status=TASK_STATE_FAILED')).toEqual([failedOne]);
  // Five more: the first two are evicted, and more changes come than the index notes.
  const later: string[] = [];
  for (let i = 0; i < 5; i++) later.push((await send(base, `later ${i}`)).id);
  expect(await ids('')).toEqual(later.slice(-3).sort());
  expect(await ids('status=TASK_STATE_FAILED')).toEqual([]);
  expect(await ids('status=TASK_STATE_COMPLETED')).toEqual(later.slice(-3).sort());
  // One change, noted and placed at the next list.
  const again = (await send(base, 'fail')).id;
  expect(await ids('status=TASK_STATE_FAILED')).toEqual([again]);
  expect(await ids('')).toEqual([again, ...later.slice(-2)].sort());
});

/**
 * The work a store does, counted where it reads: Redis commands on the store's keys (MONITOR on a
 * connection of its own), or records the in-memory store looks up.
 */
async function readsOf(store: TaskStore): Promise<{ count(): Promise<number>; stop(): Promise<void> }> {
  if (store instanceof RedisTaskStore) {
    const monitor = await new Redis(own!.url).monitor();
    // A command on a key of no store, sent after the call: once MONITOR shows it, it has shown
    // every command before it.
    const marker = new Redis(own!.url);
    const markerKey = `marker:${store.prefix}`;
    let seen = 0;
    let markersSeen = 0;
    let markersSent = 0;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[1] === markerKey) markersSeen++;
      else if (args.some((arg) => arg.startsWith(store.prefix))) seen++;
    });
    return {
      async count() {
        markersSent++;
        await marker.get(markerKey);
        for (let i = 0; i < 500 && markersSeen < markersSent; i++) await new Promise((resolve) => setTimeout(resolve, 10));
        return seen;
      },
      async stop() {
        monitor.disconnect();
        marker.disconnect();
      },
    };
  }
  // The in-memory store keeps its records in a Map: count the look-ups (and a walk of its keys as one a key).
  const entries = (store as unknown as { entries: Map<string, unknown> }).entries;
  let reads = 0;
  const get = entries.get.bind(entries);
  entries.get = (key: string) => {
    reads++;
    return get(key);
  };
  const keys = entries.keys.bind(entries);
  entries.keys = () => {
    reads += entries.size;
    return keys();
  };
  const iterate = entries[Symbol.iterator].bind(entries);
  entries[Symbol.iterator] = () => {
    reads += entries.size;
    return iterate();
  };
  return { count: async () => reads, stop: async () => undefined };
}

test("a store of the app's own that hands back records of the previous release (sessionId) lists them in the new model", async () => {
  /** Shows every listed task as the previous release stored it: `sessionId`, no `contextId`. */
  class PreviousReleaseStore extends InMemoryTaskStore {
    override listTasks(query: Parameters<InMemoryTaskStore['listTasks']>[0]) {
      const accept = query.accept;
      return super.listTasks({
        ...query,
        ...(accept && {
          accept: (record: TaskRecord) => {
            const { contextId, ...task } = record.task;
            return accept({ ...record, task: { ...task, sessionId: contextId } as unknown as TaskRecord['task'] });
          },
        }),
      });
    }
  }
  const base = await agent(new PreviousReleaseStore());
  const sent = await send(base, 'old', { contextId: 'ctx-previous' });
  const listed = (await list(base, 'contextId=ctx-previous')).body.tasks;
  expect(listed.map((task: Json) => [task.id, task.contextId])).toEqual([[sent.id, 'ctx-previous']]);
});
