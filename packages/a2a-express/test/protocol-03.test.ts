// A2A 0.3 beside 0.1.0: one router, one handler written for 0.1.0, the same tasks. Every 0.3
// answer and event is checked against the published 0.3 schema; every 0.1.0 answer about a task
// started over 0.3 against the published 0.1.0 schema. Both stores.
import express from 'express';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { collect, deleteKeys, openStream, redisUrl, requireRedis, rpc, serverPool, uniquePrefix, type OpenStream } from 'a2a-testing';
import { createPushNotificationVerifier } from 'a2a-push-receiver';
import { publishedSchemaValidator, type Task } from 'a2a-types';
import type { Task as Task03 } from 'a2a-types/v0.3';
import { apiKey, type A2ARouterOptions } from '../src/index.js';
import { RedisTaskStore } from '../src/redis.js';
import { InMemoryTaskStore, type TaskStore } from '../src/store/index.js';
import { appWith, eventually, expectValid03, gate, memoryLogger, message03, userText, twoChunkEcho } from './helpers.js';

const { serve, closeAll } = serverPool();
const stores: TaskStore[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  await closeAll();
  await Promise.all(stores.map((s) => s.close()));
  for (const prefix of prefixes) await deleteKeys(redisUrl(), prefix);
});

function expectValid01(definition: string, value: unknown): void {
  const validate = publishedSchemaValidator(definition);
  if (!validate(value)) throw new Error(`not a valid 0.1.0 ${definition}: ${JSON.stringify(validate.issues)}\n${JSON.stringify(value)}`);
}

let hold = gate();
const echo = twoChunkEcho(() => hold.promise);

async function agent(options: Partial<A2ARouterOptions> = {}) {
  const { app, router } = appWith(echo, options);
  const server = await serve(app);
  const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as { url: string };
  return { base: server.url, url01: `${server.url}/`, url03: card.url, router };
}

async function sendMessage(url03: string, message: object, configuration?: object) {
  const response = await rpc<Task03>(url03, 'message/send', { message, ...(configuration ? { configuration } : {}) });
  expectValid03('SendMessageResponse', response.httpStatus === 200 ? withoutStatus(response) : response);
  return response;
}
/** The 0.1.0 endpoint of an agent whose 0.3 endpoint is at the default path. */
const url01ForAuth = (url03: string) => url03.replace(/v0\.3$/, '');
const withoutStatus = ({ httpStatus: _status, ...body }: { httpStatus: number }) => body;

async function streamEvents(stream: OpenStream) {
  const events = await collect(stream);
  for (const { message } of events) expectValid03('SendStreamingMessageResponse', message);
  return events.map((e) => e.message.result as unknown as Record<string, unknown>);
}

describe('A2A 0.3 beside 0.1.0: cards and endpoints', () => {
  test('the 0.3 card names the 0.3 endpoint, its transport and what the router serves; the 0.1.0 card is unchanged', async () => {
    const { base } = await agent({ card: { name: 'Echo', version: '2.0.0', skills: [{ id: 'echo', name: 'Echo' }] } });
    const card03 = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expectValid03('AgentCard', card03);
    expect(card03).toMatchObject({
      protocolVersion: '0.3.0',
      name: 'Echo',
      description: 'Echo',
      version: '2.0.0',
      url: `${base}/v0.3`,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: `${base}/v0.3`, transport: 'JSONRPC' },
        { url: `${base}/v0.3`, transport: 'HTTP+JSON' },
      ],
      capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
      skills: [{ id: 'echo', name: 'Echo', description: 'Echo', tags: [] }],
    });
    // The same card below the 0.3 endpoint, for a client given the endpoint as the base URL.
    expect(await (await fetch(`${base}/v0.3/.well-known/agent-card.json`)).json()).toEqual(card03);
    const card01 = (await (await fetch(`${base}/.well-known/agent.json`)).json()) as Record<string, unknown>;
    expectValid01('AgentCard', card01);
    expect(card01).toEqual({
      name: 'Echo',
      version: '2.0.0',
      url: `${base}/`,
      capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo' }],
    });
  });

  test('mounted on a path, with another 0.3 path, card fields added; off, neither card nor endpoint exists', async () => {
    const app = express();
    const { router } = appWith(echo, { protocol03: { path: '/a2a/0.3', card: { iconUrl: 'https://icons.example/echo.png' } } });
    app.use('/agents/echo', router);
    const { url } = await serve(app);
    const card = (await (await fetch(`${url}/agents/echo/.well-known/agent-card.json`)).json()) as { url: string; iconUrl: string };
    expect(card.url).toBe(`${url}/agents/echo/a2a/0.3`);
    expect(card.iconUrl).toBe('https://icons.example/echo.png');
    expect((await sendMessage(card.url, message03('hello'))).result?.status.state).toBe('completed');

    const { url: base } = await serve(appWith(echo, { protocol03: false, protocol10: false }).app);
    expect((await fetch(`${base}/.well-known/agent-card.json`)).status).toBe(404);
    expect((await rpc(`${base}/`, 'message/send', { message: message03('x') })).error).toMatchObject({
      code: -32601,
      data: { method: 'message/send' },
    });
    expect((await fetch(`${base}/v0.3`, { method: 'POST' })).status).toBe(404);
    // 0.3 off, 1.0 on: the well-known card is the 1.0 one, whatever the client asks for.
    const { url: only10 } = await serve(appWith(echo, { protocol03: false }).app);
    const card10 = (await (await fetch(`${only10}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { protocolVersion: string }[];
    };
    expect(card10.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(['1.0', '1.0']);
  });

  test('a 0.3 call is logged like a 0.1.0 one, each line naming its protocol version', async () => {
    const { logger, lines } = memoryLogger();
    const { app } = appWith(echo, { logger });
    const { url } = await serve(app);
    await sendMessage(`${url}/v0.3`, message03('logged'));
    await rpc(`${url}/`, 'tasks/get', { id: 'no-such-task' });
    const calls = lines().filter((l) => l.msg === 'a2a call');
    expect(calls).toContainEqual(expect.objectContaining({ method: 'message/send', protocol: '0.3', outcome: 'ok' }));
    expect(calls.find((l) => l.method === 'tasks/get')).toHaveProperty('protocol', '0.1.0');
  });

  test('a bad path or a card the 0.3 schema refuses is a TypeError when the router is made', () => {
    expect(() => appWith(echo, { protocol03: { path: 'v0.3' } })).toThrow(/protocol03\.path must be a path/);
    expect(() => appWith(echo, { protocol03: { path: '/' } })).toThrow(TypeError);
    expect(() => appWith(echo, { protocol03: { card: { skills: 'none' as never } } })).toThrow(/invalid 0.3 agent card/);
  });

  test('a 0.3 method on the 0.1.0 endpoint gets -32601 saying where 0.3 is; a 0.1.0 method on the 0.3 endpoint gets -32601', async () => {
    const { url01, url03 } = await agent();
    const on01 = await rpc(url01, 'message/send', { message: message03('x') });
    expect(on01.error).toMatchObject({
      code: -32601,
      data: { method: 'message/send', reason: expect.stringContaining('agent-card.json') },
    });
    const on03 = await rpc(url03, 'tasks/send', { id: 't', message: userText('x') });
    expect(on03.error).toEqual({ code: -32601, message: 'Method not found', data: { method: 'tasks/send' } });
    expectValid03('JSONRPCErrorResponse', withoutStatus(on03));
  });
});

describe.each([
  ['InMemoryTaskStore', async () => new InMemoryTaskStore()],
  [
    'RedisTaskStore',
    async () => {
      const url = await requireRedis(redisUrl());
      const prefix = uniquePrefix('v03');
      prefixes.push(prefix);
      return new RedisTaskStore({ url, prefix });
    },
  ],
])('A2A 0.3 on the %s', (_name, makeStore) => {
  let url01: string;
  let url03: string;
  beforeAll(async () => {
    const store = await makeStore();
    stores.push(store);
    ({ url01, url03 } = await agent({ store }));
  });

  test('message/send starts a task: a 0.3 Task with the context, the message as sent, the artifact and the agent messages', async () => {
    const sent = message03('hello', { contextId: 'ctx-1', metadata: { from: 'test' }, referenceTaskIds: ['earlier'] });
    const { result: task } = await sendMessage(url03, sent);
    expect(task).toMatchObject({ kind: 'task', contextId: 'ctx-1', status: { state: 'completed' } });
    expect(task!.artifacts).toEqual([
      {
        artifactId: 'artifact-0',
        name: 'echo',
        parts: [
          { kind: 'text', text: 'he' },
          { kind: 'text', text: 'llo' },
        ],
      },
    ]);
    expect(task!.history![0]).toEqual({ ...sent, taskId: task!.id });
    expect(task!.history!.map((m) => m.role)).toEqual(['user', 'agent', 'agent']);
    expect(task!.status.message).toEqual(task!.history![2]);
  });

  test('the task is the same task over 0.1.0: read and canceled there, read and canceled from 0.1.0 over 0.3', async () => {
    const { result: viaV03 } = await sendMessage(url03, message03('wait'), { blocking: false });
    expect(viaV03!.status.state).toBe('working');
    const got01 = await rpc<Task>(url01, 'tasks/get', { id: viaV03!.id, historyLength: 5 });
    expectValid01('GetTaskResponse', withoutStatus(got01));
    expect(got01.result).toMatchObject({ id: viaV03!.id, sessionId: viaV03!.contextId, status: { state: 'working' } });
    expect(got01.result!.history![0]).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'wait' }] });
    const canceled01 = await rpc<Task>(url01, 'tasks/cancel', { id: viaV03!.id });
    expectValid01('CancelTaskResponse', withoutStatus(canceled01));
    expect(canceled01.result!.status.state).toBe('canceled');
    hold.open();
    hold = gate();

    const started01 = await rpc<Task>(url01, 'tasks/send', { id: randomUUID(), sessionId: 's-01', message: userText('?') });
    expect(started01.result!.status.state).toBe('input-required');
    const got03 = await rpc<Task03>(url03, 'tasks/get', { id: started01.result!.id });
    expectValid03('GetTaskResponse', withoutStatus(got03));
    expect(got03.result).toMatchObject({ kind: 'task', contextId: 's-01', status: { state: 'input-required' } });
    // The handler's message came without an id: the one it was given is the same wherever it appears.
    expect(got03.result!.history![1]!.messageId).toBe(got03.result!.status.message!.messageId);
    const canceled03 = await rpc<Task03>(url03, 'tasks/cancel', { id: started01.result!.id });
    expectValid03('CancelTaskResponse', withoutStatus(canceled03));
    expect(canceled03.result!.status.state).toBe('canceled');
    expect((await rpc(url03, 'tasks/cancel', { id: started01.result!.id })).error).toMatchObject({ code: -32002 });
  });

  test('a multi-turn task continues by taskId; contextId must match; a completed task is reopened over both versions, a canceled one refused', async () => {
    const { result: asked } = await sendMessage(url03, message03('?'));
    expect(asked!.status.state).toBe('input-required');
    const wrongContext = await rpc(url03, 'message/send', { message: message03('hi', { taskId: asked!.id, contextId: 'other' }) });
    expect(wrongContext.error).toMatchObject({ code: -32602, data: [{ path: '/message/contextId', keyword: 'contextId' }] });
    const { result: answered } = await sendMessage(url03, message03('hi', { taskId: asked!.id, contextId: asked!.contextId }));
    expect(answered).toMatchObject({ id: asked!.id, status: { state: 'completed' } });
    expect(answered!.history!.filter((m) => m.role === 'user')).toHaveLength(2);

    const again = await sendMessage(url03, message03('more', { taskId: asked!.id }));
    expect(again.result).toMatchObject({ id: asked!.id, status: { state: 'completed' } });
    expect(
      again
        .result!.artifacts!.at(-1)!
        .parts.map((p) => (p.kind === 'text' ? p.text : ''))
        .join(''),
    ).toBe('more');
    const reopened = await rpc<Task>(url01, 'tasks/send', { id: asked!.id, message: userText('more') });
    expect(reopened.result!.status.state).toBe('completed');

    const { result: toCancel } = await sendMessage(url03, message03('?'));
    await rpc(url03, 'tasks/cancel', { id: toCancel!.id });
    const afterCancel = await rpc(url03, 'message/send', { message: message03('hi', { taskId: toCancel!.id }) });
    expect(afterCancel.error).toMatchObject({ code: -32009, data: { state: 'canceled' } });
    expectValid03('JSONRPCErrorResponse', withoutStatus(afterCancel));

    const unknown = await rpc(url03, 'message/send', { message: message03('x', { taskId: 'no-such-task' }) });
    expect(unknown.error).toMatchObject({ code: -32001 });
    expectValid03('JSONRPCErrorResponse', withoutStatus(unknown));
  });

  test('message/stream: the Task first, then status and artifact updates, the final one last, each a valid 0.3 event', async () => {
    const events = await streamEvents(await openStream(url03, 'message/stream', { message: message03('hello') }));
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update', 'artifact-update', 'artifact-update', 'status-update']);
    const [task, working, first, second, done] = events;
    expect(task).toMatchObject({ status: { state: 'working' }, history: [{ parts: [{ kind: 'text', text: 'hello' }] }] });
    for (const event of events.slice(1)) expect(event).toMatchObject({ taskId: task!.id, contextId: task!.contextId });
    expect(working).toMatchObject({ final: false, status: { state: 'working', message: { role: 'agent', kind: 'message' } } });
    expect(first).toMatchObject({ artifact: { artifactId: 'artifact-0', parts: [{ text: 'he' }] }, lastChunk: false });
    expect(second).toMatchObject({ artifact: { artifactId: 'artifact-0', parts: [{ text: 'llo' }] }, append: true, lastChunk: true });
    expect(done).toMatchObject({ final: true, status: { state: 'completed' } });
  });

  test('tasks/resubscribe with Last-Event-ID gets what was missed, in 0.3 form, and nothing twice', async () => {
    const { result: task } = await sendMessage(url03, message03('wait'), { blocking: false });
    const first = await openStream(url03, 'tasks/resubscribe', { id: task!.id }, { eventIds: true });
    const [current] = await collect(first, { max: 1 });
    first.abort();
    expectValid03('SendStreamingMessageResponse', current!.message);
    expect(current!.message.result).toMatchObject({ kind: 'status-update', status: { state: 'working' } });
    hold.open();
    hold = gate();
    await eventually(async () =>
      (await rpc<Task03>(url03, 'tasks/get', { id: task!.id })).result!.status.state === 'completed' ? true : undefined,
    );
    const resumed = await openStream(url03, 'tasks/resubscribe', { id: task!.id }, { headers: { 'last-event-id': current!.id! } });
    const events = await streamEvents(resumed);
    expect(events.map((e) => e.kind)).toEqual(['artifact-update', 'artifact-update', 'status-update']);
    expect(events.at(-1)).toMatchObject({
      final: true,
      status: { state: 'completed', message: { parts: [{ kind: 'text', text: 'done' }] } },
    });
  });

  test('bad 0.3 params get -32602 with the validation details; bad JSON -32700; never a 500', async () => {
    const noId = await rpc(url03, 'message/send', { message: { kind: 'message', role: 'user', parts: [{ kind: 'text', text: 'x' }] } });
    expect(noId.httpStatus).toBe(200);
    expect(noId.error).toMatchObject({
      code: -32602,
      data: [{ path: '/message', keyword: 'required', params: { missingProperty: 'messageId' } }],
    });
    expectValid03('JSONRPCErrorResponse', withoutStatus(noId));
    const v01Part = await rpc(url03, 'message/send', { message: { ...message03('x'), parts: [{ type: 'text', text: 'x' }] } });
    expect(v01Part.error).toMatchObject({
      code: -32602,
      data: [{ path: '/message/parts/0', keyword: 'required', params: { missingProperty: 'kind' } }],
    });
    const noParts = await rpc(url03, 'message/send', { message: { ...message03('x'), parts: [] } });
    expect(noParts.error).toMatchObject({ code: -32602, data: [{ path: '/message/parts', keyword: 'minItems' }] });
    const manyParts = await rpc(url03, 'message/send', {
      message: { ...message03('x'), parts: Array.from({ length: 1001 }, () => ({ kind: 'text', text: 'p' })) },
    });
    expect(manyParts.error).toMatchObject({ code: -32602, data: [{ path: '/message/parts', keyword: 'maxItems' }] });
    const noTaskId = await rpc(url03, 'tasks/get', { historyLength: 1 });
    expect(noTaskId.error).toMatchObject({ code: -32602, data: [{ keyword: 'required', params: { missingProperty: 'id' } }] });
    const parse = await fetch(url03, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":' });
    expect(await parse.json()).toMatchObject({ id: null, error: { code: -32700 } });
    expect((await rpc(url03, 'tasks/list', {})).error).toMatchObject({ code: -32601 });
    expect((await rpc(url03, 'agent/getAuthenticatedExtendedCard')).error).toEqual({
      code: -32007,
      message: 'Authenticated Extended Card not configured',
    });
    expect((await rpc(url03, 'tasks/get', { id: 'no-such-task' })).error).toMatchObject({ code: -32001 });
  });
});

describe('A2A 0.3: push notifications, auth, disabled features', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signingKey = { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'k03' };

  test.each([
    ['InMemoryTaskStore', async () => undefined],
    [
      'RedisTaskStore',
      async () => {
        const prefix = uniquePrefix('v03-push');
        prefixes.push(prefix);
        const store = new RedisTaskStore({ url: await requireRedis(redisUrl()), prefix });
        stores.push(store);
        return store;
      },
    ],
  ])(
    'push configs on the %s: set, get, list, delete by id; notifications are signed 0.3 Tasks; 0.1.0 sees the same config',
    async (_name, makeStore) => {
      const received: { headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
      const hookApp = express();
      hookApp.post('/hook', express.raw({ type: () => true }), (req, res) => {
        received.push({ headers: req.headers, body: req.body as Buffer });
        res.status(204).end();
      });
      const hook = await serve(hookApp);
      const store = await makeStore();
      const { base, url01, url03 } = await agent({
        pushNotifications: { signingKey, allowlist: ['127.0.0.1'] },
        ...(store ? { store } : {}),
      });

      const { result: task } = await sendMessage(url03, message03('?'));
      const config = {
        id: 'hook-1',
        url: `${hook.url}/hook`,
        token: 'secret-token',
        authentication: { schemes: ['Bearer'], credentials: 'c' },
      };
      const set = await rpc(url03, 'tasks/pushNotificationConfig/set', { taskId: task!.id, pushNotificationConfig: config });
      expectValid03('SetTaskPushNotificationConfigResponse', withoutStatus(set));
      const masked = { ...config, token: '********', authentication: { schemes: ['Bearer'], credentials: '********' } };
      expect(set.result).toEqual({ taskId: task!.id, pushNotificationConfig: masked });
      const got = await rpc(url03, 'tasks/pushNotificationConfig/get', { id: task!.id, pushNotificationConfigId: 'hook-1' });
      expectValid03('GetTaskPushNotificationConfigResponse', withoutStatus(got));
      expect(got.result).toEqual(set.result);
      expect(
        (await rpc(url03, 'tasks/pushNotificationConfig/get', { id: task!.id, pushNotificationConfigId: 'other' })).error,
      ).toMatchObject({ code: -32001 });
      const listed = await rpc(url03, 'tasks/pushNotificationConfig/list', { id: task!.id });
      expectValid03('ListTaskPushNotificationConfigSuccessResponse', withoutStatus(listed));
      expect(listed.result).toEqual([set.result]);
      const got01 = await rpc(url01, 'tasks/pushNotification/get', { id: task!.id });
      expectValid01('GetTaskPushNotificationResponse', withoutStatus(got01));
      expect(got01.result).toEqual({
        id: task!.id,
        pushNotificationConfig: { url: config.url, token: '********', authentication: masked.authentication },
      });

      await sendMessage(url03, message03('hi', { taskId: task!.id }));
      const notifications = await eventually(async () => (received.length >= 3 ? received : undefined));
      const verifier = createPushNotificationVerifier<Task03>({ jwksUrl: `${base}/.well-known/jwks.json`, algorithms: ['ES256'] });
      const bodies = [];
      for (const n of notifications) {
        expect(n.headers['x-a2a-notification-token']).toBe('secret-token');
        const { payload } = await verifier.verify({ headers: n.headers, body: n.body });
        expectValid03('Task', payload);
        bodies.push(payload);
      }
      expect(bodies.map((b) => b.status.state)).toEqual(['working', 'working', 'completed']);
      expect(bodies[0]).toMatchObject({ kind: 'task', id: task!.id, contextId: task!.contextId });

      const deleted = await rpc(url03, 'tasks/pushNotificationConfig/delete', { id: task!.id, pushNotificationConfigId: 'hook-1' });
      expectValid03('DeleteTaskPushNotificationConfigSuccessResponse', withoutStatus(deleted));
      expect(deleted.result).toBeNull();
      expect((await rpc(url03, 'tasks/pushNotificationConfig/list', { id: task!.id })).result).toEqual([]);
      expect(
        (await rpc(url03, 'tasks/pushNotificationConfig/delete', { id: task!.id, pushNotificationConfigId: 'hook-1' })).result,
      ).toBeNull();
      const noConfigId = await rpc(url03, 'tasks/pushNotificationConfig/delete', { id: task!.id });
      expect(noConfigId.error).toMatchObject({ code: -32602, data: [{ params: { missingProperty: 'pushNotificationConfigId' } }] });
    },
  );

  test('a 0.3 webhook URL passes the same SSRF guard: a private address not allowlisted is refused, with message/send too', async () => {
    const { url03 } = await agent({ pushNotifications: { signingKey, resolve: async () => [{ address: '10.0.0.7', family: 4 }] } });
    const { result: task } = await sendMessage(url03, message03('?'));
    const set = await rpc(url03, 'tasks/pushNotificationConfig/set', {
      taskId: task!.id,
      pushNotificationConfig: { url: 'https://hooks.internal.example/a2a' },
    });
    expect(set.error).toMatchObject({ code: -32602, data: [{ keyword: 'webhookUrl' }] });
    const withSend = await rpc(url03, 'message/send', {
      message: message03('x'),
      configuration: { pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
    });
    expect(withSend.error).toMatchObject({ code: -32602, data: [{ keyword: 'webhookUrl' }] });
  });

  test('auth and ownership hold for 0.3 calls: 401 without a key, another principal sees no task', async () => {
    const { base, url03 } = await agent({ auth: { strategies: [apiKey({ keys: { 'key-a': 'alice', 'key-b': 'bob' } })] } });
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expectValid03('AgentCard', card);
    expect(card).toMatchObject({
      securitySchemes: { apikey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      security: [{ apikey: [] }],
    });
    // 0.3 gives -32007 another meaning (no extended card), and the 0.3 SDK reads it so: -32000.
    const refused = await fetch(url03, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'message/send', params: { message: message03('x') } }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('ApiKey');
    expect(await refused.json()).toMatchObject({ id: 7, error: { code: -32000, message: 'Authentication required' } });
    const wrongKey = await rpc(url03, 'tasks/get', { id: 't' }, { headers: { 'x-api-key': 'nope' } });
    expect(wrongKey).toMatchObject({ httpStatus: 401, error: { code: -32000 } });
    expect((await rpc(url01ForAuth(url03), 'tasks/get', { id: 't' })).error).toMatchObject({ code: -32007 });
    const alice = { headers: { 'x-api-key': 'key-a' } };
    const sent = await rpc<Task03>(url03, 'message/send', { message: message03('?') }, alice);
    expect(sent.result!.status.state).toBe('input-required');
    const asBob = await rpc(url03, 'tasks/get', { id: sent.result!.id }, { headers: { 'x-api-key': 'key-b' } });
    expect(asBob.error).toMatchObject({ code: -32001 });
    const continuedByBob = await rpc(
      url03,
      'message/send',
      { message: message03('hi', { taskId: sent.result!.id }) },
      { headers: { 'x-api-key': 'key-b' } },
    );
    expect(continuedByBob.error).toMatchObject({ code: -32001 });
  });

  test('an authorize rule written in 1.0 operations covers 0.3 and 0.1.0 calls: it is asked the operation, with the method as called', async () => {
    const asked: { operation: string; method: string; protocol: string }[] = [];
    const { url01, url03 } = await agent({
      auth: {
        strategies: [apiKey({ keys: { 'key-a': 'alice', 'key-b': 'bob' } })],
        authorize: ({ principal, operation, origin }) => {
          asked.push({ operation, method: origin.method, protocol: origin.protocol });
          return !(principal.id === 'bob' && (operation === 'SendMessage' || operation === 'DeleteTaskPushNotificationConfig'));
        },
      },
      pushNotifications: { signingKey, allowlist: ['127.0.0.1'] },
    });
    const bob = { headers: { 'x-api-key': 'key-b' } };
    const refused = await rpc(url03, 'message/send', { message: message03('x') }, bob);
    expect(refused).toMatchObject({ httpStatus: 403, error: { code: -32008 } });
    expectValid03('JSONRPCErrorResponse', withoutStatus(refused));
    expect((await rpc(url03, 'tasks/pushNotificationConfig/delete', { id: 't', pushNotificationConfigId: 'c' }, bob)).error).toMatchObject({
      code: -32008,
    });
    expect((await rpc(url01, 'tasks/send', { id: randomUUID(), message: userText('x') }, bob)).httpStatus).toBe(403);
    // tasks/sendSubscribe is not refused to bob: the stream runs to its end.
    const streamed = await streamEvents(await openStream(url03, 'message/stream', { message: message03('x') }, bob));
    expect(streamed.at(-1)).toMatchObject({ kind: 'status-update', final: true });
    expect(asked).toEqual([
      { operation: 'SendMessage', method: 'message/send', protocol: '0.3' },
      { operation: 'DeleteTaskPushNotificationConfig', method: 'tasks/pushNotificationConfig/delete', protocol: '0.3' },
      { operation: 'SendMessage', method: 'tasks/send', protocol: '0.1.0' },
      { operation: 'SendStreamingMessage', method: 'message/stream', protocol: '0.3' },
    ]);
  });

  test('streaming off: 0.3 streams get -32004 (0.1.0 -32006 means something else in 0.3); push off: -32003', async () => {
    const { url03 } = await agent({ streaming: false });
    const stream = await rpc(url03, 'message/stream', { message: message03('x') });
    expect(stream.error).toMatchObject({ code: -32004, message: 'Streaming is not supported' });
    expectValid03('JSONRPCErrorResponse', withoutStatus(stream));
    expect((await rpc(url03, 'tasks/resubscribe', { id: 't' })).error).toMatchObject({ code: -32004 });
    expect((await rpc(url03, 'tasks/pushNotificationConfig/list', { id: 't' })).error).toMatchObject({ code: -32003 });
    const withPush = await rpc(url03, 'message/send', {
      message: message03('x'),
      configuration: { pushNotificationConfig: { url: 'https://x.example/h' } },
    });
    expect(withPush.error).toMatchObject({ code: -32003 });
  });
});

describe('a call without an id over 0.3', () => {
  const post = (url: string, body: object) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  test('that fails is answered with id null (0.3 defines no notification); one that succeeds gets 204, as over 0.1.0', async () => {
    const { url01, url03 } = await agent();
    const unknown = await post(url03, { jsonrpc: '2.0', method: 'message/ssend', params: { message: message03('x') } });
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32601 } });
    const badParams = await post(url03, { jsonrpc: '2.0', method: 'message/send', params: { '': 'not_a_dict' } });
    expect(await badParams.json()).toMatchObject({ id: null, error: { code: -32602 } });
    const sent = await post(url03, { jsonrpc: '2.0', method: 'message/send', params: { message: message03('hi') } });
    expect(sent.status).toBe(204);
    // 0.1.0 keeps JSON-RPC's rule: a notification is never answered.
    expect((await post(url01, { jsonrpc: '2.0', method: 'tasks/nope', params: {} })).status).toBe(204);
  });
});

describe('the error of a 0.3 streaming call', () => {
  const postStream = (url: string, method: string, params: object, accept?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'e1', method, params }),
      signal: AbortSignal.timeout(5_000),
    });

  test('is a stream of one error event for a client that asks for text/event-stream (as the official SDK does)', async () => {
    const { url01, url03 } = await agent();
    const missing = await postStream(url03, 'tasks/resubscribe', { id: 'no-such-task' }, 'text/event-stream');
    expect(missing.status).toBe(200);
    expect(missing.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const frames = (await missing.text()).split('\n\n').filter((frame) => frame.startsWith('data: '));
    expect(frames.map((frame) => JSON.parse(frame.slice('data: '.length)))).toEqual([
      { jsonrpc: '2.0', id: 'e1', error: expect.objectContaining({ code: -32001 }) },
    ]);
    const invalid = await postStream(url03, 'message/stream', { message: { kind: 'message' } }, 'application/json, text/event-stream');
    expect(invalid.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await invalid.text()).toContain('"code":-32602');
    // Without asking for it, and over 0.1.0 always, the error is plain JSON.
    const plain = await postStream(url03, 'tasks/resubscribe', { id: 'no-such-task' });
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await plain.json()).toMatchObject({ id: 'e1', error: { code: -32001 } });
    const over01 = await postStream(url01, 'tasks/resubscribe', { id: 'no-such-task' }, 'text/event-stream');
    expect(over01.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
