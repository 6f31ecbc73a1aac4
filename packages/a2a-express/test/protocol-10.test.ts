// A2A 1.0 JSON-RPC beside 0.1.0 and 0.3: one router, one handler written for 0.1.0, the same
// tasks. Every 1.0 answer, event and card is checked against the published 1.0 bundle (strict: no
// field 1.0 does not define). Both stores.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { collect, deleteKeys, openStream, redisUrl, requireRedis, rpc, serverPool, uniquePrefix, type OpenStream } from 'a2a-testing';
import { publishedSchemaValidator } from 'a2a-types';
import { apiKey, type A2ARouterOptions } from '../src/index.js';
import { RedisTaskStore } from '../src/redis.js';
import { InMemoryTaskStore, type TaskStore } from '../src/store/index.js';
import { createPushNotificationVerifier } from 'a2a-push-receiver';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from 'a2a-sdk-1/client';
import { appWith, eventually, expectValid10, gate, message03, message10, userText, twoChunkEcho } from './helpers.js';

const { serve, closeAll } = serverPool();
const stores: TaskStore[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  await closeAll();
  await Promise.all(stores.map((s) => s.close()));
  for (const prefix of prefixes) await deleteKeys(redisUrl(), prefix);
});

const V1 = { 'a2a-version': '1.0' };

let hold = gate();
const echo = twoChunkEcho(() => hold.promise);

async function agent(options: Partial<A2ARouterOptions> = {}) {
  const { app, router } = appWith(echo, options);
  const server = await serve(app);
  return { base: server.url, url10: `${server.url}/v1`, url03: `${server.url}/v0.3`, url01: `${server.url}/`, router };
}

// biome-ignore lint/suspicious/noExplicitAny: answers are read after the published schema has vouched for their shape.
type Json = Record<string, any>;
const json = async (response: Response): Promise<Json> => (await response.json()) as Json;

async function call10(url: string, method: string, params?: unknown, headers: Record<string, string> = V1) {
  return rpc<Json>(url, method, params, { headers });
}

async function send10(url: string, message: object, configuration?: object) {
  const response = await call10(url, 'SendMessage', { message, ...(configuration ? { configuration } : {}) });
  if (response.result) expectValid10('Send Message Response', response.result);
  return response;
}

async function streamEvents(stream: OpenStream): Promise<Json[]> {
  const events = await collect(stream);
  return events.map(({ message }) => {
    expect(message).toMatchObject({ jsonrpc: '2.0' });
    expectValid10('Stream Response', message.result);
    return message.result as unknown as Json;
  });
}

/** The ErrorInfo reason of a 1.0 error. */
const reasonOf = (error: { data?: unknown } | undefined) => (error?.data as { reason?: string }[] | undefined)?.[0]?.reason;

describe('A2A 1.0: the card', () => {
  test('one 1.0 card lists every interface; 1.0 clients get it at the well-known path, 0.3 clients the 0.3 card', async () => {
    const { base } = await agent({
      card: { name: 'Echo', version: '2.0.0', defaultInputModes: ['*/*'], skills: [{ id: 'echo', name: 'Echo' }] },
    });
    const card = await json(await fetch(`${base}/.well-known/agent-card.json`, { headers: V1 }));
    expectValid10('Agent Card', card);
    expect(card).toEqual({
      name: 'Echo',
      description: 'Echo',
      version: '2.0.0',
      supportedInterfaces: [
        { url: `${base}/v1`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${base}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        { url: `${base}/v0.3`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        { url: `${base}/v0.3`, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      ],
      capabilities: { streaming: true, pushNotifications: false },
      defaultInputModes: ['*/*'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'Echo', tags: [] }],
    });
    // The same card below the interface, for a client given the interface as the agent's base URL
    // (and to one that cannot send a header), and by the query parameter of spec 1.0 3.6.1.
    expect(await json(await fetch(`${base}/v1/.well-known/agent-card.json`))).toEqual(card);
    expect(await json(await fetch(`${base}/.well-known/agent-card.json?A2A-Version=1.0`))).toEqual(card);
    // No A2A-Version is a 0.3 client (spec 1.0 3.6.2); 0.3 asked for by name too.
    const card03 = await json(await fetch(`${base}/.well-known/agent-card.json`));
    expect(card03).toMatchObject({ protocolVersion: '0.3.0', url: `${base}/v0.3` });
    expect(await json(await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'a2a-version': '0.3' } }))).toEqual(card03);
    // The 0.1.0 card stays as it was.
    expect(await json(await fetch(`${base}/.well-known/agent.json`))).toMatchObject({ url: `${base}/`, name: 'Echo' });
  });

  test('a version no card is served in gets 400 with the 1.0 error body', async () => {
    const { base } = await agent();
    const response = await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'a2a-version': '99.0' } });
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({
      error: { code: 400, status: 'FAILED_PRECONDITION', details: [{ reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' }] },
    });
  });

  test('cards are cacheable: ETag, Cache-Control, Vary by A2A-Version, 304 for the card a client has', async () => {
    const { base } = await agent();
    const first = await fetch(`${base}/.well-known/agent-card.json`, { headers: V1 });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    expect(first.headers.get('vary')).toBe('A2A-Version');
    const again = await fetch(`${base}/.well-known/agent-card.json`, { headers: { ...V1, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const lastModified = first.headers.get('last-modified')!;
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(Date.now());
    expect((await fetch(`${base}/.well-known/agent-card.json`, { headers: { ...V1, 'if-modified-since': lastModified } })).status).toBe(
      304,
    );
    // The 0.3 card is another card: another ETag, so a cache keeps both.
    const card03 = await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'if-none-match': etag } });
    expect(card03.status).toBe(200);
    expect(card03.headers.get('etag')).not.toBe(etag);
  });

  test('the card says what the router serves: streaming and push off, no 0.3 when 0.3 is off', async () => {
    const { base } = await agent({ streaming: false, protocol03: false });
    const card = await json(await fetch(`${base}/.well-known/agent-card.json`));
    expectValid10('Agent Card', card);
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/v1`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(card.capabilities).toEqual({ streaming: false, pushNotifications: false });
  });

  test('API keys and bearer tokens become 1.0 security schemes', async () => {
    const bearer = { scheme: 'Bearer', challenge: 'Bearer', authenticate: async () => undefined };
    const { base } = await agent({ auth: { strategies: [apiKey({ keys: { 'key-a': 'alice' } }), bearer] } });
    const card = await json(await fetch(`${base}/.well-known/agent-card.json`, { headers: V1 }));
    expectValid10('Agent Card', card);
    expect(card.securitySchemes).toEqual({
      apikey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { apikey: { list: [] } } }, { schemes: { bearer: { list: [] } } }]);
  });
});

describe('A2A 1.0: ListTasks with authentication', () => {
  test("a caller lists its own tasks only; another's are not counted either", async () => {
    const { url10 } = await agent({ auth: { strategies: [apiKey({ keys: { 'key-a': 'alice', 'key-b': 'bob' } })] } });
    const as = (key: string) => ({ ...V1, 'x-api-key': key });
    const alices = (await call10(url10, 'SendMessage', { message: message10('mine') }, as('key-a'))).result as Json;
    await call10(url10, 'SendMessage', { message: message10('theirs') }, as('key-b'));
    const listed = (await call10(url10, 'ListTasks', {}, as('key-a'))).result as Json;
    expect(listed.tasks.map((t: Json) => t.id)).toEqual([alices.task.id]);
    expect(listed.totalSize).toBe(1);
    expect((await call10(url10, 'ListTasks', {}, V1)).error).toMatchObject({ code: -32000, data: [{ reason: 'UNAUTHENTICATED' }] });
  });
});

describe('A2A 1.0: the extended card', () => {
  test('an authenticated caller gets the fuller card over JSON-RPC and HTTP+JSON; the public card says there is one', async () => {
    const { base, url10 } = await agent({
      auth: { strategies: [apiKey({ keys: { 'key-a': 'alice' } })] },
      extendedCard: (principal) => ({ skills: [{ id: 'private', name: 'Private', description: `for ${principal.id}`, tags: ['vip'] }] }),
    });
    const card = await json(await fetch(`${base}/.well-known/agent-card.json`, { headers: V1 }));
    expect(card.capabilities.extendedAgentCard).toBe(true);
    expect(card.skills).toEqual([]);
    const alice = { ...V1, 'x-api-key': 'key-a' };
    const extended = (await call10(url10, 'GetExtendedAgentCard', {}, alice)).result as Json;
    expectValid10('Agent Card', extended);
    expect(extended).toMatchObject({
      name: card.name,
      supportedInterfaces: card.supportedInterfaces,
      skills: [{ id: 'private', description: 'for alice' }],
    });
    // The extended card keeps what the router serves: its interfaces and capabilities.
    expect(extended.capabilities).toEqual(card.capabilities);
    const overRest = await fetch(`${url10}/extendedAgentCard`, { headers: alice });
    expect(await json(overRest)).toEqual(extended);
    expect((await fetch(`${url10}/extendedAgentCard`, { headers: V1 })).status).toBe(401);
    expect((await call10(url10, 'GetExtendedAgentCard', {}, V1)).error).toMatchObject({
      code: -32000,
      data: [{ reason: 'UNAUTHENTICATED' }],
    });
  });

  test('the official SDK client (1.x) reads the extended card of an authenticated caller', async () => {
    const { base } = await agent({
      auth: { strategies: [apiKey({ keys: { 'key-a': 'alice' } })] },
      extendedCard: { description: 'The fuller card' },
    });
    const withKey: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as object), 'x-api-key': 'key-a' } });
    for (const preferredTransports of [['JSONRPC'], ['HTTP+JSON']]) {
      const client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl: withKey }), new RestTransportFactory({ fetchImpl: withKey })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl: withKey }),
          preferredTransports,
        }),
      ).createFromUrl(base);
      expect((await client.getAgentCard()).description).toBe('The fuller card');
    }
  });

  test('an extended card the published schema refuses is an internal error, not sent; one without auth is refused at start', async () => {
    const { url10 } = await agent({
      auth: { strategies: [apiKey({ keys: { 'key-a': 'alice' } })] },
      // A skill with a field 1.0 does not define.
      extendedCard: () => ({ skills: [{ id: 'x', name: 'X', description: 'x', tags: [], kind: 'skill' }] }) as never,
    });
    const refused = await call10(url10, 'GetExtendedAgentCard', {}, { ...V1, 'x-api-key': 'key-a' });
    expect(refused.error).toMatchObject({ code: -32603 });
    expect(() => appWith(echo, { extendedCard: { name: 'x' } })).toThrow(/needs options.auth/);
  });
});

describe('A2A 1.0: versions and framing on the wire', () => {
  test('A2A-Version: absent is 0.3 and refused here, 1.0 (patch ignored, header or query) is served, 99.0 refused', async () => {
    const { url10 } = await agent();
    const absent = await call10(url10, 'GetTask', { id: 'x' }, {});
    expect(absent.error).toMatchObject({ code: -32009, message: 'Version not supported' });
    expect(reasonOf(absent.error)).toBe('VERSION_NOT_SUPPORTED');
    expect((await call10(url10, 'GetTask', { id: 'x' }, { 'a2a-version': '99.0' })).error?.code).toBe(-32009);
    expect((await call10(url10, 'GetTask', { id: 'x' }, { 'A2A-Version': '1.0.1' })).error?.code).toBe(-32001);
    expect((await rpc(`${url10}?A2A-Version=1.0`, 'GetTask', { id: 'x' })).error?.code).toBe(-32001);
  });

  test('framing errors on the 1.0 endpoint carry 1.0 details too: a bad envelope, bad JSON, a GET', async () => {
    const { url10 } = await agent();
    const post = async (body: string) =>
      json(await fetch(url10, { method: 'POST', headers: { ...V1, 'content-type': 'application/json' }, body }));
    for (const body of ['{"jsonrpc":"1.0","id":1,"method":"GetTask"}', '[]', '{bad']) {
      const answer = await post(body);
      expect(answer.error.data[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'a2a-protocol.org' });
    }
    const get = await fetch(url10, { headers: V1 });
    expect(get.status).toBe(405);
    expect((await json(get)).error.data[0]).toMatchObject({ reason: 'INVALID_REQUEST' });
  });

  test('an answer or event too large to send is a -32603 with its 1.0 ErrorInfo, as a whole answer and as a stream event', async () => {
    const { app } = appWith(
      twoChunkEcho(async () => undefined),
      { maxResponseBytes: 2_000 },
    );
    const url10 = `${(await serve(app)).url}/v1`;
    const big = message10('x'.repeat(3_000));
    const answer = await call10(url10, 'SendMessage', { message: big }, V1);
    expect(answer.error).toMatchObject({ code: -32603 });
    expect(answer.error!.data).toEqual([
      expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INTERNAL', domain: 'a2a-protocol.org' }),
    ]);
    const events = await collect(
      await openStream(url10, 'SendStreamingMessage', { message: message10('y'.repeat(3_000)) }, { headers: V1 }),
    );
    const failure = events.at(-1)!.message as { error?: { code: number; data?: unknown } };
    expect(failure.error).toMatchObject({ code: -32603 });
    expect(reasonOf(failure.error)).toBe('INTERNAL');
  });

  test('a later 1.x client reads the 1.0 card, any 0.x client the 0.3 one', async () => {
    const { base } = await agent();
    const card = async (version: string) =>
      json(await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'a2a-version': version } }));
    expect((await card('1.1')).supportedInterfaces).toBeDefined();
    expect((await card('0.2')).protocolVersion).toBe('0.3.0');
  });

  test('a body that is not application/json gets -32005 (1.0 ContentTypeNotSupported), not a parse error', async () => {
    const { url10 } = await agent();
    const response = await fetch(url10, { method: 'POST', headers: { ...V1, 'content-type': 'text/plain' }, body: "{'not': json}" });
    const body = await json(response);
    expect(body.error).toMatchObject({ code: -32005 });
    expect(reasonOf(body.error)).toBe('CONTENT_TYPE_NOT_SUPPORTED');
  });

  test('errors carry exactly code, message and data, data the typed details of spec 1.0 9.5', async () => {
    const { url10 } = await agent();
    const missing = await call10(url10, 'GetTask', { id: 'no-such-task' });
    expect(missing.error).toEqual({
      code: -32001,
      message: 'Task not found',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 'no-such-task' },
        },
      ],
    });
    const bad = await call10(url10, 'SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } });
    expect(bad.error).toMatchObject({ code: -32602 });
    expect(bad.error!.data).toContainEqual({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
      fieldViolations: [{ field: '/message/parts', description: 'must NOT have fewer than 1 items', reason: 'minItems' }],
    });
    expect((await call10(url10, 'message/send', { message: message03('x') })).error?.code).toBe(-32601);
    expect((await call10(url10, 'ListTaskPushNotificationConfigs', { taskId: 'x' })).error).toMatchObject({ code: -32003 });
  });
});

describe.each([
  ['in memory', async () => new InMemoryTaskStore()],
  [
    'on Redis',
    async () => {
      const prefix = uniquePrefix('v10');
      prefixes.push(prefix);
      return new RedisTaskStore({ url: await requireRedis(), prefix });
    },
  ],
])('A2A 1.0 JSON-RPC, tasks %s', (_name, makeStore) => {
  let agentUrls: Awaited<ReturnType<typeof agent>>;
  beforeAll(async () => {
    const store = await makeStore();
    stores.push(store);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    agentUrls = await agent({
      store,
      pushNotifications: { signingKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), allowlist: ['127.0.0.1'] },
    });
  });

  test('SendMessage answers {task} once the turn ends: 1.0 states, roles, parts, artifact ids; snake_case accepted', async () => {
    const { url10 } = agentUrls;
    const sent = await send10(url10, message10('hello'));
    const { task } = sent.result as Json;
    expect(task).toMatchObject({
      status: { state: 'TASK_STATE_COMPLETED', message: { role: 'ROLE_AGENT', parts: [{ text: 'done' }] } },
      // The two chunks, appended (0.1.0 7.2.2, as over every version).
      artifacts: [{ artifactId: 'artifact-0', name: 'echo', parts: [{ text: 'he' }, { text: 'llo' }] }],
    });
    expect(task.status.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    // The user's message, then each status message of the agent's (working, completed).
    expect(task.history.map((m: Json) => m.role)).toEqual(['ROLE_USER', 'ROLE_AGENT', 'ROLE_AGENT']);
    // historyLength 0 leaves history out; the proto's field names are read too.
    const got = await call10(url10, 'GetTask', { id: task.id, history_length: 0 });
    expectValid10('Task', got.result);
    expect(got.result).not.toHaveProperty('history');
    expect(got.result).toMatchObject({ id: task.id, contextId: task.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    expect(((await call10(url10, 'GetTask', { id: task.id, historyLength: 1 })).result as Json).history).toHaveLength(1);
  });

  test('a reply is {message} alone; returnImmediately answers the task as it stands', async () => {
    const { url10 } = agentUrls;
    const replied = await send10(url10, message10('reply'));
    expect(replied.result).toEqual({ message: expect.objectContaining({ role: 'ROLE_AGENT', parts: [{ text: 'hello' }] }) });
    expect((replied.result as Json).message).not.toHaveProperty('taskId');

    hold = gate();
    const early = await send10(url10, message10('wait'), { returnImmediately: true });
    expect((early.result as Json).task.status.state).toBe('TASK_STATE_WORKING');
    hold.open();
  });

  test('multi-turn: input-required, continued by task id alone; a completed task takes no more (-32004)', async () => {
    const { url10 } = agentUrls;
    const asked = ((await send10(url10, message10('?'))).result as Json).task;
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const wrongContext = await send10(url10, message10('more', { taskId: asked.id, contextId: 'another' }));
    expect(wrongContext.error).toMatchObject({ code: -32602 });
    const done = ((await send10(url10, message10('echo me', { taskId: asked.id }))).result as Json).task;
    expect(done).toMatchObject({ id: asked.id, contextId: asked.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
    const again = await send10(url10, message10('again', { taskId: asked.id }));
    expect(again.error).toMatchObject({ code: -32004 });
    expect(reasonOf(again.error)).toBe('UNSUPPORTED_OPERATION');
    expect((await send10(url10, message10('x', { taskId: 'no-such-task' }))).error).toMatchObject({ code: -32001 });
  });

  test('SendStreamingMessage: {task} first, then statusUpdate and artifactUpdate, no `final`; the stream closes at the end', async () => {
    const { url10 } = agentUrls;
    const stream = await openStream(url10, 'SendStreamingMessage', { message: message10('stream me') }, { headers: V1 });
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await streamEvents(stream);
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(events[2]!.artifactUpdate).toMatchObject({ artifact: { artifactId: 'artifact-0', parts: [{ text: 'st' }] } });
    expect(events[3]!.artifactUpdate).toMatchObject({ append: true, lastChunk: true, artifact: { parts: [{ text: 'ream me' }] } });
    expect(events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const replyStream = await streamEvents(
      await openStream(url10, 'SendStreamingMessage', { message: message10('reply') }, { headers: V1 }),
    );
    expect(replyStream).toEqual([{ message: expect.objectContaining({ parts: [{ text: 'hello' }] }) }]);
  });

  test('SubscribeToTask: the task first, then its updates; a task that has ended gets -32004 as plain JSON', async () => {
    const { url10 } = agentUrls;
    const asked = ((await send10(url10, message10('?'))).result as Json).task;
    const stream = await openStream(url10, 'SubscribeToTask', { id: asked.id }, { headers: V1 });
    const reading = streamEvents(stream);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await send10(url10, message10('then this', { taskId: asked.id }));
    const events = await reading;
    expect(events[0]).toEqual({
      task: expect.objectContaining({ id: asked.id, status: expect.objectContaining({ state: 'TASK_STATE_INPUT_REQUIRED' }) }),
    });
    expect(events.at(-1)!.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');

    const ended = await fetch(url10, {
      method: 'POST',
      headers: { ...V1, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'SubscribeToTask', params: { id: asked.id } }),
    });
    expect(ended.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await json(ended)).error).toMatchObject({ code: -32004 });
  });

  test('CancelTask: the canceled task; a task that has ended cannot be canceled (-32002)', async () => {
    const { url10 } = agentUrls;
    const asked = ((await send10(url10, message10('?'))).result as Json).task;
    const canceled = await call10(url10, 'CancelTask', { id: asked.id });
    expectValid10('Task', canceled.result);
    expect((canceled.result as Json).status.state).toBe('TASK_STATE_CANCELED');
    const again = await call10(url10, 'CancelTask', { id: asked.id });
    expect(again.error).toMatchObject({ code: -32002 });
    expect(reasonOf(again.error)).toBe('TASK_NOT_CANCELABLE');
  });

  test('push configs: create (the client id kept, or a new one), get, list, delete twice; on a completed task too', async () => {
    const { url10 } = agentUrls;
    const done = ((await send10(url10, message10('finished'))).result as Json).task;
    const hook = 'http://127.0.0.1:9/hook';
    const created = await call10(url10, 'CreateTaskPushNotificationConfig', {
      task_id: done.id,
      id: 'mine',
      url: hook,
      authentication: { scheme: 'Bearer', credentials: 'secret' },
    });
    expectValid10('Task Push Notification Config', created.result);
    expect(created.result).toEqual({
      taskId: done.id,
      id: 'mine',
      url: hook,
      authentication: { scheme: 'Bearer', credentials: '********' },
    });
    const unnamed = (await call10(url10, 'CreateTaskPushNotificationConfig', { taskId: done.id, url: hook })).result as Json;
    expect(unnamed.id).toMatch(/^[\w-]{20,}$/);
    expect((await call10(url10, 'GetTaskPushNotificationConfig', { taskId: done.id, id: 'mine' })).result).toEqual(created.result);
    const listed = await call10(url10, 'ListTaskPushNotificationConfigs', { taskId: done.id });
    expect(listed.result).toEqual({ configs: [created.result, unnamed], nextPageToken: '' });
    expect((await call10(url10, 'DeleteTaskPushNotificationConfig', { taskId: done.id, id: 'mine' })).result).toEqual({});
    expect((await call10(url10, 'DeleteTaskPushNotificationConfig', { taskId: done.id, id: 'mine' })).result).toEqual({});
    expect((await call10(url10, 'GetTaskPushNotificationConfig', { taskId: done.id, id: 'mine' })).error).toMatchObject({ code: -32001 });
    expect((await call10(url10, 'CreateTaskPushNotificationConfig', { url: hook })).error).toMatchObject({ code: -32602 });
  });

  test("push: a 1.0 webhook gets StreamResponse bodies as application/a2a+json, with the client's credentials and the kit's signature", async () => {
    const { url10, base } = agentUrls;
    const received: { headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
    const { url: hook } = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(200).end();
      });
    });
    const withCredentials = { id: 'with', url: `${hook}/with`, authentication: { scheme: 'Bearer', credentials: 'client-token' } };
    const asked = ((await send10(url10, message10('?'), { taskPushNotificationConfig: withCredentials })).result as Json).task;
    await call10(url10, 'CreateTaskPushNotificationConfig', { taskId: asked.id, id: 'without', url: `${hook}/without` });
    await send10(url10, message10('go on', { taskId: asked.id }));
    await eventually(async () => (received.filter((r) => r.body.includes('TASK_STATE_COMPLETED')).length === 2 ? true : undefined));

    const verifier = createPushNotificationVerifier<Json>({ jwksUrl: `${base}/.well-known/jwks.json` });
    for (const notification of received) {
      expect(notification.headers['content-type']).toBe('application/a2a+json');
      expect(notification.headers['content-length']).toBe(String(notification.body.length));
      const { payload } = await verifier.verify(notification);
      expectValid10('Stream Response', payload);
      expect(payload.statusUpdate).toMatchObject({ taskId: asked.id, contextId: asked.contextId });
    }
    const authorizations = new Set(received.map((r) => r.headers.authorization));
    // The config with credentials gets them (spec 1.0 4.3.3); the other the kit's signature as Bearer.
    expect(authorizations.has('Bearer client-token')).toBe(true);
    expect(
      [...authorizations].filter((a) => a !== 'Bearer client-token').every((a) => /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/.test(String(a))),
    ).toBe(true);
    const states = received
      .filter((r) => r.headers.authorization === 'Bearer client-token')
      .map((r) => JSON.parse(r.body.toString()).statusUpdate.status.state);
    expect(states).toEqual([
      'TASK_STATE_WORKING',
      'TASK_STATE_INPUT_REQUIRED',
      'TASK_STATE_WORKING',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
  });

  test('one task, every version: started over 1.0, read over 0.3 and 0.1.0, continued over 0.3; started over 0.1.0, listed and continued over 1.0; canceled over 0.3', async () => {
    const { url10, url03, url01 } = agentUrls;
    const task = ((await send10(url10, message10('?'))).result as Json).task;
    const over03 = await rpc<Json>(url03, 'tasks/get', { id: task.id });
    expect(over03.result).toMatchObject({ kind: 'task', id: task.id, contextId: task.contextId, status: { state: 'input-required' } });
    const over01 = await rpc<Json>(url01, 'tasks/get', { id: task.id });
    expect(publishedSchemaValidator('GetTaskResponse')(over01)).toBe(true);
    expect(over01.result).toMatchObject({ id: task.id, sessionId: task.contextId, status: { state: 'input-required' } });

    // Continued over 0.3, then listed over 1.0.
    const over03Continued = await rpc<Json>(url03, 'message/send', { message: message03('from 0.3', { taskId: task.id }) });
    expect(over03Continued.result).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });

    const id01 = randomUUID();
    const sessionId = randomUUID();
    await rpc(url01, 'tasks/send', { id: id01, sessionId, message: userText('?') });
    const listed = (await call10(url10, 'ListTasks', { contextId: sessionId })).result as Json;
    expect(listed.tasks).toEqual([
      expect.objectContaining({ id: id01, status: expect.objectContaining({ state: 'TASK_STATE_INPUT_REQUIRED' }) }),
    ]);
    const continued = await send10(url10, message10('from 1.0', { taskId: id01 }));
    expect((continued.result as Json).task).toMatchObject({ id: id01, contextId: sessionId, status: { state: 'TASK_STATE_COMPLETED' } });
    const canceled03 = ((await send10(url10, message10('?'))).result as Json).task;
    expect((await rpc<Json>(url03, 'tasks/cancel', { id: canceled03.id })).result).toMatchObject({ status: { state: 'canceled' } });
    expect(((await call10(url10, 'GetTask', { id: canceled03.id })).result as Json).status.state).toBe('TASK_STATE_CANCELED');
  });

  test("ListTasks: a context's tasks, newest first, a page at a time; artifacts only when asked; bad tokens and sizes refused", async () => {
    const { url10 } = agentUrls;
    const contextId = randomUUID();
    const sentIds: string[] = [];
    for (const text of ['one', 'two', '?']) sentIds.push(((await send10(url10, message10(text, { contextId }))).result as Json).task.id);
    const list = async (params: object) => {
      const response = await call10(url10, 'ListTasks', params);
      if (response.result) expectValid10('List Tasks Response', response.result);
      return response;
    };
    const all = (await list({ contextId })).result as Json;
    expect(all.tasks.map((t: Json) => t.id)).toEqual([...sentIds].reverse());
    expect(all).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 3 });
    for (const task of all.tasks) {
      expect(task).not.toHaveProperty('artifacts');
      expect(task).not.toHaveProperty('history');
    }
    // The conformance kit's spelling: the proto's field names.
    const first = (await list({ context_id: contextId, page_size: 2, include_artifacts: true, history_length: 1 })).result as Json;
    expect(first.tasks.map((t: Json) => t.id)).toEqual([sentIds[2], sentIds[1]]);
    expect(first.tasks[1].artifacts[0].artifactId).toBe('artifact-0');
    expect(first.tasks[1].history).toHaveLength(1);
    expect(first.nextPageToken).not.toBe('');
    const second = (await list({ contextId, pageSize: 2, pageToken: first.nextPageToken })).result as Json;
    expect(second).toMatchObject({ tasks: [{ id: sentIds[0] }], nextPageToken: '', pageSize: 2, totalSize: 3 });
    const waiting = (await list({ contextId, status: 'TASK_STATE_INPUT_REQUIRED' })).result as Json;
    expect(waiting.tasks.map((t: Json) => t.id)).toEqual([sentIds[2]]);
    expect(waiting.totalSize).toBe(1);
    const later = (await list({ contextId, statusTimestampAfter: new Date(Date.now() + 60_000).toISOString() })).result as Json;
    expect(later).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });

    expect((await list({ contextId, pageToken: 'not-a-token' })).error).toMatchObject({ code: -32602 });
    expect((await list({ contextId, pageSize: 101 })).error).toMatchObject({ code: -32602 });
    expect((await list({ status: 'TASK_STATE_DONE' })).error).toMatchObject({ code: -32602 });
  });

  test("a webhook sent with every message of a task without an id is one config, the task's; header-breaking credentials are refused", async () => {
    const { url10 } = agentUrls;
    const config = { url: 'http://127.0.0.1:9/hook', authentication: { scheme: 'Bearer', credentials: 'c' } };
    const asked = ((await send10(url10, message10('?'), { taskPushNotificationConfig: config })).result as Json).task;
    await send10(url10, message10('?', { taskId: asked.id }), { taskPushNotificationConfig: config });
    const listed = (await call10(url10, 'ListTaskPushNotificationConfigs', { taskId: asked.id })).result as Json;
    expect(listed.configs.map((c: Json) => c.id)).toEqual([asked.id]);
    const broken = await send10(url10, message10('x'), {
      taskPushNotificationConfig: { url: 'http://127.0.0.1:9/hook', authentication: { scheme: 'Bearer', credentials: 'a\r\nX-Evil: 1' } },
    });
    expect(broken.error).toMatchObject({ code: -32602 });
    expect(JSON.stringify(broken.error!.data)).toContain('/configuration/taskPushNotificationConfig/authentication/credentials');
    const noUrl = await call10(url10, 'CreateTaskPushNotificationConfig', { taskId: asked.id });
    expect(JSON.stringify(noUrl.error!.data)).toContain("must have required property 'url'");
  });

  test('ListTasks leaves out tasks answered by a reply alone; a leap-second time is refused, not ignored', async () => {
    const { url10 } = agentUrls;
    const contextId = randomUUID();
    await send10(url10, message10('reply', { contextId }));
    expect(((await call10(url10, 'ListTasks', { contextId })).result as Json).totalSize).toBe(0);
    const leap = await call10(url10, 'ListTasks', { statusTimestampAfter: '2016-12-31T23:59:60Z' });
    expect(leap.error).toMatchObject({ code: -32602 });
  });

  test('GetExtendedAgentCard: the card claims none, so -32004', async () => {
    const { url10 } = agentUrls;
    expect((await call10(url10, 'GetExtendedAgentCard')).error).toMatchObject({ code: -32004 });
  });
});
