// A2A 0.3 over HTTP+JSON (spec 0.3 3.2.3, the REST tab of each method), below the 0.3 endpoint
// (`/v0.3/v1/message:send`): driven by the official JS SDK 0.3's own REST client, which we did not
// write, then by hand for what the SDK never sends (hostile bodies, unknown routes, verbs), on
// Express and on the fetch handler. The same tasks as 0.3 JSON-RPC; errors are the JSONRPCError
// object under the HTTP status of their reason.
import { ClientFactory, RestTransportFactory, TaskNotCancelableError, TaskNotFoundError, type Client } from '@a2a-js/sdk/client';
import type { Message as SdkMessage, Task as SdkTask } from '@a2a-js/sdk';
import { collectEvents, rpc, serverPool } from 'a2a-testing';
import type { Task as Task03 } from 'a2a-types/v0.3';
import { a2aFetchHandler } from '../src/fetch.js';
import { a2aNodeHandler } from '../src/node.js';
import { apiKey, type A2ARouterOptions } from '../src/index.js';
import { InMemoryTaskStore } from '../src/store/index.js';
import { LISTED_TASKS_03 } from '../src/versions/v0_3/methods.js';
import { appWith, expectValid03, gate, message03, silent, testCard, twoChunkEcho } from './helpers.js';

const { serve, closeAll } = serverPool();

let hold = gate();
const echo = twoChunkEcho(() => hold.promise);

async function agent(options: Partial<A2ARouterOptions> = {}): Promise<string> {
  const { app } = appWith(echo, options);
  return (await serve(app)).url;
}

// One agent for every test that needs nothing else of it: each makes tasks of its own.
let base: string;
let sdk: Client;
beforeAll(async () => {
  base = await agent({ pushNotifications: { allowlist: ['127.0.0.1'] }, bodyLimit: 16 * 1024 });
  // The SDK picks HTTP+JSON from the card's additionalInterfaces: it speaks nothing else here.
  sdk = await new ClientFactory({ transports: [new RestTransportFactory()] }).createFromUrl(base);
});
afterAll(async () => {
  hold.open();
  await closeAll();
});

const user = (text: string, extra: Partial<SdkMessage> = {}): SdkMessage => ({ ...(message03(text) as SdkMessage), ...extra });
const textOf = (parts: { kind: string; text?: string }[] = []) => parts.map((p) => p.text ?? '').join('');

interface Answer {
  status: number;
  type: string | null;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: read after the assertions that give it its shape.
  body: any;
}

async function call(verb: string, path: string, body?: string | object, headers: Record<string, string> = {}, at = base): Promise<Answer> {
  const response = await fetch(`${at}/v0.3${path}`, {
    method: verb,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    headers: response.headers,
    body: text ? JSON.parse(text) : undefined,
  };
}

/** An error answer: its HTTP status, JSON, and the JSONRPCError object with 0.3's code. */
function expectError(answer: Answer, status: number, code: number): void {
  expect({ status: answer.status, code: answer.body?.code }).toEqual({ status, code });
  expect(answer.type).toMatch(/^application\/json/);
  expect(answer.body).toEqual(expect.objectContaining({ message: expect.any(String) }));
  expect(Object.keys(answer.body).filter((key) => !['code', 'message', 'data'].includes(key))).toEqual([]);
}

describe('the official SDK 0.3 REST client against our server', () => {
  test('the 0.3 card lists HTTP+JSON at the 0.3 URL, and still passes the published 0.3 schema', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expectValid03('AgentCard', card);
    expect(card.additionalInterfaces).toContainEqual({ url: `${base}/v0.3`, transport: 'HTTP+JSON' });
  });

  test('send, get with historyLength, a reply as a Message; the same task over JSON-RPC', async () => {
    const task = (await sdk.sendMessage({ message: user('hello there') })) as SdkTask;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(textOf(task.artifacts?.[0]?.parts)).toBe('hello there');
    const got = await sdk.getTask({ id: task.id, historyLength: 1 });
    expect(got.history).toHaveLength(1);
    expect(got).toMatchObject({ id: task.id, contextId: task.contextId, status: { state: 'completed' } });
    const viaRpc = await rpc<Task03>(`${base}/v0.3`, 'tasks/get', { id: task.id });
    expect(viaRpc.result).toMatchObject({ id: task.id, status: { state: 'completed' } });
    expect(await sdk.sendMessage({ message: user('reply') })).toMatchObject({ kind: 'message', role: 'agent', parts: [{ text: 'hello' }] });
  });

  test('stream: the task, its updates, the final status; resubscribe picks up a running task', async () => {
    const events = await collectEvents(sdk.sendMessageStream({ message: user('streamed') }));
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update', 'artifact-update', 'artifact-update', 'status-update']);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });

    hold = gate();
    const stream = sdk.sendMessageStream({ message: user('wait') });
    const first = (await stream.next()).value as SdkTask;
    expect(first).toMatchObject({ kind: 'task', status: { state: 'working' } });
    const resumed = sdk.resubscribeTask({ id: first.id });
    const opened = await resumed.next();
    hold.open();
    const rest = await collectEvents({ [Symbol.asyncIterator]: () => resumed });
    await stream.return(undefined);
    const all = [opened.value, ...rest];
    expect(all.at(-1)).toMatchObject({ kind: 'status-update', taskId: first.id, final: true, status: { state: 'completed' } });
    expect(all.filter((e) => e?.kind === 'artifact-update').length).toBeGreaterThan(0);
  });

  test('cancel, then cancel again: TaskNotCancelableError; an unknown task: TaskNotFoundError', async () => {
    hold = gate();
    const task = (await sdk.sendMessage({ message: user('wait'), configuration: { blocking: false } })) as SdkTask;
    expect(task.status.state).toBe('working');
    expect((await sdk.cancelTask({ id: task.id })).status.state).toBe('canceled');
    await expect(sdk.cancelTask({ id: task.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(sdk.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    hold.open();
  });

  test('push configs: set, get, list, delete', async () => {
    const task = (await sdk.sendMessage({ message: user('?') })) as SdkTask;
    const config = { id: 'hook-1', url: 'http://127.0.0.1:9/hook', token: 'secret-token' };
    const set = await sdk.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config });
    expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: 'hook-1', url: config.url } });
    await sdk.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { id: 'hook-2', url: 'http://127.0.0.1:9/b' } });
    // The SDK's client types this call's params as TaskIdParams, though its REST transport needs the config's id.
    const which = { id: task.id, pushNotificationConfigId: 'hook-2' };
    const got = await sdk.getTaskPushNotificationConfig(which);
    expect(got).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: 'hook-2', url: 'http://127.0.0.1:9/b' } });
    const listed = await sdk.listTaskPushNotificationConfig({ id: task.id });
    expect(listed.map((c) => c.pushNotificationConfig.id).sort()).toEqual(['hook-1', 'hook-2']);
    await sdk.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' });
    expect((await sdk.listTaskPushNotificationConfig({ id: task.id })).map((c) => c.pushNotificationConfig.id)).toEqual(['hook-2']);
    // The spec's own body, `{ config }`, is read too; the path names the task.
    const spec = await call('POST', `/v1/tasks/${task.id}/pushNotificationConfigs`, {
      config: { pushNotificationConfig: { id: 'hook-3', url: 'http://127.0.0.1:9/c' } },
    });
    expect(spec).toMatchObject({
      status: 200,
      body: { name: `tasks/${task.id}/pushNotificationConfigs/hook-3`, pushNotificationConfig: { id: 'hook-3' } },
    });
  });
});

describe('what a client may send that the SDK does not', () => {
  test('bodies in the proto JSON form and its proto names, or in the JSON-RPC spelling', async () => {
    const proto = {
      message: { message_id: 'm-proto', role: 'ROLE_USER', content: [{ text: 'snake' }] },
      configuration: { history_length: '1', blocking: true },
    };
    const sent = await call('POST', '/v1/message:send', proto);
    expect(sent.status).toBe(200);
    const { task } = sent.body;
    expect(task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ parts: [{ text: 'sn' }, { text: 'ake' }] }] });
    expect(task.history).toEqual([expect.objectContaining({ role: 'ROLE_AGENT', content: [{ text: 'done' }] })]);
    const whole = await call('GET', `/v1/tasks/${task.id}`);
    // 0 is proto3's unset int32: the whole history, as over gRPC.
    expect((await call('GET', `/v1/tasks/${task.id}?historyLength=0`)).body.history).toEqual(whole.body.history);
    expect(whole.body.history[0]).toEqual({
      messageId: 'm-proto',
      contextId: task.contextId,
      taskId: task.id,
      role: 'ROLE_USER',
      content: [{ text: 'snake' }],
    });
    // proto3 leaves a false bool out: a configuration without `blocking` does not block.
    hold = gate();
    const unblocked = await call('POST', '/v1/message:send', {
      message: { messageId: 'm-wait', role: 'ROLE_USER', content: [{ text: 'wait' }] },
      configuration: {},
    });
    expect(unblocked.body.task.status.state).toBe('TASK_STATE_WORKING');
    hold.open();
    const spelled = await call('POST', '/v1/message:send', { message: message03('kinds') });
    expect(spelled.body.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  test('hostile and wrong input: a clear status and the JSONRPCError body, never a 500', async () => {
    expectError(await call('POST', '/v1/message:send', '{"message": '), 400, -32700);
    expectError(await call('POST', '/v1/message:send', '[1, 2]'), 400, -32600);
    const missing = await call('POST', '/v1/message:send', { configuration: {} });
    expectError(missing, 400, -32602);
    expect(missing.body.data).toContainEqual(expect.objectContaining({ params: { missingProperty: 'message' } }));
    const badRole = await call('POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_ROBOT', content: [{ text: 'x' }] } });
    expectError(badRole, 400, -32602);
    expectError(await call('GET', '/v1/tasks/some-task?historyLength=many'), 400, -32602);
    expectError(await call('POST', '/v1/message:send', 'x'.repeat(32 * 1024)), 413, -32600);
    expectError(await call('POST', '/v1/message:send', 'hello', { 'content-type': 'text/plain' }), 415, -32600);
    expectError(await call('GET', '/v1/no-such-route'), 404, -32601);
    const verb = await call('DELETE', '/v1/message:send');
    expectError(verb, 405, -32601);
    expectError(await call('GET', '/v1/tasks/no-such-task'), 404, -32001);
    expectError(await call('GET', '/v1/tasks/no-such-task/pushNotificationConfigs'), 404, -32001);
    // 0.3's card claims no extended card: -32007 as over JSON-RPC.
    expectError(await call('GET', '/v1/card'), 404, -32007);
    const response = await fetch(`${base}/v0.3/v1/message:send`, { method: 'PUT' });
    expect({ status: response.status, allow: response.headers.get('allow') }).toEqual({ status: 405, allow: 'POST' });
  });

  test('an error before a stream opens is an HTTP status and the error body, as the SDK client reads it', async () => {
    const refused = await call(
      'POST',
      '/v1/message:stream',
      { message: { messageId: 'm', role: 'ROLE_USER' } },
      { accept: 'text/event-stream' },
    );
    expectError(refused, 400, -32602);
    expectError(await call('POST', '/v1/tasks/no-such-task:subscribe', undefined, { accept: 'text/event-stream' }), 404, -32001);
  });
});

test('an event too large to send ends the stream with an error event, the 0.3 error object', async () => {
  const url = await agent({ maxResponseBytes: 4_000 });
  const response = await fetch(`${url}/v0.3/v1/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ message: { messageId: 'm-big', role: 'ROLE_USER', content: [{ text: 'x'.repeat(6_000) }] } }),
  });
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const text = await response.text();
  const last = text.trim().split('\n\n').at(-1)!;
  expect(last).toMatch(/^event: error$/m);
  expect(JSON.parse(/^data: (.*)$/m.exec(last)![1]!)).toMatchObject({ code: -32603, message: expect.any(String) });
});

test('with authentication: 401 with WWW-Authenticate and the 0.3 error body; the key lets the SDK client in', async () => {
  const url = await agent({ auth: { strategies: [apiKey({ keys: { 'key-a': 'alice' } })] } });
  const refused = await call('POST', '/v1/message:send', { message: message03('x') }, {}, url);
  expectError(refused, 401, -32000);
  expect(refused.headers.get('www-authenticate')).toBeTruthy();
  const withKey: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as object), 'x-api-key': 'key-a' } });
  const client = await new ClientFactory({ transports: [new RestTransportFactory({ fetchImpl: withKey })] }).createFromUrl(url);
  expect(await client.sendMessage({ message: user('hi') })).toMatchObject({ kind: 'task', status: { state: 'completed' } });
});

describe("tasks/list: GET /v1/tasks, the caller's newest tasks as a bare list", () => {
  test('each caller sees its own tasks alone, newest first, as many as the bound; JSON-RPC has no tasks/list', async () => {
    const url = await agent({ auth: { strategies: [apiKey({ keys: { 'key-a': 'alice', 'key-b': 'bob' } })] } });
    const as = (key: string) => ({ 'x-api-key': key });
    const send = async (key: string, text: string): Promise<string> => {
      const sent = await call('POST', '/v1/message:send', { message: message03(text) }, as(key), url);
      expect(sent.status).toBe(200);
      return sent.body.task.id;
    };
    // One task before the rest and one after them, so that which is oldest and newest is known.
    const oldest = await send('key-a', 'first');
    await Promise.all(Array.from({ length: LISTED_TASKS_03 - 1 }, (_, i) => send('key-a', `task ${i}`)));
    const newest = await send('key-a', 'last');
    const bobs = await send('key-b', 'bob');

    const listed = await call('GET', '/v1/tasks', undefined, as('key-a'), url);
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body)).toBe(true);
    const ids = (listed.body as { id: string }[]).map((task) => task.id);
    expect(ids).toHaveLength(LISTED_TASKS_03);
    expect(ids[0]).toBe(newest);
    expect(ids).not.toContain(oldest);
    expect(ids).not.toContain(bobs);
    const times = (listed.body as { status: { timestamp: string } }[]).map((task) => Date.parse(task.status.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Each in the proto's JSON form, without history or artifacts (GET /v1/tasks/{id} reads them).
    expect(listed.body[0]).toEqual({
      id: newest,
      contextId: expect.any(String),
      status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }),
    });

    expect((await call('GET', '/v1/tasks', undefined, as('key-b'), url)).body.map((task: { id: string }) => task.id)).toEqual([bobs]);
    expectError(await call('GET', '/v1/tasks', undefined, {}, url), 401, -32000);
    expect((await rpc(`${url}/v0.3`, 'tasks/list', {}, { headers: as('key-a') })).error).toMatchObject({ code: -32601 });
    // Nor does 0.1.0's -32601 point a JSON-RPC caller to 0.3 for it.
    const at010 = await rpc(url, 'tasks/list', {}, { headers: as('key-a') });
    expect(at010.error).toMatchObject({ code: -32601 });
    expect(JSON.stringify(at010.error)).not.toMatch(/0\.3/);
  });

  test('a store that cannot list tasks: -32004, as 1.0 answers ListTasks', async () => {
    // A store of the app's own, which need not list (TaskStore.listTasks is optional).
    const store = Object.assign(new InMemoryTaskStore(), { listTasks: undefined });
    const url = await agent({ store });
    expectError(await call('GET', '/v1/tasks', undefined, {}, url), 400, -32004);
  });
});

test('the node:http handler serves the same routes, to the SDK client too', async () => {
  const served = a2aNodeHandler(echo, { card: testCard, logger: silent });
  try {
    const { url } = await serve(served);
    const client = await new ClientFactory({ transports: [new RestTransportFactory()] }).createFromUrl(url);
    const task = (await client.sendMessage({ message: user('node') })) as SdkTask;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    expectError(await call('GET', '/v1/no-such-route', undefined, {}, url), 404, -32601);
  } finally {
    await served.close();
  }
});

test('the fetch handler serves the same routes', async () => {
  const served = a2aFetchHandler(echo, { card: testCard, logger: silent });
  try {
    const response = await served(
      new Request('http://agent.test/v0.3/v1/message:send', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: { messageId: 'm-fetch', role: 'ROLE_USER', content: [{ text: 'edge' }] } }),
      }),
    );
    expect(response.status).toBe(200);
    const { task } = (await response.json()) as { task: { id: string; status: { state: string } } };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const missing = await served(new Request('http://agent.test/v0.3/v1/tasks/no-such-task'));
    expect({ status: missing.status, body: await missing.json() }).toMatchObject({ status: 404, body: { code: -32001 } });
  } finally {
    await served.close();
  }
});
