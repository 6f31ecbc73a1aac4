// The inspector's server and the page's logic, without a browser (test/inspector-browser.test.ts
// drives the page itself): the raw log's recording, card discovery, the server's guards and its
// push receiver, the router option, the curl commands and how chunks become artifacts.
import { execFileSync, spawn } from 'node:child_process';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { a2aRouter, completed } from 'a2a-express';
import { pino } from 'pino';
import type { CheckReport } from '../src/check/run.js';
import { serverPool, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { curlOf, grpcurlOf, shellQuote } from '../page/src/curl.js';
import { applyEvent, Conversation, mergeArtifact, newTask, type AssembledArtifact } from '../page/src/model.js';
import { discover } from '../src/inspector/discovery.js';
import { type RawEntry, recordingFetch } from '../src/inspector/recorder.js';
import { serveInspector, type RunningInspector } from '../src/inspector/server.js';

const cli = join(dirname(fileURLToPath(import.meta.url)), '../dist/cli.js');
const { serve, closeAll } = serverPool();
const silent = pino({ level: 'silent' });
const echo = async function* (ctx: { message: { parts: unknown[] } }) {
  yield completed({ role: 'agent', parts: ctx.message.parts } as never);
};
let inspector: RunningInspector;
/** The echo agent as `pnpm start` runs it, over gRPC too, behind an API key, webhooks on loopback allowed: started once, for the tests that drive it. */
let echoAgent: Promise<SpawnedAgent> | undefined;
const servedEcho = () =>
  (echoAgent ??= spawnAgent(process.execPath, [join(dirname(cli), '../../../apps/echo-agent/dist/server.js')], {
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      A2A_GRPC_PORT: '0',
      A2A_API_KEYS: 'open-sesame=alice',
      ECHO_DELAY_MS: '0',
      A2A_PUSH_ALLOWLIST: '127.0.0.1',
    },
  }));

beforeAll(async () => {
  inspector = await serveInspector();
});
afterAll(async () => {
  await inspector.close();
  await (await echoAgent)?.stop();
  await closeAll();
});

/** A request with headers fetch would not let us set (Host). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * A call of the page: JSON, its session (a `session` field here) in the header the page names it
 * in, so that the inspector checks it before reading the body.
 */
function pageCall(url: string, body: unknown, headers: Record<string, string> = {}) {
  const { session, ...rest } = body as { session?: unknown };
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(typeof session === 'string' ? { 'a2a-inspector-session': session } : {}),
      ...headers,
    },
    body: JSON.stringify(rest),
  });
}

const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  pageCall(new URL(path, inspector.url).toString(), body, headers);

async function newSession(): Promise<{ session: string; webhookUrl: string }> {
  return (await (await postJson('api/session', {})).json()) as { session: string; webhookUrl: string };
}

/** The first `count` events of a page's event stream, or those until `enough` says so. */
async function pageEvents(
  session: string,
  count: number,
  enough: (events: { event: string; data: Record<string, unknown> }[]) => boolean = (events) => events.length >= count,
): Promise<{ event: string; data: Record<string, unknown> }[]> {
  const response = await fetch(new URL(`api/events?session=${session}`, inspector.url), { signal: AbortSignal.timeout(10_000) });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const events: { event: string; data: Record<string, unknown> }[] = [];
  while (!enough(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    const blocks = text.split('\n\n');
    text = blocks.pop()!;
    for (const block of blocks) {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
    }
  }
  await reader.cancel();
  return events;
}

describe('the raw log', () => {
  test('records a request, its response and each stream event exactly as they crossed the wire, and the reader still gets every byte', async () => {
    const body = 'data: {"a":1}\r\n\r\nid: 7\r\ndata: {"b":2}\r\n\r\n: a comment\n\ndata: last\n\n';
    const app = express()
      .post('/json', (_req, res) => res.type('application/json').send('{"ok" : true}'))
      .post('/sse', (_req, res) => {
        res.type('text/event-stream');
        res.write(body.slice(0, 20));
        setTimeout(() => res.end(body.slice(20)), 20);
      });
    const { url } = await serve(app);
    const entries: RawEntry[] = [];
    const recorded = recordingFetch((entry) => entries.push(entry));

    const json = await recorded(`${url}/json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-one': '1' },
      body: '{"q" : 1}',
    });
    expect(await json.text()).toBe('{"ok" : true}');
    expect(json.url).toBe(`${url}/json`);
    expect(entries[0]).toMatchObject({ type: 'request', method: 'POST', url: `${url}/json`, body: '{"q" : 1}', headers: { 'x-one': '1' } });
    expect(entries[1]).toMatchObject({ type: 'response', status: 200, body: '{"ok" : true}', exchange: entries[0]!.exchange });

    entries.length = 0;
    const sse = await recorded(`${url}/sse`, { method: 'POST', body: '{}' });
    expect(await sse.text()).toBe(body);
    expect(entries.map((e) => e.type)).toEqual(['request', 'response', 'event', 'event', 'event', 'event', 'end']);
    expect(entries.filter((e) => e.type === 'event').map((e) => (e as { text: string }).text)).toEqual([
      'data: {"a":1}',
      'id: 7\r\ndata: {"b":2}',
      ': a comment',
      'data: last',
    ]);
  });

  test('a request that never reaches a server is recorded as a failure, and the error still reaches the caller', async () => {
    const entries: RawEntry[] = [];
    await expect(recordingFetch((entry) => entries.push(entry))('http://127.0.0.1:9/nothing')).rejects.toThrow();
    expect(entries.map((e) => e.type)).toEqual(['request', 'failure']);
  });
});

describe('discovery', () => {
  test('an agent that speaks 0.1.0 alone: its one card, its one interface, whether given by its base URL or its card URL', async () => {
    const router = a2aRouter(echo as never, {
      card: { name: 'Old', version: '1', skills: [] } as never,
      logger: silent,
      protocol03: false,
      protocol10: false,
    });
    const { url } = await serve(express().use(router));
    for (const given of [url, `${url}/.well-known/agent.json`]) {
      const found = await discover(given, fetch, {});
      expect(found.base).toBe(url);
      expect(found.cards.map((c) => [c.protocol, c.problems])).toEqual([['0.1.0', []]]);
      expect(found.interfaces).toEqual([{ protocol: '0.1.0', binding: 'JSONRPC', url: expect.any(String), supported: true }]);
    }
  });

  test('interfaces the inspector cannot speak are listed, marked as such; a card that is not JSON is a reported failure', async () => {
    const card = {
      name: 'Grpc',
      description: 'x',
      version: '1',
      supportedInterfaces: [
        { url: 'http://127.0.0.1:1/ws', protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' },
        { url: '127.0.0.1:1', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        { url: 'http://127.0.0.1:1/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    const app = express()
      .get('/.well-known/agent-card.json', (_req, res) => res.json(card))
      .get('/.well-known/agent.json', (_req, res) => res.type('text/html').send('<html>'));
    const { url } = await serve(app);
    const found = await discover(url, fetch, {});
    expect(found.interfaces.map((i) => [i.protocol, i.binding, i.supported])).toEqual([
      ['1.0', 'WEBSOCKET', false],
      ['1.0', 'GRPC', true],
      ['1.0', 'HTTP+JSON', true],
    ]);
    expect(found.failures).toEqual([{ url: `${url}/.well-known/agent.json`, reason: 'not JSON (text/html; charset=utf-8)' }]);
  });

  test("a 0.3-shaped card at agent.json (0.2 agents serve theirs there) is read as 0.3; each binding's first interface is spoken, wherever it is", async () => {
    const card = {
      protocolVersion: '0.3.0',
      name: 'Older',
      description: 'x',
      url: 'http://127.0.0.1:1/grpc',
      preferredTransport: 'GRPC',
      additionalInterfaces: [
        { url: 'http://127.0.0.1:1/jsonrpc', transport: 'JSONRPC' },
        { url: 'http://127.0.0.1:1/rest', transport: 'HTTP+JSON' },
        { url: 'http://127.0.0.1:1/rest-too', transport: 'HTTP+JSON' },
        { url: 'ws://127.0.0.1:1/', transport: 'WEBSOCKET' },
      ],
      version: '1',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    const { url } = await serve(express().get('/.well-known/agent.json', (_req, res) => res.json(card)));
    const found = await discover(url, fetch, {});
    expect(found.cards.map((c) => [c.protocol, c.problems])).toEqual([['0.3', []]]);
    // The client calls the first of a binding it is asked for: a second is not offered.
    expect(found.interfaces.map((i) => [i.protocol, i.binding, i.url, i.supported])).toEqual([
      ['0.3', 'GRPC', 'http://127.0.0.1:1/grpc', true],
      ['0.3', 'JSONRPC', 'http://127.0.0.1:1/jsonrpc', true],
      ['0.3', 'HTTP+JSON', 'http://127.0.0.1:1/rest', true],
      ['0.3', 'WEBSOCKET', 'ws://127.0.0.1:1/', false],
    ]);
  });
});

describe('the inspector server', () => {
  test('answers only to the names of loopback: a page of another site that points a DNS name here is refused', async () => {
    const { port } = new URL(inspector.url);
    expect((await raw(inspector.url, { headers: { host: `127.0.0.1:${port}` } })).status).toBe(200);
    expect((await raw(inspector.url, { headers: { host: `localhost:${port}` } })).status).toBe(200);
    const refused = await raw(inspector.url, { headers: { host: `attacker.example:${port}` } });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({ error: `the inspector does not answer to the host "attacker.example:${port}"` });
  });

  test('its calls take JSON from the page itself: a form post or another origin is refused', async () => {
    const form = await fetch(new URL('api/session', inspector.url), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form.status).toBe(415);
    const foreign = await postJson('api/session', {}, { origin: 'http://attacker.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ error: 'calls from other sites are refused' });
    expect((await postJson('api/session', {}, { origin: 'null' })).status).toBe(403);
    const { session } = await newSession();
    const bad = await fetch(new URL('api/discover', inspector.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-inspector-session': session },
      body: '{not json',
    });
    expect([bad.status, await bad.json()]).toEqual([400, { error: 'the body is not a JSON object' }]);
  });

  test('a call names its session, an interface and an operation the version has; each mistake is said plainly', async () => {
    const { session } = await newSession();
    const call = async (body: Record<string, unknown>) => {
      const response = await postJson('api/call', body);
      return [response.status, ((await response.json()) as { error: string }).error];
    };
    expect(await call({ session: 'nope' })).toEqual([404, 'unknown session: reload the page']);
    expect(await call({ session })).toEqual([400, 'choose an interface first']);
    const agent = { url: 'http://127.0.0.1:9/', protocol: '0.1.0' };
    expect(await call({ session, agent, op: 'list' })).toEqual([400, "A2A 0.1.0 has no method that lists tasks (1.0's ListTasks)"]);
    expect(await call({ session, agent, op: 'explode' })).toEqual([400, 'unknown operation "explode"']);
    expect(await call({ session, agent, op: 'get', headers: { 'bad header': 'x' }, args: { taskId: 't' } })).toEqual([
      400,
      'not a header name: "bad header"',
    ]);
    expect(await call({ session, agent: { ...agent, url: 'file:///etc/passwd' }, op: 'get' })).toEqual([
      400,
      'the agent must be reached over http or https',
    ]);
  });

  test('runs a2a check for the page: the report, each exchange in the page raw log under the number the report names; one run at a time', async () => {
    const { url } = await serve(
      express().use(a2aRouter(echo as never, { card: { name: 'Checked', version: '1', skills: [] } as never, logger: silent })),
    );
    const { session } = await newSession();
    const events = pageEvents(session, 0, (seen) =>
      seen.some((e) => e.event === 'raw' && e.data.type === 'request' && String(e.data.url).includes(':cancel')),
    );
    const [first, second] = await Promise.all([
      postJson('api/check', { session, url, message: 'hi there' }),
      // Sent while the first runs: refused, not queued.
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => postJson('api/check', { session, url })),
    ]);
    expect(second.status).toBe(409);
    expect(((await second.json()) as { error: string }).error).toBe('a check is already running for this page');
    expect(first.status).toBe(200);
    const report = (await first.json()) as CheckReport;
    expect(report.cards.map((c) => c.version)).toEqual(['1.0', '0.3', '0.1.0']);
    // The skill-less card is the one MUST broken (the proto requires a skill).
    expect(report.results.filter((r) => r.outcome === 'failed').map((r) => r.id)).toEqual(['card-1.0-required']);
    const sent = report.results.find((r) => r.id === '1.0-jsonrpc-send')!.exchanges[0]!;
    expect(sent.request.body).toContain('"text":"hi there"');
    const logged = (await events).filter((e) => e.event === 'raw' && e.data.type === 'request');
    expect(logged.find((e) => e.data.exchange === sent.logId)?.data.body).toBe(sent.request.body);
    // What the page sends is held to its shape.
    const bad = await postJson('api/check', { session, url, message: 42 });
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([
      400,
      'the message must be a text of 10,000 characters at most',
    ]);
  }, 30_000);

  test("drives an agent's gRPC interface: send, stream, get, list, cancel, with the page's credentials in the metadata, each call in the raw log", async () => {
    const agent = await servedEcho();
    const { session } = await newSession();
    const headers = { 'X-API-Key': 'open-sesame' };
    const found = (await (await postJson('api/discover', { session, url: agent.url, headers })).json()) as {
      interfaces: { protocol: string; binding: string; url: string; supported: boolean }[];
    };
    const grpcInterface = found.interfaces.find((i) => i.binding === 'GRPC')!;
    expect(grpcInterface).toEqual({
      protocol: '1.0',
      binding: 'GRPC',
      url: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      supported: true,
    });
    const log = pageEvents(session, Number.POSITIVE_INFINITY, (events) =>
      events.some((e) => e.data.grpc === true && e.data.type === 'response'),
    );
    const over = { url: agent.url, protocol: '1.0', binding: 'GRPC' };
    const call = async (op: string, args: Record<string, unknown>, withHeaders: Record<string, string> = headers) =>
      (await (await postJson('api/call', { session, agent: over, headers: withHeaders, op, args })).json()) as {
        ok: boolean;
        task?: { id: string; status: { state: string } };
        tasks?: { id: string }[];
        error?: { name: string; message: string };
      };
    const sent = await call('send', { message: { parts: [{ type: 'text', text: 'over grpc' }] } });
    expect(sent).toMatchObject({ ok: true, task: { status: { state: 'completed' } } });
    // What the agent answered and what went out, as the raw log shows it.
    // (The client read the card first, over HTTP: the log shows that exchange too.)
    const [request, response] = (await log).map((e) => e.data as RawEntry & Record<string, unknown>).filter((entry) => entry.grpc);
    expect(request).toMatchObject({
      type: 'request',
      method: 'gRPC',
      grpc: true,
      url: `${grpcInterface.url}/lf.a2a.v1.A2AService/SendMessage`,
    });
    expect(request!.headers).toMatchObject({ 'x-api-key': 'open-sesame', 'a2a-version': '1.0' });
    expect(JSON.parse(request!.body as string)).toMatchObject({ message: { parts: [{ text: 'over grpc' }] } });
    expect(response).toMatchObject({ type: 'response', status: 0, statusText: 'OK', grpc: true });
    expect(JSON.parse(response!.body as string)).toMatchObject({ task: { id: sent.task!.id } });
    const grpcurl = grpcurlOf(request as never);
    expect(grpcurl).toMatch(/^grpcurl -plaintext -H 'a2a-version: 1\.0' -H 'x-api-key: open-sesame' -d '\{.*\}' /);
    expect(grpcurl.endsWith(` ${grpcInterface.url} lf.a2a.v1.A2AService/SendMessage`)).toBe(true);

    const streamed = await postJson('api/call', {
      session,
      agent: over,
      headers,
      op: 'stream',
      args: { message: { parts: [{ type: 'text', text: 'a b c' }] } },
    });
    const lines = (await streamed.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.at(-1)).toEqual({ end: true });
    expect(lines.length).toBeGreaterThan(2);

    expect(await call('get', { taskId: sent.task!.id })).toMatchObject({ ok: true, task: { id: sent.task!.id } });
    expect((await call('list', {})).tasks!.map((task) => task.id)).toContain(sent.task!.id);
    // A finished task cannot be canceled: the agent's error, told as the page tells errors.
    expect(await call('cancel', { taskId: sent.task!.id })).toMatchObject({ ok: false, error: { name: 'JsonRpcError' } });
    // Without the page's credentials, the agent refuses the call.
    expect(await call('get', { taskId: sent.task!.id }, {})).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/auth|credential/i) },
    });
  }, 30_000);

  test('drives a 0.3 agent over HTTP+JSON and gRPC: send, stream, get, cancel, push verified; the raw log as it crossed the wire, copyable', async () => {
    const agent = await servedEcho();
    const { session, webhookUrl } = await newSession();
    const headers = { 'X-API-Key': 'open-sesame' };
    const found = (await (await postJson('api/discover', { session, url: agent.url, headers })).json()) as {
      interfaces: { protocol: string; binding: string; url: string; supported: boolean }[];
    };
    const offered = found.interfaces.filter((i) => i.protocol === '0.3' && i.supported);
    expect(offered.map((i) => i.binding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    const grpcAddress = offered.find((i) => i.binding === 'GRPC')!.url;
    /** The tasks whose push notifications are awaited: one per binding. */
    const pushed = new Set<string>();
    const log = pageEvents(
      session,
      Number.POSITIVE_INFINITY,
      (events) =>
        [...pushed].every((id) => events.some((e) => e.event === 'push' && String(e.data.body).includes(id))) && pushed.size === 2,
    );
    type Answer = { ok: boolean; raw?: Record<string, unknown>; task?: { id: string }; error?: { name: string; code?: number } };
    const sentOver: Record<string, string> = {};
    for (const binding of ['HTTP+JSON', 'GRPC']) {
      const agentChoice = { url: agent.url, protocol: '0.3', binding };
      const call = async (op: string, args: Record<string, unknown>) =>
        (await (await postJson('api/call', { session, agent: agentChoice, headers, op, args })).json()) as Answer;
      const message = (text: string) => ({ parts: [{ type: 'text', text }] });
      const sent = await call('send', { message: message(`over ${binding}`) });
      expect(sent).toMatchObject({ ok: true, raw: { kind: 'task' }, task: { status: { state: 'completed' } } });
      const taskId = sent.task!.id;
      sentOver[binding] = taskId;
      const streamed = await postJson('api/call', {
        session,
        agent: agentChoice,
        headers,
        op: 'stream',
        args: { message: message('a b c') },
      });
      const lines = (await streamed.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event?: { raw: { kind: string } }; end?: true });
      expect(lines.at(-1)).toEqual({ end: true });
      expect(lines.map((line) => line.event?.raw.kind)).toContain('artifact-update');
      expect(await call('get', { taskId, historyLength: 2 })).toMatchObject({
        ok: true,
        task: { id: taskId, history: [{ role: 'user', parts: [{ text: `over ${binding}` }] }, { role: 'agent' }] },
      });
      expect(await call('cancel', { taskId })).toMatchObject({ ok: false, error: { name: 'JsonRpcError', code: -32002 } });
      const registered = await call('push', {
        taskId,
        webhookUrl,
        token: `token-${binding}`,
        jwksUrl: `${agent.url}/.well-known/jwks.json`,
      });
      expect(registered).toMatchObject({ ok: true, raw: { taskId, pushNotificationConfig: { url: webhookUrl } } });
      // Its next turn (the task taken up again) is pushed to the inspector's receiver.
      pushed.add(taskId);
      expect(await call('send', { taskId, message: message('again') })).toMatchObject({ ok: true });
    }
    const events = await log;
    const deliveries = events.filter((e) => e.event === 'push');
    expect(deliveries.length).toBeGreaterThanOrEqual(2);
    for (const delivery of deliveries)
      expect(delivery.data).toMatchObject({ verified: true, jwksUrl: `${agent.url}/.well-known/jwks.json` });

    const entries = events.filter((e) => e.event === 'raw').map((e) => e.data as RawEntry & Record<string, unknown>);
    const requestTo = (url: string) => entries.find((e) => e.type === 'request' && e.url === url)!;
    const answerTo = (request: RawEntry) => entries.find((e) => e.type === 'response' && e.exchange === request.exchange)!;
    // HTTP+JSON: the 0.3 routes below the card's url, the 0.3 proto's JSON, as curl sends it again.
    const restSend = requestTo(`${agent.url}/v0.3/v1/message:send`);
    expect(JSON.parse(restSend.body as string)).toMatchObject({ message: { role: 'ROLE_USER', content: [{ text: 'over HTTP+JSON' }] } });
    expect(curlOf(restSend as never)).toMatch(
      new RegExp(`^curl -X POST ${agent.url}/v0\\.3/v1/message:send .*-H 'X-API-Key: open-sesame' .*--data-raw '\\{`, 'i'),
    );
    expect(entries.some((e) => e.type === 'request' && e.url === `${agent.url}/v0.3/v1/message:stream`)).toBe(true);
    // gRPC: a2a.v1.A2AService, its request and answer in the 0.3 proto's JSON form, as grpcurl sends and prints them.
    const grpcSend = requestTo(`${grpcAddress}/a2a.v1.A2AService/SendMessage`);
    expect(grpcSend).toMatchObject({ method: 'gRPC', grpc: true, headers: { 'x-api-key': 'open-sesame' } });
    expect(JSON.parse(grpcSend.body as string)).toMatchObject({ message: { role: 'ROLE_USER', content: [{ text: 'over GRPC' }] } });
    expect(JSON.parse(answerTo(grpcSend).body as string)).toMatchObject({
      task: { id: sentOver.GRPC, status: { state: 'TASK_STATE_COMPLETED' } },
    });
    const grpcurl = grpcurlOf(grpcSend as never);
    expect(grpcurl).toMatch(/^grpcurl -plaintext -H 'x-api-key: open-sesame' -d '\{"message":/);
    expect(grpcurl.endsWith(` ${grpcAddress} a2a.v1.A2AService/SendMessage`)).toBe(true);
    const grpcStream = requestTo(`${grpcAddress}/a2a.v1.A2AService/SendStreamingMessage`);
    const streamedEvents = entries.filter((e) => e.type === 'event' && e.exchange === grpcStream.exchange);
    expect(streamedEvents.map((e) => Object.keys(JSON.parse(String(e.text)))[0])).toContain('artifactUpdate');
  }, 30_000);

  test('an agent that cannot be reached is an answer for the page, not a failure of the inspector', async () => {
    const { session } = await newSession();
    const response = await postJson('api/call', {
      session,
      agent: { url: 'http://127.0.0.1:9/', protocol: '0.3' },
      op: 'get',
      args: { taskId: 't' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: false, error: { name: 'NetworkError', message: expect.stringContaining('cannot reach') } });
  });

  test('its push receiver shows what arrives, says why it cannot be verified before a registration, and answers an ownership check', async () => {
    const { session, webhookUrl } = await newSession();
    // Where the agent reaches the receiver: the address the page was loaded from.
    expect(webhookUrl).toMatch(new RegExp(`^${inspector.url}api/push/[\\w-]+$`));
    const challenge = await fetch(`${webhookUrl}?validationToken=abc123`);
    expect([challenge.status, await challenge.text()]).toEqual([200, 'abc123']);
    const delivered = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"t-1"}' });
    expect(delivered.status).toBe(401);
    const events = await pageEvents(session, 2);
    expect(events[0]).toMatchObject({ event: 'push', data: { challenge: true } });
    expect(events[1]).toMatchObject({
      event: 'push',
      data: { verified: false, body: '{"id":"t-1"}', reason: expect.stringContaining('no push notification was registered') },
    });
    expect((await fetch(new URL('api/push/unknown-session', inspector.url), { method: 'POST', body: '{}' })).status).toBe(404);
    // The address given to agents names the receiver, not the page's session (which reads its log).
    expect(webhookUrl).not.toContain(session);
    expect((await fetch(new URL(`api/push/${session}`, inspector.url), { method: 'POST', body: '{}' })).status).toBe(404);
  });

  test('an address that starts with two slashes is never sent on as a redirect to another site', async () => {
    const response = await raw(`${inspector.url.replace(/\/$/, '')}//attacker.example`);
    expect(String(response.headers.location ?? '')).not.toMatch(/^\/\//);
  });

  test('it listens on loopback only, whatever the spelling of another address; --allow-remote serves it behind a token', async () => {
    for (const host of ['0', '0.0.0.0', '000.0.0.0', '::', '::0', '[::]', '0:0:0:0:0:0:0:0']) {
      await expect(serveInspector({ host })).rejects.toThrow(/loopback only.*--allow-remote/);
    }
    // Loopback in any spelling is fine, and needs no token.
    for (const host of ['127.0.0.1', '127.1', 'localhost', '::1', '[::1]', '0:0:0:0:0:0:0:1']) {
      const local = await serveInspector({ host });
      expect(local.url).not.toContain('token');
      await local.close();
    }
    const remote = await serveInspector({ host: '0.0.0.0', allowRemote: true });
    try {
      const token = new URL(remote.url).searchParams.get('token')!;
      expect(token).toMatch(/^[\w-]{32}$/);
      const port = new URL(remote.url).port;
      const at = (path: string) => `http://127.0.0.1:${port}/${path}`;
      // The page itself loads; no call is answered without the token.
      expect((await fetch(at(''))).status).toBe(200);
      expect((await fetch(at('api/config'))).status).toBe(401);
      const noToken = await pageCall(at('api/session'), {});
      expect([noToken.status, ((await noToken.json()) as { error: string }).error]).toEqual([401, expect.stringContaining('token')]);
      expect((await pageCall(at('api/session'), {}, { 'a2a-inspector-token': 'wrong' })).status).toBe(401);
      const opened = await pageCall(at('api/session'), {}, { 'a2a-inspector-token': token });
      const { session } = (await opened.json()) as { session: string };
      expect(opened.status).toBe(200);
      const events = await fetch(at(`api/events?session=${session}&token=${token}`), { signal: AbortSignal.timeout(5_000) });
      expect(events.headers.get('content-type')).toBe('text/event-stream');
      await events.body?.cancel();
    } finally {
      await remote.close();
    }
  });
});

/**
 * Sends the headers of a POST that declares `declaredBytes` of body and a first slice of it, and
 * waits for the answer without sending the rest: an answer comes only from a server that refuses
 * the call before reading its body. Undefined when none came within 3 s.
 */
function answerBeforeBody(url: string, headers: Record<string, string>, declaredBytes: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(declaredBytes), ...headers },
    });
    const timer = setTimeout(() => {
      req.destroy();
      resolve(undefined);
    }, 3_000);
    req.on('response', (res) => {
      clearTimeout(timer);
      res.resume();
      req.destroy();
      resolve(res.statusCode);
    });
    req.on('error', () => undefined);
    req.write(`{"pad":"${'x'.repeat(64 * 1024)}`);
  });
}

/** A page opened from `localAddress` (one of loopback's many addresses): its session, its event stream open. */
function strangerPage(base: string, localAddress: string): Promise<{ session: string; close(): void }> {
  return new Promise((resolve, reject) => {
    const opening = request(
      `${base}api/session`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`session: HTTP ${res.statusCode} ${body}`));
          const { session } = JSON.parse(body) as { session: string };
          const events = request(`${base}api/events?session=${session}`, { localAddress }, (stream) => {
            stream.once('data', () => resolve({ session, close: () => events.destroy() }));
          });
          events.on('error', () => undefined);
          events.end();
        });
      },
    );
    opening.on('error', reject);
    opening.end('{}');
  });
}

describe('beside an agent, the page is reached by whoever reaches the agent', () => {
  const agentWithInspector = async () => {
    const router = a2aRouter(echo as never, {
      card: { name: 'Exposed', version: '1', skills: [] } as never,
      logger: silent,
      inspector: true,
    });
    const { url } = await serve(express().use(router));
    return `${url}/inspector/`;
  };

  test('a call for no open page is refused before its body is read, and so is a body larger than the page sends', async () => {
    const base = await agentWithInspector();
    // 30 MB announced, 64 KB sent: the answer comes at once.
    expect(await answerBeforeBody(`${base}api/call`, {}, 30 * 1024 * 1024)).toBe(404);
    expect(await answerBeforeBody(`${base}api/call`, { 'a2a-inspector-session': 'not-a-session' }, 30 * 1024 * 1024)).toBe(404);
    expect(await answerBeforeBody(`${base}api/discover`, {}, 1024 * 1024)).toBe(404);
    const { session } = (await (await pageCall(`${base}api/session`, {})).json()) as { session: string };
    expect(await answerBeforeBody(`${base}api/call`, { 'a2a-inspector-session': session }, 30 * 1024 * 1024)).toBe(413);
    // What the page does send still works.
    const found = await pageCall(`${base}api/discover`, { session, url: 'ignored: the page is pinned to its agent' });
    expect(found.status).toBe(200);
  });

  test('strangers opening pages from many addresses cannot keep the developer out: each address has a few, the busiest make room', async () => {
    const base = await agentWithInspector();
    const developer = await strangerPage(base, '127.0.0.1');
    const strangers: { session: string; close(): void }[] = [];
    try {
      // 17 addresses × 6 pages each, every page with its event stream open: more than 64 in all.
      for (let address = 2; address <= 18; address++) {
        for (let page = 0; page < 6; page++) strangers.push(await strangerPage(base, `127.0.0.${address}`));
      }
      const answers = async (session: string) => (await pageCall(`${base}api/discover`, { session })).status;
      // The developer's page still works, and another opens (never a 503).
      expect(await answers(developer.session)).toBe(200);
      const another = await pageCall(`${base}api/session`, {});
      expect(another.status).toBe(200);
      // An address keeps its newest pages only.
      expect(await answers(strangers[0]!.session)).toBe(404);
      expect(await answers(strangers.at(-1)!.session)).toBe(200);
    } finally {
      developer.close();
      for (const stranger of strangers) stranger.close();
    }
  });
});

describe('the router option', () => {
  test('serves the page at /inspector/ (the address without its slash redirected), opened on the agent', async () => {
    const router = a2aRouter(echo as never, {
      card: { name: 'Beside', version: '1', skills: [] } as never,
      logger: silent,
      inspector: true,
    });
    const { url } = await serve(express().use('/agents/beside', router));
    const bare = await fetch(`${url}/agents/beside/inspector?agent=x`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/agents/beside/inspector/?agent=x']);
    const page = await fetch(`${url}/agents/beside/inspector/`);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await (await fetch(`${url}/agents/beside/inspector/api/config`)).json()).toEqual({ agentUrl: `${url}/agents/beside/` });
    // Off by default.
    const plain = a2aRouter(echo as never, { card: { name: 'Plain', version: '1', skills: [] } as never, logger: silent });
    const { url: plainUrl } = await serve(express().use(plain));
    expect((await fetch(`${plainUrl}/inspector/`)).status).toBe(404);
  });

  test("behind the app's own express.json(), the page's calls still read their bodies", async () => {
    const router = a2aRouter(echo as never, {
      card: { name: 'Parsed', version: '1', skills: [] } as never,
      logger: silent,
      inspector: true,
    });
    const { url } = await serve(express().use(express.json()).use(router));
    const post = (path: string, body: unknown) => pageCall(`${url}/inspector/${path}`, body);
    const { session } = (await (await post('api/session', {})).json()) as { session: string };
    const found = (await (await post('api/discover', { session, url })).json()) as { cards: { card: { name: string } }[] };
    expect(found.cards.map((c) => c.card.name)).toEqual(['Parsed', 'Parsed', 'Parsed']);
  });

  test('beside an agent, the page reaches that agent only: any other URL it names is not fetched', async () => {
    const router = a2aRouter(echo as never, {
      card: { name: 'Pinned', version: '1', skills: [] } as never,
      logger: silent,
      inspector: true,
    });
    const { url } = await serve(express().use(router));
    let elsewhere = 0;
    const { url: other } = await serve(
      express().use((_req, res) => {
        elsewhere++;
        res.json({});
      }),
    );
    const post = (path: string, body: unknown) => pageCall(`${url}/inspector/${path}`, body);
    const { session } = (await (await post('api/session', {})).json()) as { session: string };
    const found = (await (await post('api/discover', { session, url: other })).json()) as { cards: { card: { name: string } }[] };
    expect(found.cards[0]!.card.name).toBe('Pinned');
    const call = { session, agent: { url: other, protocol: '0.3' }, op: 'get', args: { taskId: 'none' } };
    const answer = (await (await post('api/call', call)).json()) as { error: { code: number } };
    expect(answer.error.code).toBe(-32001);
    expect(elsewhere).toBe(0);
  });

  test('a wrong option is a TypeError at once', () => {
    const card = { name: 'X', version: '1', skills: [] } as never;
    expect(() => a2aRouter(echo as never, { card, logger: silent, inspector: 'yes' as never })).toThrow(
      'options.inspector must be true, false or { path }',
    );
    expect(() => a2aRouter(echo as never, { card, logger: silent, inspector: { path: 'no-slash' } })).toThrow(
      'options.inspector.path must be a path such as /inspector, got "no-slash"',
    );
  });
});

describe('a2a inspect', () => {
  test('a port that is not one is a usage error', async () => {
    const child = spawn(process.execPath, [cli, 'inspect', '127.0.0.1:1', '--port', 'eighty'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--port takes a port number, got eighty');
  });
});

describe('curl commands', () => {
  test('each word survives a POSIX shell exactly: quotes, dollars, newlines and all', () => {
    for (const text of ["it's", '$HOME `id` "x"', 'line\nbreak', 'plain-word', '']) {
      expect(execFileSync('sh', ['-c', `printf '%s' ${shellQuote(text)}`]).toString()).toBe(text);
    }
  });

  test('a stream gets -N; headers go as sent, but not those curl writes itself; a GET has no -X', () => {
    const stream = curlOf({
      method: 'POST',
      url: 'http://127.0.0.1:1/v1',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'content-length': '2', authorization: "Bearer it's" },
      body: '{"text":"it\'s"}',
    });
    expect(stream).toBe(
      `curl -N -X POST http://127.0.0.1:1/v1 -H 'accept: text/event-stream' -H 'content-type: application/json' -H 'authorization: Bearer it'\\''s' --data-raw '{"text":"it'\\''s"}'`,
    );
    expect(curlOf({ method: 'GET', url: 'http://127.0.0.1:1/.well-known/agent-card.json', headers: { 'a2a-version': '1.0' } })).toBe(
      `curl http://127.0.0.1:1/.well-known/agent-card.json -H 'a2a-version: 1.0'`,
    );
  });
});

describe('artifacts and the chat', () => {
  test("chunks of one artifact join into one text; 0.3's artifact ids keep two artifacts apart; only the last chunk (or the turn's end) completes it", () => {
    const artifacts: AssembledArtifact[] = [];
    mergeArtifact(artifacts, { index: 0, parts: [{ type: 'text', text: 'one ' }] });
    mergeArtifact(artifacts, { index: 0, append: true, parts: [{ type: 'text', text: 'two' }] });
    expect(artifacts).toEqual([{ key: '0', parts: [{ type: 'text', text: 'one two' }], chunks: 2, complete: false }]);
    mergeArtifact(artifacts, { artifactId: 'a', parts: [{ type: 'data', data: { n: 1 } }], lastChunk: true });
    expect(artifacts.map((a) => [a.key, a.complete])).toEqual([
      ['0', false],
      ['a', true],
    ]);
    const task = newTask('t', 'now');
    applyEvent(task, { id: 't', artifact: { index: 0, parts: [{ type: 'text', text: 'x' }] } }, 'now');
    expect(task.artifacts[0]!.complete).toBe(false);
    applyEvent(task, { id: 't', status: { state: 'completed' }, final: true }, 'now');
    expect(task.artifacts[0]!.complete).toBe(true);
    expect(task.timeline.map((e) => e.kind)).toEqual(['artifact', 'status']);
    // 1.0 artifacts of agents the kit did not write: told apart by their ids, whatever their index.
    const ids: AssembledArtifact[] = [];
    mergeArtifact(ids, { index: 0, artifactId: 'summary', parts: [{ type: 'text', text: 's' }] });
    mergeArtifact(ids, { index: 0, artifactId: 'details', parts: [{ type: 'text', text: 'd' }] });
    mergeArtifact(ids, { index: 0, artifactId: 'summary', append: true, parts: [{ type: 'text', text: '2' }] });
    expect(ids.map((a) => [a.key, a.parts])).toEqual([
      ['summary', [{ type: 'text', text: 's2' }]],
      ['details', [{ type: 'text', text: 'd' }]],
    ]);
  });

  test('the chat keeps the order things happened in, an answer to a question after it', () => {
    const chat = new Conversation();
    chat.user([{ type: 'text', text: 'convert 100 USD' }], 't1');
    chat.event(
      {
        id: 'task',
        status: { state: 'input-required', message: { role: 'agent', parts: [{ type: 'text', text: 'Into which currency?' }] } },
        final: true,
      },
      't2',
    );
    chat.user([{ type: 'text', text: 'EUR' }], 't3', 'task');
    chat.event({ id: 'task', artifact: { index: 0, parts: [{ type: 'text', text: '100 USD is ' }] } }, 't4');
    chat.event({ id: 'task', artifact: { index: 0, append: true, lastChunk: true, parts: [{ type: 'text', text: '50 EUR' }] } }, 't5');
    expect(
      chat.entries.map((e) => [e.role, e.parts.map((p) => (p.type === 'text' ? p.text : p.type)).join(''), e.complete ?? null]),
    ).toEqual([
      ['user', 'convert 100 USD', null],
      ['agent', 'Into which currency?', null],
      ['user', 'EUR', null],
      ['agent', '100 USD is 50 EUR', true],
    ]);
  });
});
