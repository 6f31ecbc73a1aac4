// Two replicas of one agent: two routers, each with its own store (own connections) on the same
// Redis prefix or PostgreSQL schema, each on its own port, as two processes behind a load balancer.
// The same tests on both shared stores; Redis restarting is Redis's own (PostgreSQL's is in
// postgres-store.test.ts and the echo agent's postgres.test.ts).
import express from 'express';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  collect,
  openStream,
  rpc,
  serverPool,
  sharedStores,
  startOwnRedis,
  uniquePrefix,
  within,
  type OwnRedis,
  type SharedStoreData,
} from 'a2a-testing';
import pg from 'pg';
import { isStatusUpdateEvent } from '../src/model/task.js';
import type { VerifiedNotification } from 'a2a-push-receiver';
import { pushNotificationReceiver } from 'a2a-push-receiver/express';
import {
  apiKey,
  artifact,
  completed,
  textOf,
  working,
  type A2ARouter,
  type A2ARouterOptions,
  type PushNotificationPayload,
  type Task,
  type TaskEvent,
  type TaskHandler,
  type TaskStatusUpdateEvent,
} from '../src/index.js';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';
import type { SharedTaskStore } from '../src/store/index.js';
import { appWith, eventually, gate, resultOf, userText } from './helpers.js';

const pool = serverPool();
const routers: A2ARouter[] = [];
/** Each test's data is fresh; each replica's store on it is its own (its own connections). */
const shared = sharedStores<SharedTaskStore>('replicas', {
  make: { redis: (options) => new RedisTaskStore(options), postgres: (options) => new PostgresTaskStore(options) },
});

/** The stores on the Redis of the test's own, which the shared stores do not know. */
const storesOnOwnRedis: SharedTaskStore[] = [];

afterAll(async () => {
  await Promise.all(routers.map((r) => r.close()));
  await pool.closeAll();
  await Promise.all(storesOnOwnRedis.map((store) => store.close()));
  await shared.cleanup();
});

/** The ids of the tasks the data holds, as the database lists them (Redis's through a replica's store). */
async function storedTaskIds(data: SharedStoreData<SharedTaskStore>, store: SharedTaskStore): Promise<string[]> {
  if (data.name === 'Redis') {
    const { redis, prefix } = store as RedisTaskStore;
    return (await redis.keys(`${prefix}task:*`)).map((key) => key.slice(`${prefix}task:`.length));
  }
  const client = new pg.Client({ connectionString: data.url });
  await client.connect();
  try {
    return (await client.query(`SELECT task_id FROM ${client.escapeIdentifier(data.namespace)}.a2a_tasks`)).rows.map(
      (row) => row.task_id as string,
    );
  } finally {
    await client.end();
  }
}

interface Replica {
  url: string;
  store: SharedTaskStore;
}

/** Two replicas, each with its own store from `open`, on the same data. */
async function replicas(
  handler: TaskHandler,
  options: Partial<A2ARouterOptions>,
  open: () => SharedTaskStore,
): Promise<[Replica, Replica]> {
  const start = async (): Promise<Replica> => {
    const store = open();
    const { app, router } = appWith(handler, { store, ...options });
    routers.push(router);
    return { url: (await pool.serve(app)).url, store };
  };
  return [await start(), await start()];
}

const echo: TaskHandler = async function* (ctx) {
  yield working('echoing');
  yield artifact(textOf(ctx.message), { name: 'echo' });
  yield completed('done');
};

const results = (events: { message: { result?: TaskEvent } }[]) => events.map((e) => e.message.result as TaskEvent);

describe.each(shared.kinds)('replicas sharing $name', (kind) => {
  test('tasks/send on A, tasks/get on B: the same task, history and artifacts identical', async () => {
    const [a, b] = await replicas(echo, {}, (await kind.open()).make);
    const sent = resultOf(await rpc(a.url, 'tasks/send', { id: 'shared-1', message: userText('hello replicas'), historyLength: 10 }));
    expect(sent.status.state).toBe('completed');
    expect(sent.artifacts).toEqual([{ name: 'echo', index: 0, parts: [{ type: 'text', text: 'hello replicas' }] }]);
    expect(sent.history).toHaveLength(3);
    const onB = resultOf(await rpc(b.url, 'tasks/get', { id: 'shared-1', historyLength: 10 }));
    expect(onB).toEqual(sent);
    // A second turn sent to B continues the task A created.
    const second = resultOf(await rpc(b.url, 'tasks/send', { id: 'shared-1', message: userText('again'), historyLength: 10 }));
    expect(second.sessionId).toBe(sent.sessionId);
    expect(second.history!.map((m) => textOf(m))).toEqual(['hello replicas', 'echoing', 'done', 'again', 'echoing', 'done']);
    expect(resultOf(await rpc(a.url, 'tasks/get', { id: 'shared-1', historyLength: 10 }))).toEqual(second);
  });

  test('a stream dropped on A resumes on B with Last-Event-ID: the missed events in order, no duplicates, then live, then final', async () => {
    const released = gate();
    const handler: TaskHandler = async function* () {
      yield working('starting');
      yield artifact('chunk-0 ', { name: 'log' });
      await released.promise;
      for (let i = 1; i <= 5; i++) {
        yield artifact(`chunk-${i} `, { append: true, lastChunk: i === 5 });
        await sleep(2);
      }
      yield completed('all chunks written');
    };
    const [a, b] = await replicas(handler, {}, (await kind.open()).make);
    const first = await openStream(a.url, 'tasks/sendSubscribe', { id: 'resumed', message: userText('go') }, { eventIds: true });
    const seen = await collect(first, { max: 3 });
    first.abort();
    const lastSeen = seen[2]!.id!;
    expect(lastSeen).toBe('3');

    const resumed = await openStream(b.url, 'tasks/resubscribe', { id: 'resumed' }, { headers: { 'Last-Event-ID': lastSeen } });
    expect(resumed.status).toBe(200);
    released.open();
    const rest = await collect(resumed);

    const ids = [...seen, ...rest].map((e) => Number(e.id));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const final = results(rest).at(-1) as TaskStatusUpdateEvent;
    expect(final).toMatchObject({ final: true, status: { state: 'completed' } });
    expect(results(rest).filter((e) => isStatusUpdateEvent(e) && e.final)).toHaveLength(1);
    // Exactly the task's log, as either replica's store holds it.
    const log = (await b.store.eventsAfter('resumed', 0))!;
    expect([...seen, ...rest].map((e) => ({ id: Number(e.id), event: e.message.result }))).toEqual(log);
    const task = resultOf(await rpc(a.url, 'tasks/get', { id: 'resumed' }));
    expect(task.artifacts![0]!.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).toBe(
      'chunk-0 chunk-1 chunk-2 chunk-3 chunk-4 chunk-5 ',
    );
  });

  test('tasks/cancel on B of a task running on A: A’s handler sees its signal abort; canceled on both', async () => {
    const abortedOnA = gate();
    const handler: TaskHandler = async function* (ctx) {
      ctx.signal.addEventListener('abort', () => abortedOnA.open());
      yield working('waiting to be canceled');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    };
    const [a, b] = await replicas(handler, {}, (await kind.open()).make);
    const stream = await openStream(a.url, 'tasks/sendSubscribe', { id: 'cancel-me', message: userText('wait') });
    // Read one by one: collect's early stop would end the stream.
    const next = async () => (await within(stream.events.next(), 5_000, 'an event of the stream on A')).value!;
    const opening = [await next(), await next()];
    expect(opening.map((e) => (e.message.result as TaskStatusUpdateEvent).status.state)).toEqual(['working', 'working']);

    const canceled = resultOf(await rpc(b.url, 'tasks/cancel', { id: 'cancel-me' }));
    expect(canceled.status.state).toBe('canceled');
    await within(abortedOnA.promise, 5_000, 'the handler on A seeing its signal abort');
    const rest = await collect(stream);
    expect(results(rest).at(-1)).toMatchObject({ final: true, status: { state: 'canceled' } });
    for (const replica of [a, b]) {
      expect(resultOf(await rpc(replica.url, 'tasks/get', { id: 'cancel-me' })).status.state).toBe('canceled');
    }
  });

  test('1,000 tasks round-robin over A and B, 50 in flight: all complete, none lost or duplicated; owners still hold', async () => {
    const keys = { 'key-alice': 'alice', 'key-bob': 'bob' };
    const data = await kind.open();
    const [a, b] = await replicas(echo, { auth: { strategies: [apiKey({ keys })] } }, data.make);
    const replicaOf = (i: number) => (i % 2 === 0 ? a : b);
    const keyOf = (i: number) => (i % 4 < 2 ? 'key-alice' : 'key-bob');
    const otherKey = (i: number) => (keyOf(i) === 'key-alice' ? 'key-bob' : 'key-alice');
    const taskIds = Array.from({ length: 1000 }, (_, i) => `bulk-${i}-${randomUUID()}`);

    const answers = new Map<string, Task>();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < taskIds.length; i = next++) {
        const response = await rpc(
          replicaOf(i).url,
          'tasks/send',
          { id: taskIds[i], message: userText(`task ${i}`) },
          { headers: { 'X-API-Key': keyOf(i) } },
        );
        answers.set(taskIds[i]!, resultOf(response));
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));

    expect(answers.size).toBe(1000);
    for (const [i, id] of taskIds.entries()) {
      const answer = answers.get(id)!;
      expect(answer).toMatchObject({ id, status: { state: 'completed' } });
      expect(answer.artifacts).toEqual([{ name: 'echo', index: 0, parts: [{ type: 'text', text: `task ${i}` }] }]);
    }
    // Stored once each, every log a single turn: opening working, working, artifact, completed.
    expect((await storedTaskIds(data, a.store)).sort()).toEqual([...taskIds].sort());
    for (const [i, id] of taskIds.entries()) {
      if (i % 50 !== 0) continue;
      const other = replicaOf(i + 1);
      const log = (await other.store.eventsAfter(id, 0))!;
      expect(log.map((e) => e.id)).toEqual([1, 2, 3, 4]);
      expect(resultOf(await rpc(other.url, 'tasks/get', { id }, { headers: { 'X-API-Key': keyOf(i) } }))).toEqual(answers.get(id));
      const stranger = await rpc(other.url, 'tasks/get', { id }, { headers: { 'X-API-Key': otherKey(i) } });
      expect(stranger.error).toMatchObject({ code: -32001 });
      const strangerCancel = await rpc(replicaOf(i).url, 'tasks/cancel', { id }, { headers: { 'X-API-Key': otherKey(i) } });
      expect(strangerCancel.error).toMatchObject({ code: -32001 });
    }
  }, 60_000);

  test('push notifications: one delivery per event (not one per replica), signed with the key both replicas share', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const signingKey = { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'shared-key' };
    const handler: TaskHandler = async function* () {
      yield working('step 1');
      yield working('step 2');
      yield completed('done');
    };
    const [a, b] = await replicas(handler, { pushNotifications: { signingKey, allowlist: ['127.0.0.1'] } }, (await kind.open()).make);

    const received: VerifiedNotification<PushNotificationPayload>[] = [];
    const receiver = express();
    // Verified against B's JWKS, although A and B each sign what they commit.
    receiver.post(
      '/hook',
      pushNotificationReceiver({
        jwksUrl: `${b.url}/.well-known/jwks.json`,
        onNotification: (n) => void received.push(n),
      }),
    );
    const hook = await pool.serve(receiver);
    const pushNotification = { url: `${hook.url}/hook` };

    // The first turn runs on A, the second on B: each replica notifies what it commits.
    const payloadsOf = (taskId: string) => received.map((n) => n.payload).filter((p) => p.taskId === taskId);
    const completedTurns = (taskId: string, turns: number) =>
      eventually(async () => (payloadsOf(taskId).filter((p) => p.status.state === 'completed').length >= turns ? true : undefined));
    expect((await rpc(a.url, 'tasks/send', { id: 'pushed', message: userText('go'), pushNotification })).error).toBeUndefined();
    await completedTurns('pushed', 1);
    expect((await rpc(b.url, 'tasks/send', { id: 'pushed', message: userText('again') })).error).toBeUndefined();
    await completedTurns('pushed', 2);
    // A later task's notifications arrive after any straggling duplicate of the first's would.
    expect((await rpc(b.url, 'tasks/send', { id: 'marker', message: userText('go'), pushNotification })).error).toBeUndefined();
    await completedTurns('marker', 1);

    const statusIds = (await a.store.eventsAfter('pushed', 0))!.filter((e) => isStatusUpdateEvent(e.event)).map((e) => e.id);
    expect(payloadsOf('pushed').map((p) => p.eventId)).toEqual(statusIds);
    expect(payloadsOf('pushed').map((p) => p.status.state)).toEqual([
      ...['working', 'working', 'working', 'completed'],
      ...['working', 'working', 'working', 'completed'],
    ]);
  });
});

describe('replicas when Redis restarts or is down (a redis-server of the test’s own)', () => {
  let own: OwnRedis;
  beforeAll(async () => {
    own = await startOwnRedis();
  });
  afterAll(() => own.dispose());

  test('restarted while idle: the next requests succeed; while down, requests get -32011 and no stack', async () => {
    const prefix = uniquePrefix('replicas');
    const [a, b] = await replicas(echo, {}, () => {
      const store = new RedisTaskStore({ url: own.url, prefix });
      storesOnOwnRedis.push(store);
      return store;
    });
    expect(resultOf(await rpc(a.url, 'tasks/send', { id: 'before', message: userText('one') })).status.state).toBe('completed');

    await own.stop();
    await own.start();
    expect(resultOf(await rpc(b.url, 'tasks/send', { id: 'after-restart', message: userText('two') })).status.state).toBe('completed');
    expect(resultOf(await rpc(a.url, 'tasks/get', { id: 'after-restart' })).status.state).toBe('completed');
    const streamed = await collect(
      await openStream(b.url, 'tasks/sendSubscribe', { id: 'streamed-after-restart', message: userText('three') }),
    );
    expect(results(streamed).at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });

    await own.stop();
    for (const [replica, method, params] of [
      [a, 'tasks/send', { id: 'while-down', message: userText('lost?') }],
      [b, 'tasks/get', { id: 'after-restart' }],
      [b, 'tasks/cancel', { id: 'after-restart' }],
    ] as const) {
      const refused = await rpc(replica.url, method, params);
      expect(refused.httpStatus).toBe(200);
      expect(refused.error).toMatchObject({ code: -32011, message: expect.any(String) });
      expect(JSON.stringify(refused.error)).toMatch(/task store \(Redis\) is unavailable/);
      expect(JSON.stringify(refused.error)).not.toMatch(/at .*\.js:\d+/);
    }
    const refusedStream = await openStream(b.url, 'tasks/sendSubscribe', { id: 'stream-while-down', message: userText('x') });
    expect(refusedStream.headers.get('content-type')).toMatch(/application\/json/);

    await own.start();
    expect(resultOf(await rpc(a.url, 'tasks/send', { id: 'back', message: userText('four') })).status.state).toBe('completed');
  });
});
