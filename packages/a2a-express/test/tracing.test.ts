// What the router traces, with the OpenTelemetry SDK registered and its spans kept in memory: a
// server span per call joined to the caller's traceparent, named after the method, on every
// version and binding; one child per call of a batch; the stream, the turn and the Redis and PostgreSQL stores'
// commands under the call; the outcome code on the span; never a message's content.
import express from 'express';
import request from 'supertest';
import { dropSchema, postgresUrl, requirePostgres, requireRedis, uniquePrefix, uniqueSchema } from 'a2a-testing';
import { type ReadableSpan, startInMemoryTracing } from 'a2a-testing/tracing';
import { a2aAgent, a2aRouter, artifact, completed, textOf } from '../src/index.js';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';
import type { TaskStore } from '../src/store/index.js';
import { appWith, eventually, gate, message03, message10, request as rpcRequest, sendRequest, silent, testCard } from './helpers.js';

const tracing = startInMemoryTracing();
afterAll(() => tracing.stop());
beforeEach(() => tracing.exporter.reset());

const { app } = appWith(async function* (ctx) {
  const text = textOf(ctx.message);
  const chunks = /^chunks (\d+)$/.exec(text);
  for (let i = 1; i <= Number(chunks?.[1] ?? 1); i++) yield artifact(`chunk ${i}`, { index: 0, append: i > 1, lastChunk: false });
  yield completed();
});

/** A caller's trace context: trace id, its span id. */
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
const traceparent = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

const serverSpans = () =>
  tracing.spans().filter((span) => span.instrumentationScope.name === 'a2a-express' && span.kind === 1 /* SERVER */);
const only = (spans: ReadableSpan[]) => {
  // Names, not spans: a span holds its processor, which a failure message would print whole.
  expect(spans.map((span) => span.name)).toHaveLength(1);
  return spans[0]!;
};
/** The request's server span, once it has ended (just after the response's own close listeners). */
async function oneServerSpan(): Promise<ReadableSpan> {
  await eventually(async () => (serverSpans().length > 0 ? true : undefined));
  return only(serverSpans());
}

test("a 0.1.0 call is a server span in the caller's trace, named after its method, with version, task and outcome", async () => {
  await request(app).post('/').set('traceparent', traceparent).send(sendRequest('traced-1', 'a secret sentence')).expect(200);
  const span = await oneServerSpan();
  expect(span.spanContext().traceId).toBe(TRACE_ID);
  expect(span.parentSpanContext?.spanId).toBe(CALLER_SPAN);
  expect(span.name).toBe('tasks/send');
  expect(span.attributes).toMatchObject({
    'a2a.protocol.version': '0.1.0',
    'a2a.binding': 'jsonrpc',
    'rpc.system': 'jsonrpc',
    'rpc.method': 'tasks/send',
    'a2a.task.id': 'traced-1',
    'a2a.outcome': 'ok',
    'http.request.method': 'POST',
    'http.route': '/',
    'http.response.status_code': 200,
  });
  const turn = only(tracing.spans().filter((s) => s.name === 'a2a turn'));
  expect(tracing.parentOf(turn, tracing.spans())).toBe(span);
  for (const each of tracing.spans()) expect(JSON.stringify(each.attributes)).not.toContain('secret sentence');
});

test('a turn that outlives its request stays a child of the call that started it', async () => {
  const released = gate();
  const { app: slow } = appWith(
    async function* () {
      await released.promise;
      yield completed();
    },
    { sendWaitMs: 20 },
  );
  const answer = await request(slow).post('/').send(sendRequest('outlives', 'x')).expect(200);
  expect(answer.body.result.status.state).toBe('working');
  const call = await oneServerSpan();
  expect(tracing.spans().some((s) => s.name === 'a2a turn')).toBe(false);
  released.open();
  await eventually(async () => tracing.spans().find((s) => s.name === 'a2a turn'));
  const turn = only(tracing.spans().filter((s) => s.name === 'a2a turn'));
  expect(tracing.parentOf(turn, tracing.spans())).toBe(call);
  expect(turn.attributes['a2a.task.state']).toBe('completed');
});

test('an error is on the span as its code; a refused call still has its span', async () => {
  await request(app)
    .post('/v0.3')
    .send(rpcRequest('tasks/get', { id: 'no-such-task' }))
    .expect(200);
  const span = await oneServerSpan();
  expect(span.name).toBe('tasks/get');
  expect(span.attributes).toMatchObject({ 'a2a.protocol.version': '0.3', 'a2a.outcome': 'error', 'a2a.error.code': -32001 });
});

test('a method the version does not have is named `other`: a span takes no name a client made up', async () => {
  await request(app).post('/').send(rpcRequest('made/up-by-the-client', {})).expect(200);
  const span = await oneServerSpan();
  expect(span.name).toBe('other');
  expect(span.attributes).toMatchObject({ 'rpc.method': 'other', 'a2a.error.code': -32601 });
});

test('A2A 1.0 over HTTP+JSON: the span says the binding and is named after the method the route runs', async () => {
  await request(app)
    .post('/v1/message:send')
    .set('A2A-Version', '1.0')
    .set('traceparent', traceparent)
    .send({ message: message10('hello') })
    .expect(200);
  const span = await oneServerSpan();
  expect(span.spanContext().traceId).toBe(TRACE_ID);
  expect(span.name).toBe('SendMessage');
  expect(span.attributes).toMatchObject({ 'a2a.protocol.version': '1.0', 'a2a.binding': 'rest', 'a2a.outcome': 'ok', 'http.route': '/v1' });
});

test('each call of a batch is a child span of the request', async () => {
  await request(app)
    .post('/')
    .send([sendRequest('batch-a', 'one', {}, 1), rpcRequest('tasks/get', { id: 'batch-missing' }, 2)])
    .expect(200);
  const server = await oneServerSpan();
  const spans = tracing.spans();
  const children = spans.filter((s) => tracing.parentOf(s, spans) === server);
  expect(children.map((s) => [s.name, s.attributes['a2a.outcome']]).sort()).toEqual([
    ['tasks/get', 'error'],
    ['tasks/send', 'ok'],
  ]);
  // The turn a call starts is that call's child.
  const turn = only(spans.filter((s) => s.name === 'a2a turn'));
  expect(tracing.parentOf(turn, spans)?.name).toBe('tasks/send');
});

test('a stream is a child span of its call that counts the events it sent', async () => {
  const res = await request(app)
    .post('/v0.3')
    .set('accept', 'text/event-stream')
    .send(rpcRequest('message/stream', { message: message03('chunks 5') }))
    .expect(200);
  expect(res.text).toContain('"final":true');
  const server = await oneServerSpan();
  const spans = tracing.spans();
  const stream = only(spans.filter((s) => s.name === 'a2a stream'));
  expect(tracing.parentOf(stream, spans)).toBe(server);
  // The call's outcome is known when its stream ends, just before the request's span does.
  expect(server.attributes).toMatchObject({ 'rpc.method': 'message/stream', 'a2a.outcome': 'ok' });
  // working, five chunks, completed.
  expect(stream.attributes).toMatchObject({ 'a2a.protocol.version': '0.3', 'a2a.stream.events': 7, 'a2a.stream.end': 'ended' });
});

const pgSchema = uniqueSchema('tracing');
const redisPrefix = uniquePrefix('tracing');

describe.each([
  [
    'Redis',
    'redis',
    'redis a2aUpdate',
    // One prefix for the file's stores: a front end and a worker meet in it.
    async (): Promise<TaskStore> => new RedisTaskStore({ url: await requireRedis(), prefix: redisPrefix }),
  ],
  [
    'PostgreSQL',
    'postgresql',
    'postgresql update',
    async (): Promise<TaskStore> => new PostgresTaskStore({ connectionString: await requirePostgres(postgresUrl()), schema: pgSchema }),
  ],
] as const)('with the %s store', (_, system, updateSpan, open) => {
  let store: TaskStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store.close();
    if (system === 'postgresql') await dropSchema(postgresUrl(), pgSchema);
  });

  test('a turn a worker takes from the queue is a child of the call that queued it: the front end and the worker are one trace', async () => {
    const second = await open();
    const front = a2aRouter(async function* () {}, { card: testCard, logger: silent, store, role: 'front-end' });
    const worker = a2aAgent(
      async function* () {
        yield completed();
      },
      { card: testCard, logger: silent, store: second, role: 'worker' },
    );
    try {
      await request(express().use(front))
        .post('/')
        .set('traceparent', traceparent)
        .send(sendRequest(`queued-${system}`, 'hi'))
        .expect(200);
      await eventually(async () => (tracing.spans().some((s) => s.name === 'a2a turn') ? true : undefined));
      const server = only(serverSpans().filter((span) => span.name === 'tasks/send'));
      const turn = only(tracing.spans().filter((span) => span.name === 'a2a turn'));
      expect(turn.spanContext().traceId).toBe(TRACE_ID);
      expect(turn.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    } finally {
      await front.close();
      await worker.close();
      await second.close();
    }
  });

  test("the store's commands are spans under the call that caused them", async () => {
    const { app: redisApp, router } = appWith(
      async function* () {
        yield completed();
      },
      { store },
    );
    await request(redisApp).post('/').send(sendRequest('redis-traced', 'hi')).expect(200);
    const spans = tracing.spans();
    const server = await oneServerSpan();
    const commands = spans.filter((s) => s.name.startsWith(`${system} `));
    expect(commands.map((s) => s.name)).toContain(updateSpan);
    for (const command of commands) {
      expect(tracing.ancestors(command, spans)).toContain(server);
      expect(command.attributes).toMatchObject({ 'db.system.name': system });
    }
    await router.close();
  });
});
