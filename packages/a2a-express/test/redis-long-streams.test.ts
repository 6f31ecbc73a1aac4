// Long streams on the Redis store: what one event costs Redis does not grow with the length of the
// task (read from Redis's own byte counter, on a redis-server of this test's own so that no other
// test's traffic is counted), and a 10,000-chunk stream stays whole for readers on another replica
// while it runs.
import {
  collect,
  deleteKeys,
  openStream,
  redisUrl,
  requireRedis,
  rpc,
  serverPool,
  startOwnRedis,
  uniquePrefix,
  within,
  type OwnRedis,
} from 'a2a-testing';
import type { TaskArtifactUpdateEvent } from '../src/store/index.js';
import { Redis } from 'ioredis';
import { artifact, completed, type A2ARouter, type TaskHandler } from '../src/index.js';
import { RedisTaskStore } from '../src/redis.js';
import type { TaskChange, TaskRecord } from '../src/store/index.js';
import { appWith, gate, resultOf, userText } from './helpers.js';

const CHUNKS = 10_000;
const chunkText = (n: number) => `chunk ${n} of the answer`;

describe('bytes written to Redis per event', () => {
  let own: OwnRedis;
  let store: RedisTaskStore;
  let admin: Redis;

  beforeAll(async () => {
    own = await startOwnRedis();
    store = new RedisTaskStore({ url: own.url, prefix: 'scale:' });
    admin = new Redis(own.url);
  });
  afterAll(async () => {
    await store?.close();
    admin?.disconnect();
    await own?.dispose();
  });

  /** Bytes Redis has received from all its clients since it started. */
  async function bytesReceived(): Promise<number> {
    const stats = await admin.info('stats');
    return Number(/total_net_input_bytes:(\d+)/.exec(stats)![1]);
  }

  /** One chunk, one write: how the engine writes a stream whose handler is slower than Redis (the most writes per event). */
  const appendChunk =
    (n: number) =>
    (current: TaskRecord | undefined): TaskChange => ({
      record: current ?? {
        task: { id: 'long', contextId: 's', status: { state: 'working', timestamp: new Date().toISOString() } },
        history: [{ role: 'user', parts: [{ type: 'text', text: 'write a long answer' }] }],
        lastEventId: 0,
        turn: 1,
        updatedAt: Date.now(),
      },
      events: [{ id: 'long', artifact: { index: 0, append: n > 1, parts: [{ type: 'text', text: chunkText(n) }] } }],
    });

  test('do not grow from the 10th chunk of a stream to the 10,000th', async () => {
    const window = 100;
    const perEvent = new Map<number, number>();
    for (let n = 1; n <= CHUNKS; ) {
      // Windows of 100 writes starting after chunk 10 and ending at chunk 10,000.
      if (n === 11 || n === CHUNKS - window + 1) {
        const before = await bytesReceived();
        for (let i = 0; i < window; i++, n++) await store.update('long', appendChunk(n));
        perEvent.set(n - 1, ((await bytesReceived()) - before) / window);
      } else {
        await store.update('long', appendChunk(n++));
      }
    }
    const early = perEvent.get(110)!;
    const late = perEvent.get(CHUNKS)!;
    // Only the numbers grow: "chunk 10000" is longer than "chunk 110", event ids have more digits.
    expect(late).toBeLessThan(early * 1.05);
    // Not rewritten whole: the stored answer alone is over 250 KB by now.
    expect(late).toBeLessThan(2_000);
    const record = (await store.get('long'))!;
    expect(record.task.artifacts![0]!.parts).toHaveLength(CHUNKS);
    expect(record.task.artifacts![0]!.parts[CHUNKS - 1]).toEqual({ type: 'text', text: chunkText(CHUNKS) });
  }, 60_000);
});

describe('a 10,000-chunk stream across two replicas', () => {
  const url = redisUrl();
  const pool = serverPool();
  const routers: A2ARouter[] = [];
  const stores: RedisTaskStore[] = [];
  const prefix = uniquePrefix('long-streams');

  beforeAll(() => requireRedis(url));
  afterAll(async () => {
    await Promise.all(routers.map((r) => r.close()));
    await pool.closeAll();
    await Promise.all(stores.map((s) => s.close()));
    await deleteKeys(url, prefix);
  });

  async function replica(handler: TaskHandler): Promise<string> {
    const store = new RedisTaskStore({ url, prefix });
    stores.push(store);
    const { app, router } = appWith(handler, { store });
    routers.push(router);
    return (await pool.serve(app)).url;
  }

  const chunkOf = (event: { message: { result?: unknown } }) => (event.message.result as TaskArtifactUpdateEvent).artifact.parts[0];

  test('tasks/get mid-stream shows every chunk so far; a resubscribe on the other replica loses and repeats nothing', async () => {
    const halfway = gate();
    const handler: TaskHandler = async function* () {
      for (let n = 1; n <= CHUNKS; n++) {
        yield artifact(chunkText(n), { index: 0, append: n > 1 });
        if (n === CHUNKS / 2) await halfway.promise;
      }
      yield completed();
    };
    const replicaA = await replica(handler);
    const replicaB = await replica(handler);

    const stream = await openStream(replicaA, 'tasks/sendSubscribe', { id: 'long', message: userText('go') }, { eventIds: true });
    // Event 1 is the turn's working status; chunk n is event n + 1. Read with next(), not
    // collect(), which would end the stream when it stops.
    const firstHalf = [];
    while (firstHalf.length < CHUNKS / 2 + 1) {
      const next = await within(stream.events.next(), 30_000, 'the first half of the stream');
      if (next.done) break;
      firstHalf.push(next.value);
    }
    expect(chunkOf(firstHalf.at(-1)!)).toEqual({ type: 'text', text: chunkText(CHUNKS / 2) });

    const midway = resultOf(await rpc(replicaB, 'tasks/get', { id: 'long' }));
    expect(midway.status.state).toBe('working');
    expect(midway.artifacts![0]!.parts.map((p) => (p.type === 'text' ? p.text : ''))).toEqual(
      Array.from({ length: CHUNKS / 2 }, (_, i) => chunkText(i + 1)),
    );

    // A client that lost the stream after chunk 4,990 resumes on the other replica.
    const resumeAfter = CHUNKS / 2 - 10 + 1;
    const resumed = await openStream(
      replicaB,
      'tasks/resubscribe',
      { id: 'long' },
      { eventIds: true, headers: { 'last-event-id': String(resumeAfter) } },
    );
    halfway.open();
    const [rest, resumedEvents] = await Promise.all([collect(stream, { timeoutMs: 30_000 }), collect(resumed, { timeoutMs: 30_000 })]);
    const expectedIds = (from: number) => Array.from({ length: CHUNKS + 2 - from + 1 }, (_, i) => from + i);
    expect([...firstHalf, ...rest].map((e) => Number(e.id))).toEqual(expectedIds(1));
    expect(resumedEvents.map((e) => Number(e.id))).toEqual(expectedIds(resumeAfter + 1));
    expect(resumedEvents.slice(0, -1).map(chunkOf)).toEqual(
      Array.from({ length: CHUNKS - resumeAfter + 1 }, (_, i) => ({ type: 'text', text: chunkText(resumeAfter + i) })),
    );

    const done = resultOf(await rpc(replicaB, 'tasks/get', { id: 'long' }));
    expect(done.status.state).toBe('completed');
    expect(done.artifacts![0]!.parts).toHaveLength(CHUNKS);
  }, 60_000);
});
