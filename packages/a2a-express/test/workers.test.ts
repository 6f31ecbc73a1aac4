// Front ends and workers (the router's `role`, docs/replicas.md): a front end takes the calls and
// queues their turns in the shared store; a worker, with no HTTP server of its own here, runs them.
// The same tests on Redis (a stream with a consumer group) and PostgreSQL (a queue table).
import express from 'express';
import { setTimeout as sleep } from 'node:timers/promises';
import { collect, openStream, rpc, serverPool, sharedStores } from 'a2a-testing';
import { scrape } from 'a2a-testing/metrics';
import {
  A2AError,
  a2aAgent,
  a2aMetrics,
  a2aRouter,
  artifact,
  completed,
  textOf,
  working,
  type A2ARouterOptions,
  type ServedAgent,
  type TaskEvent,
  type TaskHandler,
} from '../src/index.js';
import { roleOptionsFromEnv } from '../src/env.js';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';
import { hasTurnQueue, type SharedTaskStore, type TurnQueue } from '../src/store/task-store.js';
import { eventually, gate, resultOf, silent, testCard, userText } from './helpers.js';

const pool = serverPool();
const agents: ServedAgent[] = [];

/**
 * A short lease: a turn that waits in the queue for several leases must still be there (it holds
 * none), and a worker that took an entry and died is replaced within one.
 */
const LEASE_MS = 600;

type QueueStore = SharedTaskStore & TurnQueue;

/** Each test's data is fresh; each replica's store on it is its own (its own connections). */
const shared = sharedStores<QueueStore>('workers', {
  leaseMs: LEASE_MS,
  make: { redis: (options) => new RedisTaskStore(options), postgres: (options) => new PostgresTaskStore(options) },
});

afterAll(async () => {
  await Promise.all(agents.map((agent) => agent.close()));
  await pool.closeAll();
  await shared.cleanup();
});

/** Handler runs on front ends: none, ever (checked after each test). */
let ranOnFrontEnds = 0;
afterEach(() => expect(ranOnFrontEnds).toBe(0));
// biome-ignore lint/correctness/useYield: a front end's handler is never run; the test counts if it is.
const notOnFrontEnds: TaskHandler = async function* () {
  ranOnFrontEnds++;
};

/** A front end on loopback: the router, with its readiness and metrics beside it; its handler counts any run. */
async function frontEnd(open: () => QueueStore, options: Partial<A2ARouterOptions> = {}) {
  const store = open();
  const router = a2aRouter(notOnFrontEnds, { card: testCard, logger: silent, store, role: 'front-end', metrics: a2aMetrics(), ...options });
  agents.push(router);
  const app = express();
  app.get('/readyz', router.health.ready);
  app.get('/metrics', router.metrics!.handler);
  app.use(router);
  return { url: (await pool.serve(app)).url, store, router };
}

/** A worker: no HTTP server, as `a2aAgent` makes it. */
function worker(handler: TaskHandler, open: () => QueueStore, options: Partial<A2ARouterOptions> = {}): ServedAgent {
  const agent = a2aAgent(handler, { card: testCard, logger: silent, store: open(), role: 'worker', ...options });
  agents.push(agent);
  return agent;
}

const echo: TaskHandler = async function* (ctx) {
  yield working('echoing');
  yield artifact(textOf(ctx.message), { name: 'echo' });
  yield completed('done');
};

async function readiness(at: string): Promise<{ status: number; body: { status: string; reasons?: string[] } }> {
  const response = await fetch(`${at}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string; reasons?: string[] } };
}

test('the in-memory store serves role all only: another role is refused at start, saying why', () => {
  for (const role of ['front-end', 'worker'] as const) {
    expect(() => a2aRouter(echo, { card: testCard, logger: silent, role })).toThrow(
      new TypeError(
        `a2aRouter: role '${role}' needs a task store that replicas share, with a turn queue (RedisTaskStore, PostgresTaskStore); the in-memory task store serves role 'all' only`,
      ),
    );
  }
  expect(() => a2aRouter(echo, { card: testCard, logger: silent, role: 'both' as never })).toThrow(/options.role must be one of/);
});

test('A2A_ROLE and A2A_MAX_CONCURRENT_TURNS: all and 32 unless set; anything else refused, saying what is taken', () => {
  expect(roleOptionsFromEnv({})).toEqual({ role: 'all', maxConcurrentTurns: 32 });
  expect(roleOptionsFromEnv({ A2A_ROLE: ' worker ', A2A_MAX_CONCURRENT_TURNS: '4' })).toEqual({ role: 'worker', maxConcurrentTurns: 4 });
  expect(roleOptionsFromEnv({ A2A_ROLE: 'front-end' }).role).toBe('front-end');
  expect(() => roleOptionsFromEnv({ A2A_ROLE: 'frontend' })).toThrow(
    new TypeError('A2A_ROLE must be all, front-end or worker, got "frontend"'),
  );
  expect(() => roleOptionsFromEnv({ A2A_MAX_CONCURRENT_TURNS: '0' })).toThrow(
    new TypeError('A2A_MAX_CONCURRENT_TURNS must be at least 1, got 0'),
  );
});

describe.each(shared.kinds)('front ends and workers on $name', (kind) => {
  test('a front end with no worker is not ready, saying why; a send queued there outlives leases, shows in /metrics, and completes once a worker comes up', async () => {
    const { make: open } = await kind.open();
    const front = await frontEnd(open);
    expect(hasTurnQueue(front.store)).toBe(true);
    const before = await readiness(front.url);
    expect(before.status).toBe(503);
    expect(before.body.reasons).toEqual([expect.stringMatching(/^no worker is alive to run turns .*none waits yet\)$/)]);

    const sent = rpc(front.url, 'tasks/send', { id: 'queued-1', message: userText('hello worker') });
    await eventually(async () => ((await front.store.queueFigures()).depth === 1 ? true : undefined));
    // Several leases pass: a queued turn holds none, so no sweep fails it (or takes it) meanwhile.
    await sleep(3 * LEASE_MS);
    expect((await front.store.get('queued-1'))!.task.status.state).toBe('working');
    const waiting = await scrape(`${front.url}/metrics`);
    expect(waiting.value('a2a_turn_queue_depth')).toBe(1);
    expect(waiting.value('a2a_turn_queue_oldest_age_seconds')).toBeGreaterThan(0);
    expect(waiting.value('a2a_workers_live')).toBe(0);
    expect((await readiness(front.url)).body.reasons).toEqual([expect.stringMatching(/1 wait, the oldest for \d+ s\)$/)]);

    worker(echo, open);
    const task = resultOf(await sent);
    expect(task.status.state).toBe('completed');
    expect(task.artifacts).toEqual([{ name: 'echo', index: 0, parts: [{ type: 'text', text: 'hello worker' }] }]);
    const after = await readiness(front.url);
    expect(after).toEqual({ status: 200, body: { status: 'ready' } });
    const drained = await scrape(`${front.url}/metrics`);
    expect(drained.value('a2a_turn_queue_depth')).toBe(0);
    expect(drained.value('a2a_turn_queue_oldest_age_seconds')).toBe(0);
    expect(drained.value('a2a_workers_live')).toBe(1);
  });

  test('a worker runs at most maxConcurrentTurns handlers at once; the other turns wait in the queue and run as room frees up', async () => {
    const { make: open } = await kind.open();
    const released = gate();
    let runningNow = 0;
    let mostAtOnce = 0;
    let started = 0;
    const held: TaskHandler = async function* (ctx) {
      runningNow++;
      started++;
      mostAtOnce = Math.max(mostAtOnce, runningNow);
      try {
        await released.promise;
        yield completed(`done ${textOf(ctx.message)}`);
      } finally {
        runningNow--;
      }
    };
    const front = await frontEnd(open);
    const one = worker(held, open, { maxConcurrentTurns: 2, metrics: a2aMetrics() });
    const sends = Array.from({ length: 5 }, (_, i) => rpc(front.url, 'tasks/send', { id: `bounded-${i}`, message: userText(String(i)) }));
    await eventually(async () => (started === 2 && (await front.store.queueFigures()).depth === 3 ? true : undefined));
    const scraped = await scrape(`${front.url}/metrics`);
    expect(scraped.value('a2a_turn_queue_depth')).toBe(3);
    const onWorker = await one.metrics!.registry.getSingleMetric('a2a_worker_turns_running')!.get();
    expect(onWorker.values[0]!.value).toBe(2);
    // However long they wait, no third handler starts while two run.
    await sleep(2 * LEASE_MS);
    expect({ started, runningNow, queued: (await front.store.queueFigures()).depth }).toEqual({ started: 2, runningNow: 2, queued: 3 });
    released.open();
    const tasks = (await Promise.all(sends)).map((response) => resultOf(response));
    expect(tasks.map((task) => [task.id, task.status.state, textOf(task.status.message!)])).toEqual(
      Array.from({ length: 5 }, (_, i) => [`bounded-${i}`, 'completed', `done ${i}`]),
    );
    expect({ started, mostAtOnce }).toEqual({ started: 5, mostAtOnce: 2 });
  });

  test('a streaming send through a front end gets every chunk a worker yields, in order, ending completed: the task log itself', async () => {
    const { make: open } = await kind.open();
    const chunks = 40;
    const streamer: TaskHandler = async function* () {
      yield working('streaming');
      for (let i = 0; i < chunks; i++) yield artifact(`chunk-${i} `, { name: 'log', append: i > 0, lastChunk: i === chunks - 1 });
      yield completed('all chunks written');
    };
    worker(streamer, open);
    const front = await frontEnd(open);
    const stream = await openStream(front.url, 'tasks/sendSubscribe', { id: 'streamed', message: userText('go') }, { eventIds: true });
    expect(stream.status).toBe(200);
    const events = await collect(stream);
    const results = events.map((event) => event.message.result as TaskEvent);
    const texts = results.flatMap((event) =>
      'artifact' in event ? event.artifact.parts.map((part) => (part.type === 'text' ? part.text : '')) : [],
    );
    expect(texts).toEqual(Array.from({ length: chunks }, (_, i) => `chunk-${i} `));
    expect(results.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
    expect(results.filter((event) => 'final' in event && event.final)).toHaveLength(1);
    // Exactly the task's log from its first event, each once, in order.
    const log = (await front.store.eventsAfter('streamed', 0))!;
    expect(events.map((event) => ({ id: Number(event.id), event: event.message.result }))).toEqual(log);
  });

  test('a handler that refuses the turn with an A2AError: a blocking send through a front end answers with that error, as the replica that ran it would, and the task is failed', async () => {
    const { make: open } = await kind.open();
    const refusing: TaskHandler = async function* () {
      yield working('looking at it');
      throw A2AError.invalidParams([{ path: '/message/parts/0', message: 'no carrier pigeons' }]);
    };
    worker(refusing, open);
    const front = await frontEnd(open);
    const retry = { headers: { 'idempotency-key': 'refused-once' } };
    const answer = await rpc(front.url, 'tasks/send', { id: 'refused', message: userText('by pigeon') }, retry);
    expect(answer.error).toEqual({
      code: -32602,
      message: 'Invalid method parameters',
      data: [{ path: '/message/parts/0', message: 'no carrier pigeons' }],
    });
    expect((await front.store.get('refused'))!.task.status.state).toBe('failed');
    // A retry of the same send (its Idempotency-Key), which waits for the task as a blocking send does, answers the same.
    const again = await rpc(front.url, 'tasks/send', { id: 'refused', message: userText('by pigeon') }, retry);
    expect(again.error?.code).toBe(-32602);
  });

  test('a turn taken from the queue by a worker that died before claiming it is taken by another worker once a lease has passed', async () => {
    const { make: open } = await kind.open();
    const front = await frontEnd(open);
    const sent = rpc(front.url, 'tasks/send', { id: 'orphaned', message: userText('still here') });
    // A worker that takes the entry, then is gone: it never claims the turn nor settles the entry.
    const dead = open();
    const taken = await eventually(async () => {
      const entries = await dead.takeQueuedTurns('dead-worker', 1, 200);
      return entries.length > 0 ? entries : undefined;
    });
    expect(taken.map(({ taskId, turn, attempt }) => ({ taskId, turn, attempt }))).toEqual([{ taskId: 'orphaned', turn: 1, attempt: 1 }]);
    worker(echo, open);
    const task = resultOf(await sent);
    expect(task.status.state).toBe('completed');
    expect(task.artifacts![0]!.parts).toEqual([{ type: 'text', text: 'still here' }]);
  });

  test('a worker lost mid-turn: the turn is queued again as its next attempt and resumed by another worker from its checkpoint', async () => {
    const { make: open } = await kind.open();
    const firstRunning = gate();
    const resumedWith: unknown[] = [];
    const resumable: TaskHandler = async function* (ctx) {
      if (ctx.resumed) {
        resumedWith.push({ attempt: ctx.resumed.attempt, checkpoint: ctx.resumed.checkpoint });
        yield completed('finished on the second worker');
        return;
      }
      yield { ...artifact('half ', { name: 'work' }), checkpoint: { half: true } };
      firstRunning.open();
      // Held until its worker goes.
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    };
    const front = await frontEnd(open, { onInterrupted: 'resume' });
    const first = worker(resumable, open, { onInterrupted: 'resume' });
    const sent = rpc(front.url, 'tasks/send', { id: 'lost-worker', message: userText('work') });
    await firstRunning.promise;
    // The worker's process stops: its handler aborted, its lease no longer renewed.
    await first.close();
    worker(resumable, open, { onInterrupted: 'resume' });
    const task = resultOf(await sent);
    expect(task.status.state).toBe('completed');
    expect(textOf(task.status.message!)).toBe('finished on the second worker');
    expect(resumedWith).toEqual([{ attempt: 2, checkpoint: { half: true } }]);
  });

  test('a worker drained mid-turn hands it over: the turn is queued again and another worker runs it with ctx.resumed.reason hand-over', async () => {
    const { make: open } = await kind.open();
    const firstRunning = gate();
    const resumedWith: unknown[] = [];
    const resumable: TaskHandler = async function* (ctx) {
      if (ctx.resumed) {
        resumedWith.push({ attempt: ctx.resumed.attempt, reason: ctx.resumed.reason, checkpoint: ctx.resumed.checkpoint });
        yield completed('finished after the hand-over');
        return;
      }
      yield { ...artifact('half ', { name: 'work' }), checkpoint: { half: true } };
      firstRunning.open();
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    };
    const front = await frontEnd(open, { onInterrupted: 'resume' });
    const first = worker(resumable, open, { onInterrupted: 'resume' });
    const sent = rpc(front.url, 'tasks/send', { id: 'handed-over-worker', message: userText('work') });
    await firstRunning.promise;
    // A deploy stops the worker: the turn still runs at the drain's deadline, so it is handed over.
    const report = await first.drain({ deadlineMs: 50 });
    expect(report).toMatchObject({ handedOver: 1 });
    worker(resumable, open, { onInterrupted: 'resume' });
    const task = resultOf(await sent);
    expect(task.status.state).toBe('completed');
    expect(resumedWith).toEqual([{ attempt: 2, reason: 'hand-over', checkpoint: { half: true } }]);
  });
});
