// serveAgent as a process: shutdown that drains (SIGTERM), and timeouts for clients that send
// their request slowly. Each test starts a small agent (below) in a child process on loopback.
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import request from 'supertest';
import { collect, freePort, listen, openStream, rpc, spawnAgent, within, type SpawnedAgent } from 'a2a-testing';
import { scrape } from 'a2a-testing/metrics';
import { isStatusUpdateEvent } from 'a2a-types';
import { a2aRouter, completed, SHUTDOWN_MESSAGE, working, type TaskEvent } from '../src/index.js';
import { gate, silent, userText } from './helpers.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

// An agent whose turns yield STEPS chunks, STEP_MS apart, served by serveAgent as the samples do.
const AGENT = `
import express from 'express';
import { pino } from 'pino';
import { a2aRouter, apiKey, artifact, completed, serveAgent, working } from './dist/index.js';
const env = (name, fallback) => Number(process.env[name] ?? fallback);
const logger = pino({ level: 'info' });
const router = a2aRouter(async function* () {
  yield working('started');
  for (let i = 0; i < env('STEPS', 3); i++) {
    await new Promise((resolve) => setTimeout(resolve, env('STEP_MS', 100)));
    yield artifact('chunk ' + i + ' ', { index: 0, append: i > 0 });
  }
  yield completed('done');
}, {
  card: { name: 'Serve test', version: '1.0.0' }, logger, sendWaitMs: 60000, metrics: process.env.METRICS === '1',
  ...(process.env.API_KEY ? { auth: { strategies: [apiKey({ keys: { [process.env.API_KEY]: 'ops' } })] } } : {}),
});
serveAgent(express().use(router), {
  name: 'serve test agent', port: 0, host: '127.0.0.1', logger, router,
  metricsPort: process.env.METRICS_PORT ? Number(process.env.METRICS_PORT) : undefined,
  shutdownGraceMs: env('GRACE_MS', 10000),
  requestTimeoutMs: env('REQUEST_TIMEOUT_MS', 30000),
  headersTimeoutMs: env('HEADERS_TIMEOUT_MS', 10000),
});
`;

const started: SpawnedAgent[] = [];
async function start(env: Record<string, string>): Promise<SpawnedAgent> {
  const agent = await spawnAgent(process.execPath, ['--input-type=module', '-e', AGENT], { cwd: packageDir, env });
  started.push(agent);
  return agent;
}
// A test that failed half-way leaves no agent behind.
afterAll(() => {
  for (const agent of started) if (agent.child.exitCode === null) agent.child.kill('SIGKILL');
});

/** The next `count` events of a stream, leaving it open (collect with `max` would close it). */
async function next(stream: Awaited<ReturnType<typeof openStream>>, count: number) {
  const events = [];
  for (let i = 0; i < count; i++) events.push((await within(stream.events.next(), 5_000, 'an event')).value!);
  return events;
}

async function exitCode(agent: SpawnedAgent): Promise<number | null> {
  if (agent.child.exitCode !== null) return agent.child.exitCode;
  return within(new Promise((resolve) => agent.child.once('exit', resolve)), 15_000, 'the agent to exit');
}

const resultsOf = (events: { message: { result?: TaskEvent } }[]) => events.map((e) => e.message.result!);
const finalOf = (events: TaskEvent[]) => events.filter(isStatusUpdateEvent).filter((e) => e.final);

describe('shutdown drains (SIGTERM)', () => {
  test('running turns finish within the grace period: their streams get every event, a waiting tasks/send its final answer, exit 0', async () => {
    const agent = await start({ STEPS: '4', STEP_MS: '150', GRACE_MS: '10000' });
    const stream = await openStream(agent.url, 'tasks/sendSubscribe', { id: 'streamed', message: userText('go') });
    const first = await next(stream, 2); // working, working 'started'
    const waiting = rpc(agent.url, 'tasks/send', { id: 'waited', message: userText('go') });
    const rest = collect(stream);
    // The waiting send's turn has started once its task is there.
    await within(
      (async () => {
        while ((await rpc(agent.url, 'tasks/get', { id: 'waited' })).error);
      })(),
      5_000,
      'the waited task',
    );
    agent.child.kill('SIGTERM');
    const events = [...resultsOf(first), ...resultsOf(await rest)];
    expect(events.filter((e) => 'artifact' in e)).toHaveLength(4);
    expect(finalOf(events)).toEqual([expect.objectContaining({ status: expect.objectContaining({ state: 'completed' }) })]);
    expect((await waiting).result?.status.state).toBe('completed');
    expect(await exitCode(agent)).toBe(0);
    expect(agent.output()).toMatch(/"finished":2,"stopped":0.*"msg":"drained"/);
  });

  test('turns still running at the deadline end with a final event that says why, and the process exits 0', async () => {
    const agent = await start({ STEPS: '1000', STEP_MS: '200', GRACE_MS: '300' });
    const stream = await openStream(agent.url, 'tasks/sendSubscribe', { id: 'cut-short', message: userText('go') });
    await next(stream, 2);
    const waiting = rpc(agent.url, 'tasks/send', { id: 'cut-waiting', message: userText('go') });
    await within(
      (async () => {
        while ((await rpc(agent.url, 'tasks/get', { id: 'cut-waiting' })).error);
      })(),
      5_000,
      'the waiting task',
    );
    const rest = collect(stream);
    agent.child.kill('SIGTERM');
    const finals = finalOf(resultsOf(await rest));
    expect(finals).toHaveLength(1);
    expect(finals[0]).toMatchObject({
      final: true,
      status: { state: 'failed', message: { parts: [{ type: 'text', text: SHUTDOWN_MESSAGE }] } },
    });
    const answered = await waiting;
    expect(answered.result?.status).toMatchObject({ state: 'failed', message: { parts: [{ text: SHUTDOWN_MESSAGE }] } });
    expect(await exitCode(agent)).toBe(0);
    expect(agent.output()).toMatch(/"finished":0,"stopped":2.*"msg":"drained"/);
  });
});

describe('router.drain()', () => {
  test("a call that arrives while draining gets HTTP 503 with -32011; the card and the host app's routes are still served", async () => {
    const held = gate();
    const router = a2aRouter(
      async function* () {
        yield working();
        await held.promise;
      },
      { card: { name: 'Drain', version: '1.0.0' }, logger: silent },
    );
    const app = express()
      .use(router)
      .get('/health', (_req, res) => void res.send('ok'));
    await request(app)
      .post('/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/send', params: { id: 'held', message: userText('x') } }))
      .timeout(50)
      .catch(() => undefined);
    const drained = router.drain({ deadlineMs: 5_000 });
    const refused = await request(app)
      .post('/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: 'held' } }));
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32011, message: 'A required resource is unavailable', data: { reason: 'the agent is shutting down' } },
    });
    // The endpoints' other spellings (which Express's routing, not the router's lookup, finds) too.
    for (const path of ['/v0.3', '/v0.3/', '/V1']) {
      const other = await request(app).post(path).set('Content-Type', 'application/json').send('{}');
      expect([path, other.status, other.headers['retry-after']]).toEqual([path, 503, '1']);
    }
    expect((await request(app).get('/.well-known/agent.json')).status).toBe(200);
    expect((await request(app).get('/health')).text).toBe('ok');
    held.open();
    expect(await drained).toEqual({ finished: 1, stopped: 0 });
    await router.close();
  });
});

test('each JSON-RPC endpoint answers at every spelling of its path that Express routes (a trailing slash, another case), and refuses GET', async () => {
  const router = a2aRouter(
    async function* () {
      yield completed();
    },
    { card: { name: 'Spellings', version: '1.0.0' }, logger: silent },
  );
  const app = express().use(router);
  const calls: [string, object, Record<string, string>][] = [
    ['/', { method: 'tasks/get', params: { id: 'none' } }, {}],
    ['/v0.3', { method: 'tasks/get', params: { id: 'none' } }, {}],
    ['/v1', { method: 'GetTask', params: { id: 'none' } }, { 'A2A-Version': '1.0' }],
  ];
  for (const [path, call, headers] of calls) {
    for (const spelling of [path, `${path}/`.replace('//', '/'), path.toUpperCase()]) {
      const answer = await request(app)
        .post(spelling)
        .set({ 'Content-Type': 'application/json', ...headers })
        .send(JSON.stringify({ jsonrpc: '2.0', id: 7, ...call }));
      expect([spelling, answer.status, answer.body.error?.code]).toEqual([spelling, 200, -32001]);
    }
    const get = await request(app).get(path === '/' ? '/' : `${path}/`);
    expect([path, get.status, get.headers.allow]).toEqual([path, 405, 'POST']);
  }
  await router.close();
});

describe('clients that send their request slowly', () => {
  let agent: SpawnedAgent;
  beforeAll(async () => {
    agent = await start({ STEPS: '4', STEP_MS: '300', REQUEST_TIMEOUT_MS: '500', HEADERS_TIMEOUT_MS: '400' });
  });
  afterAll(async () => {
    agent.child.kill('SIGTERM');
    await exitCode(agent);
  });

  /** Sends `partial` and nothing more; resolves with what the server answered before closing. */
  function stall(partial: string): Promise<string> {
    const { port } = new URL(agent.url);
    return within(
      new Promise((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write(partial));
        let answer = '';
        socket.on('data', (d: Buffer) => (answer += d.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', () => resolve(answer));
      }),
      10_000,
      'the server to give up on a stalled request',
    );
  }

  test('a body that stops coming: 408 and the connection closed', async () => {
    const answer = await stall(
      'POST / HTTP/1.1\r\nHost: agent\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"jsonrpc":',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  test('headers that stop coming: 408 and the connection closed', async () => {
    const answer = await stall('POST / HTTP/1.1\r\nHost: agent\r\nContent-Ty');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  test('a stream may last longer than the request timeout', async () => {
    const events = resultsOf(await collect(await openStream(agent.url, 'tasks/sendSubscribe', { id: 'long', message: userText('go') })));
    expect(events.filter((e) => 'artifact' in e)).toHaveLength(4);
    expect(finalOf(events)[0]).toMatchObject({ status: { state: 'completed' } });
  });
});

describe('health, metrics and traces', () => {
  test('serves /livez and /readyz, and, with metrics on, /metrics on the agent port', async () => {
    const agent = await start({ METRICS: '1' });
    expect((await fetch(`${agent.url}/livez`)).status).toBe(200);
    expect(await (await fetch(`${agent.url}/readyz`)).json()).toEqual({ status: 'ready' });
    await rpc(agent.url, 'tasks/get', { id: 'no-such-task' });
    const metrics = await scrape(`${agent.url}/metrics`);
    expect(metrics.value('a2a_calls_total', { method: 'tasks/get', outcome: '-32001' })).toBe(1);
    expect(await agent.stop()).toBe(0);
  });

  test('with auth on, /metrics on the agent port needs the same credentials as the agent', async () => {
    const agent = await start({ METRICS: '1', API_KEY: 'metrics-test-key' });
    const refused = await fetch(`${agent.url}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('ApiKey');
    expect(await refused.text()).not.toContain('a2a_calls_total');
    expect((await fetch(`${agent.url}/metrics`, { headers: { 'x-api-key': 'wrong' } })).status).toBe(401);
    const metrics = await scrape(`${agent.url}/metrics`, { headers: { 'x-api-key': 'metrics-test-key' } });
    expect(metrics.type('a2a_calls_total')).toBe('COUNTER');
    // The probes stay open: an orchestrator has no credentials.
    expect((await fetch(`${agent.url}/readyz`)).status).toBe(200);
    expect(await agent.stop()).toBe(0);
  });

  test('with metricsPort, /metrics is on a port of its own and not on the agent port', async () => {
    const port = await freePort();
    const agent = await start({ METRICS: '1', METRICS_PORT: String(port) });
    expect((await fetch(`${agent.url}/metrics`)).status).toBe(404);
    const metrics = await scrape(`http://127.0.0.1:${port}/metrics`);
    expect(metrics.type('a2a_calls_total')).toBe('COUNTER');
    expect(await agent.stop()).toBe(0);
  });

  test('OTEL_EXPORTER_OTLP_ENDPOINT: the SDK starts, and the spans reach the collector over OTLP/HTTP by the time it has stopped', async () => {
    // A collector stand-in on loopback: keeps what is posted to /v1/traces.
    const exports: unknown[] = [];
    const collector = await listen((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.url === '/v1/traces') exports.push(JSON.parse(body));
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    try {
      const agent = await start({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: 'traced-serve-test' });
      expect(agent.output()).toContain('"traces":["otlp"]');
      await rpc(
        agent.url,
        'tasks/get',
        { id: 'no-such-task' },
        { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } },
      );
      expect(await agent.stop()).toBe(0);
      const spans = JSON.stringify(exports);
      expect(spans).toContain('"traced-serve-test"');
      expect(spans).toContain('"name":"tasks/get"');
      expect(spans).toContain('0af7651916cd43dd8448eb211c80319c');
    } finally {
      await collector.close();
    }
  });
});
