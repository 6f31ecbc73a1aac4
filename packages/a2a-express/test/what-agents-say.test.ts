// What a 0.3 (and 1.0) agent says every day, and 0.1.0 has no words for: a message as the whole
// answer, a rejected task, a task that needs authentication, several webhooks per task. Each is
// shown over 0.3 as 0.3 says it, and over 0.1.0 as the README's table maps it; every answer and
// event is checked against its version's published schema.
import express from 'express';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { collect, openStream, rpc, serverPool, type RpcResponse } from 'a2a-testing';
import { createPushNotificationVerifier } from 'a2a-push-receiver';
import { publishedSchemaValidator, type PushNotificationPayload, type Task } from 'a2a-types';
import type { Message as Message03, Task as Task03 } from 'a2a-types/v0.3';
import {
  apiKey,
  authRequired,
  completed,
  rejected,
  reply,
  textOf,
  working,
  type A2ARouterOptions,
  type TaskContext,
  type TaskHandler,
} from '../src/index.js';
import { MAX_PUSH_CONFIGS_PER_TASK } from '../src/model/task.js';
import { InMemoryTaskStore, type TaskRecord } from '../src/store/index.js';
import { appWith, eventually, expectValid03, message03, userText } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

function expectValid01(definition: string, value: unknown): void {
  const validate = publishedSchemaValidator(definition);
  if (!validate(value)) throw new Error(`not a valid 0.1.0 ${definition}: ${JSON.stringify(validate.issues)}\n${JSON.stringify(value)}`);
}

const withoutStatus = <T extends { httpStatus: number }>({ httpStatus: _status, ...body }: T) => body;

/** What the handler saw of each turn's context, by the text that started it. */
const seen = new Map<string, Pick<TaskContext, 'contextId' | 'sessionId'> & { taskContextId: string; taskSessionId: string }>();

/** Does what the message's text says: "reply", "working then reply", "reject", "auth", anything else completes. */
const sayer: TaskHandler = async function* (ctx) {
  const text = textOf(ctx.message);
  seen.set(text, {
    contextId: ctx.contextId,
    sessionId: ctx.sessionId,
    taskContextId: ctx.task.contextId,
    taskSessionId: ctx.task.sessionId,
  });
  if (text === 'reply') return yield reply('just a message', { mood: 'chatty' });
  if (text === 'working then reply') {
    yield working('thinking');
    return yield reply('a message after all');
  }
  if (text === 'reject') return yield rejected('I do not do that');
  if (text === 'auth') return yield authRequired('sign in at https://example.test/login, then send again');
  yield completed(`done: ${text}`);
};

async function agent(options: Partial<A2ARouterOptions> = {}) {
  const { app } = appWith(sayer, options);
  const server = await serve(app);
  return { base: server.url, url01: `${server.url}/`, url03: `${server.url}/v0.3` };
}

async function send03<R = Task03 | Message03>(url03: string, message: object): Promise<RpcResponse<R>> {
  const response = await rpc<R>(url03, 'message/send', { message });
  expectValid03('SendMessageResponse', withoutStatus(response));
  return response;
}

async function send01(url01: string, id: string, text: string, extra: object = {}): Promise<Task> {
  const response = await rpc<Task>(url01, 'tasks/send', { id, message: userText(text), ...extra });
  expectValid01('SendTaskResponse', withoutStatus(response));
  if (!response.result) throw new Error(`tasks/send: ${JSON.stringify(response.error)}`);
  return response.result;
}

async function stream03(url03: string, message: object) {
  const events = await collect(await openStream(url03, 'message/stream', { message }));
  for (const { message: event } of events) expectValid03('SendStreamingMessageResponse', event);
  return events.map((e) => e.message.result as unknown as { kind: string } & Record<string, unknown>);
}

async function stream01(url01: string, id: string, text: string) {
  const events = await collect(await openStream(url01, 'tasks/sendSubscribe', { id, message: userText(text) }));
  for (const { message: event } of events) expectValid01('SendTaskStreamingResponse', event);
  return events.map((e) => e.message.result!);
}

describe('a message as the whole answer (reply)', () => {
  test('0.3 message/send answers with the Message alone: in the context, naming no task', async () => {
    const { url03 } = await agent();
    const { result } = await send03<Message03>(url03, message03('reply', { contextId: 'ctx-chat' }));
    expect(result).toMatchObject({
      kind: 'message',
      role: 'agent',
      contextId: 'ctx-chat',
      parts: [{ kind: 'text', text: 'just a message' }],
    });
    expect(result).not.toHaveProperty('taskId');
    expect(typeof result!.messageId).toBe('string');
  });

  test('0.3 message/stream whose first update is the reply sends the Message as its one event', async () => {
    const { url03 } = await agent();
    const events = await stream03(url03, message03('reply'));
    expect(events).toEqual([expect.objectContaining({ kind: 'message', parts: [{ kind: 'text', text: 'just a message' }] })]);
  });

  test('a reply after other updates completes the task like any final message: the client has been shown the task', async () => {
    const { url03 } = await agent();
    const events = await stream03(url03, message03('working then reply'));
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update', 'status-update']);
    expect(events[2]).toMatchObject({
      final: true,
      status: { state: 'completed', message: { parts: [{ kind: 'text', text: 'a message after all' }] } },
    });
    // message/send answers the same turn the same way: with the Task, whose work it shows.
    const { result } = await send03<Task03>(url03, message03('working then reply'));
    expect(result).toMatchObject({
      kind: 'task',
      status: { state: 'completed', message: { parts: [{ kind: 'text', text: 'a message after all' }] } },
    });
  });

  test('0.1.0 sees the task completed with the message, in tasks/send, the stream and tasks/get', async () => {
    const { url01 } = await agent();
    const id = randomUUID();
    const task = await send01(url01, id, 'reply');
    expect(task.status).toMatchObject({
      state: 'completed',
      message: { role: 'agent', parts: [{ type: 'text', text: 'just a message' }] },
    });
    const events = await stream01(url01, randomUUID(), 'reply');
    expect(events.map((e) => ('status' in e ? e.status.state : 'artifact'))).toEqual(['working', 'completed']);
    expect(events[1]).toEqual(expect.not.objectContaining({ reply: expect.anything() }));
    expect(events[1]).toMatchObject({ final: true, metadata: { mood: 'chatty' } });
    const got = await rpc<Task>(url01, 'tasks/get', { id, historyLength: 2 });
    expectValid01('GetTaskResponse', withoutStatus(got));
    expect(got.result!.history!.map((m) => textOf(m))).toEqual(['reply', 'just a message']);
  });
});

describe('rejected', () => {
  test('0.3 says rejected; the task takes no more messages', async () => {
    const { url03 } = await agent();
    const { result: task } = await send03<Task03>(url03, message03('reject'));
    expect(task!.status).toMatchObject({ state: 'rejected', message: { parts: [{ kind: 'text', text: 'I do not do that' }] } });
    const again = await rpc(url03, 'message/send', { message: message03('please', { taskId: task!.id }) });
    expect(again.error).toMatchObject({ code: -32009 });
    const events = await stream03(url03, message03('reject'));
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'rejected' } });
    expect((await rpc(url03, 'tasks/cancel', { id: task!.id })).error).toMatchObject({ code: -32002 });
  });

  test('0.1.0 sees failed, with the reason as the status message, in answers and streams', async () => {
    const { url01, url03 } = await agent();
    const id = randomUUID();
    const task = await send01(url01, id, 'reject');
    expect(task.status).toMatchObject({ state: 'failed', message: { parts: [{ type: 'text', text: 'I do not do that' }] } });
    const got = await rpc<Task>(url01, 'tasks/get', { id });
    expect(got.result!.status.state).toBe('failed');
    const events = await stream01(url01, randomUUID(), 'reject');
    expect(events.at(-1)).toMatchObject({ final: true, status: { state: 'failed' } });
    // The same task, read over 0.3, is what it is.
    expect((await rpc<Task03>(url03, 'tasks/get', { id })).result!.status.state).toBe('rejected');
  });
});

describe('auth-required', () => {
  test('0.3 says auth-required and ends the turn; the next message continues the task', async () => {
    const { url03 } = await agent();
    const { result: task } = await send03<Task03>(url03, message03('auth'));
    expect(task!.status.state).toBe('auth-required');
    const { result: next } = await send03<Task03>(url03, message03('signed in', { taskId: task!.id }));
    expect(next).toMatchObject({ id: task!.id, status: { state: 'completed' } });
    const events = await stream03(url03, message03('auth'));
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'auth-required' } });
  });

  test('0.1.0 sees input-required, and continues the task the same way', async () => {
    const { url01 } = await agent();
    const id = randomUUID();
    const task = await send01(url01, id, 'auth');
    expect(task.status).toMatchObject({ state: 'input-required', message: { parts: [{ type: 'text' }] } });
    expect((await send01(url01, id, 'signed in')).status.state).toBe('completed');
  });
});

test('ctx.contextId is the 0.3 contextId and the 0.1.0 sessionId; ctx.sessionId and ctx.task say the same', async () => {
  const { url01, url03 } = await agent();
  await send03(url03, message03('context over 0.3', { contextId: 'ctx-03' }));
  expect(seen.get('context over 0.3')).toEqual({
    contextId: 'ctx-03',
    sessionId: 'ctx-03',
    taskContextId: 'ctx-03',
    taskSessionId: 'ctx-03',
  });
  await send01(url01, randomUUID(), 'context over 0.1.0', { sessionId: 'session-01' });
  expect(seen.get('context over 0.1.0')).toEqual({
    contextId: 'session-01',
    sessionId: 'session-01',
    taskContextId: 'session-01',
    taskSessionId: 'session-01',
  });
});

describe('several push configs per task over 0.3', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signingKey = { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'several-hooks' };

  /** Two webhooks on loopback, recording what each receives. */
  async function webhooks() {
    const received: Record<string, { headers: Record<string, string | string[] | undefined>; body: Buffer }[]> = { a: [], b: [] };
    const app = express();
    app.post('/hook/:name', express.raw({ type: () => true }), (req, res) => {
      received[req.params.name!]?.push({ headers: req.headers, body: req.body as Buffer });
      res.status(204).end();
    });
    const server = await serve(app);
    return { url: (name: string) => `${server.url}/hook/${name}`, received };
  }

  test('set with ids, get by id, list, delete; each webhook gets every notification, signed, with its own token', async () => {
    const hooks = await webhooks();
    const { base, url01, url03 } = await agent({ pushNotifications: { signingKey, allowlist: ['127.0.0.1'] } });
    const { result: task } = await send03<Task03>(url03, message03('auth'));
    const taskId = task!.id;
    const configA = { id: 'hook-a', url: hooks.url('a'), token: 'token-a' };
    const configB = { id: 'hook-b', url: hooks.url('b'), token: 'token-b' };
    for (const config of [configA, configB]) {
      const set = await rpc(url03, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: config });
      expectValid03('SetTaskPushNotificationConfigResponse', withoutStatus(set));
      expect(set.result).toEqual({ taskId, pushNotificationConfig: { ...config, token: '********' } });
    }
    const listed = await rpc<{ pushNotificationConfig: { id: string } }[]>(url03, 'tasks/pushNotificationConfig/list', { id: taskId });
    expectValid03('ListTaskPushNotificationConfigSuccessResponse', withoutStatus(listed));
    expect(listed.result!.map((c) => c.pushNotificationConfig.id)).toEqual(['hook-a', 'hook-b']);
    for (const config of [configA, configB]) {
      const got = await rpc(url03, 'tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: config.id });
      expect(got.result).toEqual({ taskId, pushNotificationConfig: { ...config, token: '********' } });
    }
    // Setting an id again replaces that config only.
    const movedB = { ...configB, token: 'token-b2' };
    await rpc(url03, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: movedB });
    expect((await rpc<unknown[]>(url03, 'tasks/pushNotificationConfig/list', { id: taskId })).result).toHaveLength(2);

    await send03(url03, message03('signed in', { taskId }));
    const verifier = createPushNotificationVerifier<Task03>({ jwksUrl: `${base}/.well-known/jwks.json`, algorithms: ['ES256'] });
    for (const [name, token] of [
      ['a', 'token-a'],
      ['b', 'token-b2'],
    ] as const) {
      const deliveries = await eventually(async () => (hooks.received[name]!.length >= 2 ? hooks.received[name] : undefined));
      const states = [];
      for (const delivery of deliveries!) {
        expect(delivery.headers['x-a2a-notification-token']).toBe(token);
        const { payload } = await verifier.verify({ headers: delivery.headers, body: delivery.body });
        expectValid03('Task', payload);
        states.push(payload.status.state);
      }
      expect(states).toEqual(['working', 'completed']);
    }

    // Deleted, hook-a hears nothing of the next turn; hook-b does.
    const deleted = await rpc(url03, 'tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'hook-a' });
    expect(deleted.result).toBeNull();
    expect((await rpc(url03, 'tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: 'hook-a' })).error).toMatchObject({
      code: -32001,
    });
    await send03(url03, message03('once more', { taskId }));
    await eventually(async () => (hooks.received.b!.length >= 4 ? true : undefined));
    expect(hooks.received.a).toHaveLength(2);

    // 0.1.0 sees one config: the one whose id is the task's, else the oldest (here hook-b).
    const got01 = await rpc(url01, 'tasks/pushNotification/get', { id: taskId });
    expectValid01('GetTaskPushNotificationResponse', withoutStatus(got01));
    expect(got01.result).toEqual({ id: taskId, pushNotificationConfig: { url: configB.url, token: '********' } });
    // Its set replaces that one (keeping its id), its null removes that one, never the others.
    await rpc(url03, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { id: 'hook-c', url: hooks.url('a') } });
    const set01 = await rpc(url01, 'tasks/pushNotification/set', { id: taskId, pushNotificationConfig: { url: hooks.url('a') } });
    expect(set01.result).toEqual({ id: taskId, pushNotificationConfig: { url: hooks.url('a') } });
    expect((await rpc(url01, 'tasks/pushNotification/get', { id: taskId })).result).toEqual(set01.result);
    const all = await rpc<{ pushNotificationConfig: { id: string; url: string } }[]>(url03, 'tasks/pushNotificationConfig/list', {
      id: taskId,
    });
    expect(all.result!.map((c) => [c.pushNotificationConfig.id, c.pushNotificationConfig.url])).toEqual([
      ['hook-b', hooks.url('a')],
      ['hook-c', hooks.url('a')],
    ]);
    expect((await rpc(url01, 'tasks/pushNotification/set', { id: taskId, pushNotificationConfig: null })).result).toBeNull();
    const left = await rpc<{ pushNotificationConfig: { id: string } }[]>(url03, 'tasks/pushNotificationConfig/list', { id: taskId });
    expect(left.result!.map((c) => c.pushNotificationConfig.id)).toEqual(['hook-c']);
  });

  test('a 0.1.0 webhook and a 0.3 webhook on one task each get their own version body', async () => {
    const hooks = await webhooks();
    const { url01, url03 } = await agent({ pushNotifications: { signingKey, allowlist: ['127.0.0.1'] } });
    const id = randomUUID();
    // A 0.1.0 client cannot pick another version's body by adding a field to its config.
    await send01(url01, id, 'auth', { pushNotification: { url: hooks.url('a'), protocol: '0.3' } });
    await rpc(url03, 'tasks/pushNotificationConfig/set', { taskId: id, pushNotificationConfig: { id: 'hook-b', url: hooks.url('b') } });
    await send01(url01, id, 'go on');
    const a = await eventually(async () => (hooks.received.a!.length >= 4 ? hooks.received.a : undefined));
    const b = await eventually(async () => (hooks.received.b!.length >= 2 ? hooks.received.b : undefined));
    const bodyOf = (delivery: { body: Buffer }) => JSON.parse(delivery.body.toString()) as Record<string, unknown>;
    // The 0.1.0 body says input-required for auth-required, as every 0.1.0 answer does.
    expect(a!.map((d) => (bodyOf(d) as unknown as PushNotificationPayload).status.state)).toEqual([
      'working',
      'input-required',
      'working',
      'completed',
    ]);
    expect(b!.map((d) => bodyOf(d))).toEqual([
      expect.objectContaining({ kind: 'task', id, status: expect.objectContaining({ state: 'working' }) }),
      expect.objectContaining({ kind: 'task', id, status: expect.objectContaining({ state: 'completed' }) }),
    ]);
  });

  test("each config is its task owner's: another principal can set, read, list or delete none of them", async () => {
    const hooks = await webhooks();
    const { url03 } = await agent({
      pushNotifications: { signingKey, allowlist: ['127.0.0.1'] },
      auth: { strategies: [apiKey({ keys: { 'key-a': 'alice', 'key-b': 'bob' } })] },
    });
    const as = (key: string) => ({ headers: { 'x-api-key': key } });
    const { result: task } = await rpc<Task03>(url03, 'message/send', { message: message03('auth') }, as('key-a'));
    const taskId = task!.id;
    const config = { id: 'hook-a', url: hooks.url('a') };
    expect(
      (await rpc(url03, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: config }, as('key-a'))).error,
    ).toBeUndefined();
    const byBob = [
      ['tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { id: 'hook-b', url: hooks.url('b') } }],
      ['tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { ...config, url: hooks.url('b') } }],
      ['tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: 'hook-a' }],
      ['tasks/pushNotificationConfig/list', { id: taskId }],
      ['tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'hook-a' }],
    ] as const;
    for (const [method, params] of byBob) {
      expect([method, (await rpc(url03, method, params, as('key-b'))).error?.code]).toEqual([method, -32001]);
    }
    const listed = await rpc(url03, 'tasks/pushNotificationConfig/list', { id: taskId }, as('key-a'));
    expect(listed.result).toEqual([{ taskId, pushNotificationConfig: config }]);
  });

  test(`at most ${MAX_PUSH_CONFIGS_PER_TASK} configs per task; each is URL-checked on its own`, async () => {
    const hooks = await webhooks();
    const { url03 } = await agent({ pushNotifications: { signingKey, allowlist: ['127.0.0.1'] } });
    const { result: task } = await send03<Task03>(url03, message03('auth'));
    const set = (id: string, url = hooks.url('a')) =>
      rpc(url03, 'tasks/pushNotificationConfig/set', { taskId: task!.id, pushNotificationConfig: { id, url } });
    expect((await set('private', 'http://10.0.0.1/hook')).error).toMatchObject({ code: -32602, data: [{ keyword: 'webhookUrl' }] });
    for (let i = 0; i < MAX_PUSH_CONFIGS_PER_TASK; i++) expect((await set(`hook-${i}`)).error).toBeUndefined();
    expect((await set('one-too-many')).error).toMatchObject({
      code: -32602,
      data: [{ keyword: 'maxPushConfigs', params: { limit: MAX_PUSH_CONFIGS_PER_TASK } }],
    });
    // Replacing one that exists is still allowed.
    expect((await set('hook-0', hooks.url('b'))).error).toBeUndefined();
    const listed = await rpc<unknown[]>(url03, 'tasks/pushNotificationConfig/list', { id: task!.id });
    expect(listed.result).toHaveLength(MAX_PUSH_CONFIGS_PER_TASK);
  });
});

describe("records of the previous release in a store of the app's own", () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signingKey = { ...(privateKey.export({ format: 'jwk' }) as Record<string, string>), kid: 'legacy' };

  test('are read in the new model: the context is the session, the one push config still gets its notifications', async () => {
    const received: Buffer[] = [];
    const hookApp = express();
    hookApp.post('/hook', express.raw({ type: () => true }), (req, res) => {
      received.push(req.body as Buffer);
      res.status(204).end();
    });
    const hook = await serve(hookApp);
    const legacy = {
      task: { id: 'legacy', sessionId: 'session-old', status: { state: 'input-required', timestamp: '2026-11-01T00:00:00.000Z' } },
      history: [userText('hello')],
      lastEventId: 2,
      turn: 1,
      updatedAt: Date.now(),
      pushNotification: { url: `${hook.url}/hook` },
    } as unknown as TaskRecord;
    // A store of the app's own that holds a record of the previous release, and hands it back
    // as it is until the record's first change.
    const store = new (class extends InMemoryTaskStore {
      stillLegacy = true;
      override async get(taskId: string) {
        return taskId === 'legacy' && this.stillLegacy ? legacy : super.get(taskId);
      }
      override update(...[taskId, change]: Parameters<InMemoryTaskStore['update']>) {
        if (taskId !== 'legacy' || !this.stillLegacy) return super.update(taskId, change);
        this.stillLegacy = false;
        return super.update(taskId, () => change(legacy));
      }
    })();
    const { url01, url03 } = await agent({ store, pushNotifications: { signingKey, allowlist: ['127.0.0.1'] } });

    const got = await rpc<Task03>(url03, 'tasks/get', { id: 'legacy' });
    expectValid03('GetTaskResponse', withoutStatus(got));
    expect(got.result).toMatchObject({ id: 'legacy', contextId: 'session-old' });
    const listed = await rpc(url03, 'tasks/pushNotificationConfig/list', { id: 'legacy' });
    expect(listed.result).toEqual([{ taskId: 'legacy', pushNotificationConfig: { id: 'legacy', url: `${hook.url}/hook` } }]);
    const task = await send01(url01, 'legacy', 'go on');
    expect(task).toMatchObject({ id: 'legacy', sessionId: 'session-old', status: { state: 'completed' } });
    const bodies = await eventually(async () => (received.length >= 2 ? received : undefined));
    expect(bodies.map((b) => (JSON.parse(b.toString()) as PushNotificationPayload).status.state)).toEqual(['working', 'completed']);
    expect((await store.get('legacy'))!).toMatchObject({
      task: { contextId: 'session-old' },
      pushConfigs: [{ id: 'legacy', protocol: '0.1.0' }],
    });
  });

  test('deleting a config the task does not have succeeds and writes nothing', async () => {
    let updates = 0;
    const store = new (class extends InMemoryTaskStore {
      override update(...[taskId, change]: Parameters<InMemoryTaskStore['update']>) {
        return super.update(taskId, (current) => {
          const changed = change(current);
          updates++;
          return changed;
        });
      }
    })();
    const { url03 } = await agent({ store, pushNotifications: { signingKey, allowlist: ['127.0.0.1'] } });
    const { result: task } = await send03<Task03>(url03, message03('auth'));
    const before = updates;
    const deleted = await rpc(url03, 'tasks/pushNotificationConfig/delete', { id: task!.id, pushNotificationConfigId: 'none-such' });
    expect(deleted.result).toBeNull();
    expect(updates).toBe(before);
  });
});
