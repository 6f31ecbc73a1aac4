// A2A 1.0 over HTTP+JSON (spec 1.0 11), beside 1.0 JSON-RPC on the same URL: every route, its
// statuses and error bodies, streams of bare StreamResponse events. Every answer, event and error
// detail is checked against the published 1.0 bundle.
import { randomUUID } from 'node:crypto';
import { serverPool } from 'a2a-testing';
import { apiKey, type A2ARouterOptions } from '../src/index.js';
import { appWith, expectValid10, gate, message10, twoChunkEcho } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

const V1 = { 'a2a-version': '1.0' };
// biome-ignore lint/suspicious/noExplicitAny: answers are read after the published schema has vouched for their shape.
type Json = Record<string, any>;

let hold = gate();
const echo = twoChunkEcho(() => hold.promise);

async function agent(options: Partial<A2ARouterOptions> = {}) {
  const { app } = appWith(echo, options);
  const server = await serve(app);
  return `${server.url}/v1`;
}

interface Answer {
  status: number;
  type: string | null;
  body: Json;
}

async function call(url: string, verb: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: verb,
    headers: { ...V1, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), body: text ? (JSON.parse(text) as Json) : {} };
}

/** An error answer: its status, the AIP-193 body with `code` the status, and the ErrorInfo reason. */
function expectError(answer: Answer, status: number, grpcStatus: string, reason: string): void {
  expect(answer.status).toBe(status);
  expect(answer.type).toMatch(/^application\/json/);
  expect(answer.body.error).toMatchObject({ code: status, status: grpcStatus, message: expect.any(String) });
  expect(answer.body.error.details).toContainEqual(
    expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org' }),
  );
}

async function sseEvents(url: string, path: string, verb = 'POST', body?: unknown): Promise<{ type: string | null; events: Json[] }> {
  const response = await fetch(`${url}${path}`, {
    method: verb,
    headers: { ...V1, accept: 'text/event-stream', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Json);
  for (const event of events) expectValid10('Stream Response', event);
  return { type: response.headers.get('content-type'), events };
}

describe('A2A 1.0 over HTTP+JSON', () => {
  let url: string;
  beforeAll(async () => {
    url = await agent({ pushNotifications: { allowlist: ['127.0.0.1'] } });
  });

  test('the card lists HTTP+JSON beside JSON-RPC, at the same URL', async () => {
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as Json;
    expect(card.supportedInterfaces.slice(0, 2)).toEqual([
      { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
  });

  test('POST /message:send: {task} or {message}; application/a2a+json in, and out to a client that asks for it', async () => {
    const sent = await call(url, 'POST', '/message:send', { message: message10('hello') });
    expect(sent.status).toBe(200);
    expect(sent.type).toMatch(/^application\/json/);
    expectValid10('Send Message Response', sent.body);
    expect(sent.body.task.status.state).toBe('TASK_STATE_COMPLETED');
    const replied = await call(url, 'POST', '/message:send', JSON.stringify({ message: message10('reply') }), {
      'content-type': 'application/a2a+json',
      accept: 'application/a2a+json, application/json',
    });
    expect(replied.type).toMatch(/^application\/a2a\+json/);
    expect(replied.body).toEqual({ message: expect.objectContaining({ role: 'ROLE_AGENT', parts: [{ text: 'hello' }] }) });
  });

  test('POST /message:stream: bare StreamResponse events, the task first, closed at the end', async () => {
    const { type, events } = await sseEvents(url, '/message:stream', 'POST', { message: message10('stream me') });
    expect(type).toMatch(/^text\/event-stream/);
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
  });

  test('GET /tasks/{id}, GET /tasks with query parameters, POST /tasks/{id}:cancel with an empty body', async () => {
    const contextId = randomUUID();
    const done = (await call(url, 'POST', '/message:send', { message: message10('one', { contextId }) })).body.task;
    const waiting = (await call(url, 'POST', '/message:send', { message: message10('?', { contextId }) })).body.task;
    const got = await call(url, 'GET', `/tasks/${done.id}?historyLength=1`);
    expectValid10('Task', got.body);
    expect(got.body.history).toHaveLength(1);
    const listed = await call(url, 'GET', `/tasks?contextId=${contextId}&pageSize=1&includeArtifacts=true`);
    expectValid10('List Tasks Response', listed.body);
    expect(listed.body).toMatchObject({ tasks: [{ id: waiting.id }], pageSize: 1, totalSize: 2 });
    const next = await call(
      url,
      'GET',
      `/tasks?contextId=${contextId}&pageSize=1&pageToken=${listed.body.nextPageToken}&includeArtifacts=true`,
    );
    expect(next.body).toMatchObject({ tasks: [{ id: done.id, artifacts: [{ artifactId: 'artifact-0' }] }], nextPageToken: '' });

    // The conformance kit's cancel: Content-Type application/json, no body.
    const canceled = await fetch(`${url}/tasks/${waiting.id}:cancel`, {
      method: 'POST',
      headers: { ...V1, 'content-type': 'application/json' },
    });
    expect(canceled.status).toBe(200);
    expect(((await canceled.json()) as Json).status.state).toBe('TASK_STATE_CANCELED');
    expectError(await call(url, 'POST', `/tasks/${done.id}:cancel`), 400, 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE');
    expectError(await call(url, 'GET', '/tasks/no-such-task'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    expectError(await call(url, 'GET', '/tasks?pageSize=500'), 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS');
  });

  test('subscribe by GET (the proto) and by POST (the text): the task first, then its updates', async () => {
    for (const verb of ['GET', 'POST']) {
      hold = gate();
      const running = (await call(url, 'POST', '/message:send', { message: message10('wait'), configuration: { returnImmediately: true } }))
        .body.task;
      const reading = sseEvents(url, `/tasks/${running.id}:subscribe`, verb);
      await new Promise((resolve) => setTimeout(resolve, 100));
      hold.open();
      const { events } = await reading;
      expect(events[0]).toEqual({ task: expect.objectContaining({ id: running.id }) });
      expect(events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    }
    const done = (await call(url, 'POST', '/message:send', { message: message10('over') })).body.task;
    expectError(await call(url, 'POST', `/tasks/${done.id}:subscribe`), 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  test('push configs: POST, GET one, GET all, DELETE (twice)', async () => {
    const task = (await call(url, 'POST', '/message:send', { message: message10('?') })).body.task;
    const base = `/tasks/${task.id}/pushNotificationConfigs`;
    const created = await call(url, 'POST', base, { id: 'rest-hook', url: 'http://127.0.0.1:9/hook', token: 'secret' });
    expect(created.status).toBe(200);
    expectValid10('Task Push Notification Config', created.body);
    expect(created.body).toEqual({ taskId: task.id, id: 'rest-hook', url: 'http://127.0.0.1:9/hook', token: '********' });
    expect((await call(url, 'GET', `${base}/rest-hook`)).body).toEqual(created.body);
    expect((await call(url, 'GET', base)).body).toEqual({ configs: [created.body], nextPageToken: '' });
    expect((await call(url, 'DELETE', `${base}/rest-hook`)).status).toBe(200);
    expect((await call(url, 'DELETE', `${base}/rest-hook`)).status).toBe(200);
    expectError(await call(url, 'GET', `${base}/rest-hook`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });

  test('errors: bad params with their fields, content types, versions, verbs; GET /extendedAgentCard', async () => {
    const bad = await call(url, 'POST', '/message:send', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } });
    expectError(bad, 400, 'INVALID_ARGUMENT', 'INVALID_PARAMS');
    expect(bad.body.error.details).toContainEqual(
      expect.objectContaining({ fieldViolations: [expect.objectContaining({ field: '/message/parts' })] }),
    );
    expectError(await call(url, 'POST', '/message:send', '{"message":', {}), 400, 'INVALID_ARGUMENT', 'PARSE_ERROR');
    expectError(
      await call(url, 'POST', '/message:send', '{}', { 'content-type': 'text/plain' }),
      415,
      'INVALID_ARGUMENT',
      'CONTENT_TYPE_NOT_SUPPORTED',
    );
    expectError(
      await call(url, 'POST', '/message:send', {}, { 'a2a-version': '99.0' }),
      400,
      'FAILED_PRECONDITION',
      'VERSION_NOT_SUPPORTED',
    );
    const noVersion = await fetch(`${url}/tasks/x`);
    expect(noVersion.status).toBe(400);
    const wrongVerb = await call(url, 'PUT', '/message:send', {});
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.body.error.code).toBe(405);
    expectError(await call(url, 'GET', '/extendedAgentCard'), 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
    // Below the interface every path is the binding's: one it does not serve (below a tenant's segment too) is
    // a JSON 404; a path that is not valid percent-encoding a 400; the path names the resource.
    expect((await call(url, 'POST', '/some-tenant/no-such-route', {})).status).toBe(404);
    expect((await call(url, 'GET', '/tasks/%E0%A4%A')).status).toBe(400);
    expect((await call(url, 'GET', '/tasks?contextId=true')).status).toBe(200);
  });
});

test('with authentication: 401 with WWW-Authenticate and UNAUTHENTICATED; the caller lists its own tasks', async () => {
  const url = await agent({ auth: { strategies: [apiKey({ keys: { 'key-a': 'alice', 'key-b': 'bob' } })] } });
  const refused = await call(url, 'GET', '/tasks');
  expectError(refused, 401, 'UNAUTHENTICATED', 'UNAUTHENTICATED');
  const alice = { 'x-api-key': 'key-a' };
  const mine = (await call(url, 'POST', '/message:send', { message: message10('mine') }, alice)).body.task;
  await call(url, 'POST', '/message:send', { message: message10('theirs') }, { 'x-api-key': 'key-b' });
  expect((await call(url, 'GET', '/tasks', undefined, alice)).body).toMatchObject({ tasks: [{ id: mine.id }], totalSize: 1 });
  expectError(await call(url, 'GET', `/tasks/${mine.id}`, undefined, { 'x-api-key': 'key-b' }), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
});

test('while the agent drains, HTTP+JSON calls get 503 with the 1.0 error body', async () => {
  const { app, router } = appWith(echo);
  const { url } = await serve(app);
  await router.drain({ deadlineMs: 10 });
  expectError(await call(`${url}/v1`, 'GET', '/tasks'), 503, 'UNAVAILABLE', 'RESOURCE_UNAVAILABLE');
  await router.close();
});
