// The router's Prometheus metrics, scraped from a real /metrics endpoint before and after calls
// and read with a parser of the text format: calls by version, binding, method and outcome;
// durations; turns; streams; the in-memory store and its evictions; push deliveries, retries and
// failures; Redis commands and PostgreSQL operations, and their errors; drains. Label values never
// carry a task id.
import express from 'express';
import { listen, serverPool, startOwnPostgres, startOwnRedis, type OwnPostgres, type OwnRedis } from 'a2a-testing';
import { parseScrape, type Scrape, scrape } from 'a2a-testing/metrics';
import { a2aFetchHandler } from '../src/fetch.js';
import { a2aNodeHandler } from '../src/node.js';
import { a2aMetrics, a2aRouter, artifact, completed, textOf, type TaskContext, type TaskHandler } from '../src/index.js';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';
import { InMemoryTaskStore } from '../src/store/index.js';
import { eventually, gate, message03, message10, request, sendRequest, silent, testCard } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

async function* echoing(ctx: TaskContext) {
  const text = textOf(ctx.message);
  const chunks = /^chunks (\d+)$/.exec(text);
  if (chunks) for (let i = 1; i <= Number(chunks[1]); i++) yield artifact(`chunk ${i}`, { index: 0, append: i > 1 });
  else yield artifact(ctx.message.parts);
  yield completed();
}
const echo: TaskHandler = echoing;

/** An agent with metrics on, its /metrics served beside it as the samples serve it. */
async function agentWithMetrics(handler: TaskHandler = echo, options: Record<string, unknown> = {}) {
  const router = a2aRouter(handler, { card: testCard, logger: silent, metrics: true, ...options });
  const app = express().use(router).get('/metrics', router.metrics!.handler);
  const { url } = await serve(app);
  return { url, router, scrape: () => scrape(`${url}/metrics`) };
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** Waits, a bounded number of times, for `check` of a fresh scrape to hold. */
async function scrapeUntil(read: () => Promise<Scrape>, check: (s: Scrape) => boolean, what: string): Promise<Scrape> {
  let last = await read();
  for (let attempt = 0; attempt < 100 && !check(last); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
  if (!check(last)) throw new Error(`timed out waiting for ${what}`);
  return last;
}

test('calls are counted by version, binding, method and outcome, with their durations and turns', async () => {
  const agent = await agentWithMetrics();
  const before = await agent.scrape();
  await post(agent.url, sendRequest('m-1', 'hello'));
  await post(agent.url, request('tasks/get', { id: 'm-missing' }));
  await post(agent.url, request('no/such-method', {}));
  await post(`${agent.url}/v0.3`, request('message/send', { message: message03('hello') }));
  await post(`${agent.url}/v1/message:send`, { message: message10('hello') }, { 'A2A-Version': '1.0' });
  const after = await agent.scrape();
  const delta = (labels: Record<string, string>) => after.value('a2a_calls_total', labels) - before.value('a2a_calls_total', labels);

  expect(after.type('a2a_calls_total')).toBe('COUNTER');
  expect(delta({ version: '0.1.0', binding: 'jsonrpc', method: 'tasks/send', outcome: 'ok' })).toBe(1);
  expect(delta({ version: '0.1.0', binding: 'jsonrpc', method: 'tasks/get', outcome: '-32001' })).toBe(1);
  // A method no version has is `other`: a client cannot make up label values.
  expect(delta({ version: '0.1.0', method: 'other', outcome: '-32601' })).toBe(1);
  expect(after.families.flatMap((f) => f.metrics).some((m) => m.labels?.method === 'no/such-method')).toBe(false);
  expect(delta({ version: '0.3', binding: 'jsonrpc', method: 'message/send', outcome: 'ok' })).toBe(1);
  expect(delta({ version: '1.0', binding: 'rest', method: 'SendMessage', outcome: 'ok' })).toBe(1);

  expect(after.type('a2a_call_duration_seconds')).toBe('HISTOGRAM');
  const durations = (s: Scrape) => s.count('a2a_call_duration_seconds', { version: '0.1.0', method: 'tasks/send' });
  expect(durations(after) - durations(before)).toBe(1);
  const turns = (s: Scrape) => s.count('a2a_turn_duration_seconds', { state: 'completed' });
  expect(turns(after) - turns(before)).toBe(3);
  // No task id in any label.
  expect(JSON.stringify(after.families)).not.toContain('m-1');
});

test('open streams and the events they sent', async () => {
  const held = gate();
  const agent = await agentWithMetrics(async function* (ctx) {
    if (textOf(ctx.message) === 'hold') await held.promise;
    yield* echoing(ctx);
  });
  const open = await fetch(`${agent.url}/v0.3`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(request('message/stream', { message: message03('hold') })),
  });
  await scrapeUntil(agent.scrape, (s) => s.value('a2a_streams_open', { version: '0.3' }) === 1, 'the stream to be open');
  held.open();
  await open.text();
  const streamed = await post(
    agent.url,
    request('tasks/sendSubscribe', { id: 'm-stream', message: { role: 'user', parts: [{ type: 'text', text: 'chunks 4' }] } }),
    {
      accept: 'text/event-stream',
    },
  );
  await streamed.text();
  const after = await scrapeUntil(agent.scrape, (s) => s.value('a2a_streams_open') === 0, 'the streams to close');
  // 0.3: working, the echo, completed; 0.1.0: working, four chunks, completed.
  expect(after.value('a2a_stream_events_total', { version: '0.3' })).toBe(3);
  expect(after.value('a2a_stream_events_total', { version: '0.1.0' })).toBe(6);
  expect(after.count('a2a_call_duration_seconds', { method: 'message/stream' })).toBe(1);
});

test('the in-memory store: tasks, bytes and an eviction', async () => {
  const agent = await agentWithMetrics(echo, { store: new InMemoryTaskStore({ maxTasks: 2 }) });
  for (const id of ['e-1', 'e-2', 'e-3']) await post(agent.url, sendRequest(id, 'hello'));
  const after = await agent.scrape();
  expect(after.value('a2a_store_tasks')).toBe(2);
  expect(after.value('a2a_store_bytes')).toBeGreaterThan(0);
  expect(after.value('a2a_store_evictions_total', { bound: 'maxTasks' })).toBe(1);
});

test('push deliveries: a webhook that fails is retried, then counted as failed, with its latency', async () => {
  let hits = 0;
  const failing = await listen((_req, res) => {
    hits++;
    res.statusCode = 500;
    res.end();
  });
  try {
    const agent = await agentWithMetrics(echo, { pushNotifications: { allowlist: ['127.0.0.1'], retries: 1, retryBackoffMs: 1 } });
    await post(agent.url, sendRequest('push-1', 'hello', { pushNotification: { url: `${failing.url}/hook` } }));
    // Two status events (working, completed), each tried twice.
    const after = await scrapeUntil(
      agent.scrape,
      (s) => s.value('a2a_push_deliveries_total', { outcome: 'failed' }) === 2,
      'two failed deliveries',
    );
    expect(hits).toBe(4);
    expect(after.value('a2a_push_retries_total')).toBe(2);
    expect(after.value('a2a_push_deliveries_total', { outcome: 'delivered' })).toBe(0);
    expect(after.count('a2a_push_delivery_duration_seconds', { outcome: 'failed' })).toBe(2);
  } finally {
    await failing.close();
  }
});

test('a drain is counted, and so are the calls it refuses', async () => {
  const agent = await agentWithMetrics();
  await agent.router.drain({ deadlineMs: 100 });
  const refused = await post(agent.url, sendRequest('d-1', 'hello'));
  expect(refused.status).toBe(503);
  const after = await agent.scrape();
  expect(after.value('a2a_drains_total')).toBe(1);
  expect(after.value('a2a_draining')).toBe(1);
  expect(after.value('a2a_calls_total', { version: '0.1.0', method: 'other', outcome: '-32011' })).toBe(1);
});

describe('with the Redis store', () => {
  let redis: OwnRedis;
  beforeAll(async () => {
    redis = await startOwnRedis();
  });
  afterAll(() => redis.dispose());

  test("its commands' latency, and the commands that fail while Redis is down", async () => {
    const store = new RedisTaskStore({ url: redis.url, prefix: 'metrics:', commandTimeoutMs: 500 });
    const agent = await agentWithMetrics(echo, { store });
    try {
      const sent = (await (await post(agent.url, sendRequest('r-1', 'hello'))).json()) as { result?: { status: { state: string } } };
      expect(sent.result?.status.state).toBe('completed');
      const up = await agent.scrape();
      expect(up.count('a2a_redis_command_duration_seconds', { command: 'a2aUpdate' })).toBeGreaterThan(0);
      expect(up.value('a2a_redis_errors_total')).toBe(0);
      await redis.stop();
      const answer = (await (await post(agent.url, sendRequest('r-2', 'hello'))).json()) as { error?: { code: number } };
      expect(answer.error?.code).toBe(-32011);
      const down = await agent.scrape();
      expect(down.value('a2a_redis_errors_total')).toBeGreaterThan(0);
      await redis.start();
      // Closed once connected again, so that no reconnection is under way when the store quits.
      await eventually(() =>
        store.ping().then(
          () => true,
          () => undefined,
        ),
      );
    } finally {
      await agent.router.close();
      await store.close();
    }
  });
});

describe('with the PostgreSQL store', () => {
  let postgres: OwnPostgres;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
  });
  afterAll(() => postgres.dispose());

  test("its operations' latency, and the operations that fail (-32011 for the client) while PostgreSQL is down; never what it refuses of a client", async () => {
    const store = new PostgresTaskStore({ connectionString: postgres.url, schema: 'metrics' });
    const agent = await agentWithMetrics(echo, { store, pushNotifications: { allowlist: ['127.0.0.1'] } });
    try {
      const sent = (await (await post(agent.url, sendRequest('p-1', 'hello'))).json()) as { result?: { status: { state: string } } };
      expect(sent.result?.status.state).toBe('completed');
      // Ids PostgreSQL cannot keep (U+0000), on each version; a config the task does not have, deleted.
      const refusals: [string, unknown][] = [
        ['/', sendRequest('p\u0000nul', 'hello')],
        ['/', request('tasks/cancel', { id: 'p\u0000nul' })],
        ['/v0.3', request('message/send', { message: message03('hello', { contextId: 'c\u0000nul' }) })],
        ['/v1', request('SendMessage', { message: message10('hello', { contextId: 'c\u0000nul' }) })],
        ['/v1', request('CancelTask', { id: 'p\u0000nul' })],
      ];
      for (const [path, body] of refusals) {
        const answer = (await (await post(`${agent.url}${path}`, body, { 'A2A-Version': '1.0' })).json()) as { error?: { code: number } };
        expect({ path, code: answer.error?.code }).toEqual({ path, code: -32602 });
      }
      const deleted = await post(`${agent.url}/v1`, request('DeleteTaskPushNotificationConfig', { taskId: 'p-1', id: 'none' }), {
        'A2A-Version': '1.0',
      });
      expect(((await deleted.json()) as { error?: unknown }).error).toBeUndefined();
      const up = await agent.scrape();
      expect(up.count('a2a_postgres_operation_duration_seconds', { operation: 'update' })).toBeGreaterThan(0);
      expect(up.value('a2a_postgres_errors_total')).toBe(0);
      await postgres.stop();
      const answer = (await (await post(agent.url, sendRequest('p-2', 'hello'))).json()) as { error?: { code: number; data?: unknown } };
      expect(answer.error).toMatchObject({
        code: -32011,
        data: { reason: expect.stringContaining('task store (PostgreSQL) is unavailable') },
      });
      const down = await agent.scrape();
      expect(down.value('a2a_postgres_errors_total')).toBeGreaterThan(0);
      await postgres.start();
    } finally {
      await agent.router.close();
      await store.close();
    }
  });
});

test('metrics made with a2aMetrics: a prefix of its own and, when asked, the process metrics', async () => {
  const metrics = a2aMetrics({ prefix: 'echo_', processMetrics: true });
  const router = a2aRouter(echo, { card: testCard, logger: silent, metrics });
  expect(router.metrics).toBe(metrics);
  const text = await metrics.registry.metrics();
  const parsed = parseScrape(text);
  expect(parsed.type('echo_calls_total')).toBe('COUNTER');
  expect(parsed.type('process_cpu_user_seconds_total')).toBe('COUNTER');
  expect(parsed.type('a2a_calls_total')).toBeUndefined();
});

test('metrics are off by default, and a wrong option is refused when the router is made', () => {
  expect(a2aRouter(echo, { card: testCard, logger: silent }).metrics).toBeUndefined();
  expect(() => a2aRouter(echo, { card: testCard, logger: silent, metrics: 'yes' as never })).toThrow(/options\.metrics must be/);
});

test('metrics: true is Node’s entries’ own: the fetch handler, which does not load prom-client, takes a2aMetrics() and says so', async () => {
  const nodeAgent = a2aNodeHandler(echo, { card: testCard, logger: silent, metrics: true });
  expect(nodeAgent.metrics).toBeDefined();
  await nodeAgent.close();
  expect(() => a2aFetchHandler(echo, { card: testCard, logger: silent, metrics: true })).toThrow(
    "a2aFetchHandler: options.metrics: true needs prom-client, which needs Node; give the metrics made with a2aMetrics() (from 'a2a-express')",
  );
  const metrics = a2aMetrics();
  const agent = a2aFetchHandler(echo, { card: testCard, logger: silent, metrics });
  expect(agent.metrics).toBe(metrics);
  await agent(
    new Request('http://agent.test/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(sendRequest('t1', 'hi')),
    }),
  );
  expect(parseScrape(await metrics.registry.metrics()).type('a2a_calls_total')).toBe('COUNTER');
  await agent.close();
});
