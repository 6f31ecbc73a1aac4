// The findings of a hostile probe of both endpoints (issue #25), each reproduced through the
// router: a stream that could not send an event, parts whose keys meant different things to the
// two versions, content that was kept but not counted, answers that grew past what a task holds,
// and an authorization rule that 0.3 walked around. Both stores where a store is involved.
import express from 'express';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { collect, deleteKeys, openStream, redisUrl, requireRedis, rpc, serverPool, uniquePrefix } from 'a2a-testing';
import { apiKey, artifact, completed, inputRequired, textOf, working, type A2ARouterOptions, type TaskHandler } from '../src/index.js';
import { RedisTaskStore } from '../src/redis.js';
import { SseStream } from '../src/transports/sse.js';
import { InMemoryTaskStore, type TaskStore } from '../src/store/index.js';
import { createAgentCore } from '../src/agent-core.js';
import type { Dispatch } from '../src/transports/json-rpc.js';
import { createRpcEndpoint } from '../src/transports/http.js';
import { nodeExchange, nodeResponse } from '../src/edge/node.js';
import { appWith, eventually, expectValid03, silent, SubscriptionCountingStore, steppedChunks, testCard, userText } from './helpers.js';

const { serve, closeAll } = serverPool();
const stores: TaskStore[] = [];
const prefixes: string[] = [];
afterAll(async () => {
  await closeAll();
  await Promise.all(stores.map((s) => s.close()));
  for (const prefix of prefixes) await deleteKeys(redisUrl(), prefix);
});

const message03 = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  messageId: randomUUID(),
  role: 'user',
  parts,
  ...extra,
});

const signingKey = {
  ...(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) as Record<string, string>),
  kid: 'k',
};

/** Asks for more on every turn, so that one task can be continued without end. */
const askAgain: TaskHandler = async function* (ctx) {
  yield inputRequired(`got ${textOf(ctx.message).length} characters; more?`);
};

async function agent(handler: TaskHandler, options: Partial<A2ARouterOptions> = {}) {
  const { app, router } = appWith(handler, options);
  const server = await serve(app);
  return { url01: `${server.url}/`, url03: `${server.url}/v0.3`, router };
}

const storeFactories: [string, () => Promise<TaskStore>][] = [
  ['InMemoryTaskStore', async () => new InMemoryTaskStore()],
  [
    'RedisTaskStore',
    async () => {
      const prefix = uniquePrefix('hostile');
      prefixes.push(prefix);
      return new RedisTaskStore({ url: await requireRedis(redisUrl()), prefix });
    },
  ],
];

describe.each(storeFactories)('finding 1, a stream that cannot send an event, on the %s', (_name, makeStore) => {
  test('a 9.5 MB contextId is refused with -32602 before anything is kept; the agent goes on serving', async () => {
    const store = await makeStore();
    stores.push(store);
    const { url03 } = await agent(askAgain, { store });
    const huge = 'c'.repeat(9_500_000);
    const refused = await rpc(url03, 'message/send', { message: message03([{ kind: 'text', text: 'hi' }], { contextId: huge }) });
    expect(refused.error).toMatchObject({
      code: -32602,
      data: [{ path: '/message/contextId', keyword: 'maxLength', params: { limit: 1024 } }],
    });
    const stream = await openStream(url03, 'message/stream', { message: message03([{ kind: 'text', text: 'still here' }]) });
    const events = await collect(stream);
    expect(events.at(-1)?.message.result).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
  });

  test('an event larger than maxResponseBytes ends the stream with a -32603 that says so, and the stream lets go of the task', async () => {
    const store = await makeStore();
    stores.push(store);
    const prolix: TaskHandler = async function* () {
      yield working('about to say too much');
      yield artifact('y'.repeat(5_000));
      yield completed();
    };
    const { url01, url03 } = await agent(prolix, { store, maxResponseBytes: 2_000 });
    for (const [url, method, params] of [
      [url01, 'tasks/sendSubscribe', { id: randomUUID(), message: userText('go') }],
      [url03, 'message/stream', { message: message03([{ kind: 'text', text: 'go' }]) }],
    ] as const) {
      const events = await collect(await openStream(url, method, params));
      const last = events.at(-1)!.message;
      expect(last.error).toMatchObject({ code: -32603, data: { reason: expect.stringContaining('maxResponseBytes 2000') } });
      expect('result' in last).toBe(false);
      // The events before it went out as they were.
      expect(events.slice(0, -1).every((e) => e.message.result !== undefined)).toBe(true);
    }
    // A unary answer past the limit is the same error, not a half-written body.
    const task = await rpc(url01, 'tasks/send', { id: randomUUID(), message: userText('go') });
    expect(task.error).toMatchObject({ code: -32603, data: { reason: expect.stringContaining('maxResponseBytes') } });
  });
});

describe('finding 1: every way a stream can fail ends it cleanly and releases its feed', () => {
  test('too large: the subscription is released and later events of the task write nothing', async () => {
    const store = new SubscriptionCountingStore();
    const hold = { release: () => {} };
    const handler: TaskHandler = async function* () {
      yield artifact('z'.repeat(3_000));
      await new Promise<void>((resolve) => (hold.release = resolve));
      yield artifact('after');
      yield completed();
    };
    const { url01 } = await agent(handler, { store, maxResponseBytes: 1_000 });
    const id = randomUUID();
    const events = await collect(await openStream(url01, 'tasks/sendSubscribe', { id, message: userText('go') }));
    expect(events.at(-1)!.message.error).toMatchObject({ code: -32603 });
    await eventually(async () => (store.open === 0 ? true : undefined));
    hold.release();
    await eventually(async () => ((await store.get(id))?.task.status.state === 'completed' ? true : undefined));
  });

  test('a response ended by someone else while events still come: no write after the end, no crash, the feed released', async () => {
    const store = new SubscriptionCountingStore();
    let captured: express.Response | undefined;
    const steps = steppedChunks(5);
    const { router } = appWith(steps.handler, { store });
    const app = express();
    app.post('/', (_req, res, next) => {
      captured = res;
      next();
    });
    app.use(router);
    const { url } = await serve(app);
    const stream = await openStream(url, 'tasks/sendSubscribe', { id: randomUUID(), message: userText('go') });
    const first = await collect(stream, { max: 2 });
    expect(first).toHaveLength(2);
    // Ended, and in the same tick the handler goes on: its next event comes before the response's
    // 'close' does (as when the endpoint ended a stream that had failed).
    captured!.end();
    steps.next();
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 20));
      steps.next();
    }
    await eventually(async () => (store.open === 0 ? true : undefined));
    expect((await rpc(`${url}/`, 'tasks/get', { id: 'unknown' })).error).toMatchObject({ code: -32001 });
  });

  test('serialization error: an event JSON cannot carry ends the stream with a -32603 event; the feed is released', async () => {
    const store = new SubscriptionCountingStore();
    const core = createAgentCore(async () => completed('done'), { card: testCard, store, logger: silent });
    // The stream's events rendered as a value JSON.stringify refuses (a BigInt), as a rendering
    // bug would make them.
    const dispatch: Dispatch = async (body, context) => {
      const answer = await core.dispatch(body, context);
      return answer.kind === 'stream' ? { ...answer, events: answer.events.renderedAs(() => ({ n: 10n })) } : answer;
    };
    const endpoint = createRpcEndpoint({
      ...core.options,
      entry: core.endpoints[0]!.entry,
      dispatch,
      logger: silent,
      protocol: '0.1.0',
      route: '/',
      wireError: (error) => error,
    });
    const { url } = await serve(
      express().post('/', (req, res) => {
        const { request, response } = nodeExchange(req, res, '/', {
          mountUrl: () => url,
          clientAddress: (request) => request.socket.remoteAddress,
        });
        endpoint(request, response);
      }),
    );
    const events = await collect(await openStream(url, 'tasks/sendSubscribe', { id: randomUUID(), message: userText('go') }));
    expect(events).toHaveLength(1);
    expect(events[0]!.message.error).toMatchObject({ code: -32603, data: { reason: 'the answer could not be serialized' } });
    await eventually(async () => (store.open === 0 ? true : undefined));
    await core.close();
  });

  test('SseStream: a response ended behind its back takes no more writes (one would be an error event, fatal unheard)', async () => {
    const errors: unknown[] = [];
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const { url } = await serve((_req, res) => {
      const stream = new SseStream(nodeResponse(res), { heartbeatMs: 60_000, maxQueuedBytes: 1_000_000, eventIds: false });
      stream.open();
      stream.send(1, '"first"');
      setTimeout(() => {
        res.on('error', (error) => errors.push(error));
        res.end();
        // An event of 64 KiB or more is written at once, before the response's 'close' comes.
        stream.send(2, JSON.stringify('s'.repeat(70_000)));
        setTimeout(finished, 50);
      }, 20);
    });
    const body = await (await fetch(url)).text();
    await done;
    expect(body).toBe('data: "first"\n\n');
    expect(errors).toEqual([]);
  });

  test('socket gone: a client that drops mid-stream releases its feed; the task runs to its end', async () => {
    const store = new SubscriptionCountingStore();
    const steps = steppedChunks(3);
    const { url01 } = await agent(steps.handler, { store });
    const id = randomUUID();
    const stream = await openStream(url01, 'tasks/sendSubscribe', { id, message: userText('go') });
    await collect(stream, { max: 1 });
    stream.abort();
    await eventually(async () => (store.open === 0 ? true : undefined));
    for (let i = 0; i < 3; i++) {
      steps.next();
      await new Promise((r) => setTimeout(r, 10));
    }
    await eventually(async () => ((await store.get(id))?.task.status.state === 'completed' ? true : undefined));
  });
});

describe('finding 2: a part is what its own version says it is', () => {
  test('a 0.3 part carrying `type` is -32602, never a -32603 or a part of another type', async () => {
    const { url03 } = await agent(askAgain);
    const crossed = await rpc(url03, 'message/send', { message: message03([{ kind: 'text', text: 'hi', type: 'file' }]) });
    expect(crossed.error).toMatchObject({ code: -32602, data: [{ path: '/message/parts/0/type' }] });
    const disguised = await rpc(url03, 'message/send', {
      message: message03([{ kind: 'file', file: { bytes: 'aGk=' }, type: 'text', text: 5 }]),
    });
    expect(disguised.error).toMatchObject({ code: -32602, data: [{ path: '/message/parts/0/type' }] });
  });

  test("the in-memory store's byte budget keeps evicting after hostile parts (it never becomes NaN)", async () => {
    const store = new InMemoryTaskStore({ maxBytes: 200_000 });
    const { url01, url03 } = await agent(async () => completed(), { store });
    await rpc(url03, 'message/send', { message: message03([{ kind: 'file', file: { bytes: 'aGk=' }, type: 'text', text: 5 }]) });
    await rpc(url01, 'tasks/send', {
      id: randomUUID(),
      message: { role: 'user', parts: [{ type: 'data', data: { n: Number.MAX_VALUE } }] },
    });
    for (let i = 0; i < 60; i++) {
      expect((await rpc(url01, 'tasks/send', { id: `big-${i}`, message: userText('b'.repeat(12_000)) })).result).toBeDefined();
    }
    expect(Number.isFinite(store.bytes)).toBe(true);
    expect(store.bytes).toBeLessThanOrEqual(200_000);
    expect(store.size).toBeLessThan(60);
  });

  test('a 0.1.0 part carrying `kind` is -32602; so are 0.1.0 message fields that 0.3 reads with another meaning', async () => {
    const { url01 } = await agent(askAgain);
    const send = (message: Record<string, unknown>) => rpc(url01, 'tasks/send', { id: 'task-a', message: { role: 'user', ...message } });
    const text = [{ type: 'text', text: 'hi' }];
    expect((await send({ parts: [{ type: 'text', text: 'hi', kind: 'data' }] })).error).toMatchObject({
      code: -32602,
      data: [{ path: '/message/parts/0/kind' }],
    });
    for (const [extra, path] of [
      [{ kind: 'task' }, '/message/kind'],
      [{ messageId: 5 }, '/message/messageId'],
      [{ taskId: 'another-task' }, '/message/taskId'],
      [{ referenceTaskIds: 5 }, '/message/referenceTaskIds'],
      [{ extensions: [1] }, '/message/extensions'],
      [{ messageId: 'm'.repeat(1_025) }, '/message/messageId'],
    ] as const) {
      expect((await send({ parts: text, ...extra })).error).toMatchObject({ code: -32602, data: [{ path }] });
    }
  });

  test('every 0.3 answer about a task fed every field 0.1.0 allows passes the published 0.3 schema', async () => {
    const echoParts: TaskHandler = async function* (ctx) {
      yield working({
        role: 'agent',
        parts: ctx.message.parts,
        messageId: 'agent-1',
        referenceTaskIds: ['r'],
        metadata: { m: 1 },
      } as never);
      yield artifact(ctx.message.parts);
      yield inputRequired('more?');
    };
    const { url01, url03 } = await agent(echoParts);
    const id = randomUUID();
    const sent = await rpc(url01, 'tasks/send', {
      id,
      sessionId: 'session-1',
      message: {
        role: 'user',
        kind: 'message',
        messageId: 'client-1',
        taskId: id,
        contextId: 'session-1',
        referenceTaskIds: ['x'],
        extensions: ['urn:e'],
        extra: { anything: [1, 'two', null] },
        metadata: { a: null },
        parts: [
          { type: 'text', text: 'hi', metadata: null, extra: 1 },
          { type: 'file', file: { name: null, mimeType: null, bytes: null, uri: 'https://files.example/a' } },
          { type: 'file', file: { name: 'ref-only' } },
          { type: 'data', data: [1, 2, 3] },
          { type: 'data', data: { nested: { deep: true } }, metadata: { k: 'v' } },
        ],
      },
    });
    expect(sent.error).toBeUndefined();
    const task = await rpc(url03, 'tasks/get', { id });
    expectValid03('Task', task.result);
    const list = await rpc(url03, 'tasks/get', { id, historyLength: 1 });
    expectValid03('Task', list.result);
  });

  test('a handler yielding a part with `kind` fails its task as an invalid update, never showing 0.3 clients another type', async () => {
    const crossed: TaskHandler = async function* () {
      yield artifact([{ type: 'text', text: 'x', kind: 'data' } as never]);
      yield completed();
    };
    const { url01, url03 } = await agent(crossed);
    const id = randomUUID();
    const task = await rpc(url01, 'tasks/send', { id, message: userText('go') });
    expect(task.result?.status.state).toBe('failed');
    expectValid03('Task', (await rpc(url03, 'tasks/get', { id })).result);
  });
});

/** The heap after a full collection. */
function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('finding 3: everything a client sends counts toward maxTaskBytes', () => {
  test('an 8 MB extra property, 25 times on one task: refused once the task is full; the heap stays within the bound (measured)', async () => {
    const store = new InMemoryTaskStore();
    const { url01 } = await agent(askAgain, { store });
    const before = heapAfterGc();
    const extra = 'e'.repeat(8_000_000);
    const outcomes: (number | 'ok')[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await rpc(url01, 'tasks/send', {
        id: 'bloat',
        message: { role: 'user', parts: [{ type: 'text', text: 'x' }], padding: extra },
      });
      outcomes.push(res.error ? res.error.code : 'ok');
    }
    const grown = heapAfterGc() - before;
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(2);
    expect(outcomes.slice(2).every((o) => o === -32602)).toBe(true);
    expect(store.bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
    // Two 8 MB strings kept, and the heap around them; before the fix, all 25 (200 MB) were kept.
    expect(grown).toBeLessThan(48 * 1024 * 1024);
  });

  test('an 8 MB messageId, a long session or context id: -32602 with the limit, for each version', async () => {
    const { url01, url03 } = await agent(askAgain, { pushNotifications: { allowlist: ['127.0.0.1'], signingKey } });
    const long = 'i'.repeat(8_000_000);
    const cases = [
      [url03, 'message/send', { message: message03([{ kind: 'text', text: 'x' }], { messageId: long }) }, '/message/messageId'],
      [url01, 'tasks/send', { id: 't', sessionId: long, message: userText('x') }, '/sessionId'],
      [url01, 'tasks/send', { id: long.slice(0, 2_000), message: userText('x') }, '/id'],
      [
        url03,
        'message/send',
        { message: message03([{ kind: 'text', text: 'x' }], { referenceTaskIds: ['ok', long] }) },
        '/message/referenceTaskIds/1',
      ],
      [url03, 'tasks/pushNotificationConfig/get', { id: 't', pushNotificationConfigId: long }, '/pushNotificationConfigId'],
    ] as const;
    for (const [url, method, params, path] of cases) {
      expect((await rpc(url, method, params)).error).toMatchObject({ code: -32602, data: [{ path, keyword: 'maxLength' }] });
    }
  });

  test('metadata and push configs count too: a task cannot be grown past maxTaskBytes through either', async () => {
    const { url01 } = await agent(askAgain, { maxTaskBytes: 50_000, pushNotifications: { allowlist: ['127.0.0.1'], signingKey } });
    const padded = { role: 'user', parts: [{ type: 'text', text: 'x' }], metadata: { note: 'm'.repeat(20_000) } };
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await rpc(url01, 'tasks/send', { id: 'meta', message: padded }));
    expect(results.map((r) => r.error?.code ?? 'ok')).toEqual(['ok', 'ok', -32602, -32602]);
    const config = { url: 'http://127.0.0.1:9/hook', token: 't'.repeat(60_000) };
    const set = await rpc(url01, 'tasks/pushNotification/set', { id: 'meta', pushNotificationConfig: config });
    expect(set.error).toMatchObject({ code: -32602, data: [{ keyword: 'maxTaskBytes' }] });
  });
});

describe('finding 4: a 0.3 answer stays within a small multiple of what its task holds', () => {
  test('many short messages under a long context id: the 0.3 tasks/get is at most about twice maxTaskBytes', async () => {
    const maxTaskBytes = 200_000;
    const { url01, url03 } = await agent(askAgain, { maxTaskBytes });
    const contextId = 'k'.repeat(1_024);
    const first = await rpc(url03, 'message/send', { message: message03([{ kind: 'text', text: 'a' }], { contextId }) });
    const id = first.result!.id;
    // The task fills up with the client's messages and the agent's answers; whichever crosses
    // maxTaskBytes first is refused (the client's, -32602) or fails the task (the agent's).
    let accepted = 1;
    for (let i = 0; i < 2_000; i++) {
      const res = await rpc(url03, 'message/send', { message: message03([{ kind: 'text', text: 'a' }], { taskId: id, contextId }) });
      if (res.error || res.result?.status.state === 'failed') break;
      accepted++;
    }
    expect(accepted).toBeLessThan(2_000);
    const answer03 = JSON.stringify((await rpc(url03, 'tasks/get', { id })).result);
    const answer01 = JSON.stringify((await rpc(url01, 'tasks/get', { id, historyLength: 10_000 })).result);
    expect(answer03.length).toBeLessThanOrEqual(2 * maxTaskBytes);
    expect(answer01.length).toBeLessThanOrEqual(2 * maxTaskBytes);
  });
});

describe('finding 5: an authorize rule that reads params holds on every version', () => {
  test('a rule refusing SendMessage with a push config refuses it over 0.1.0 and 0.3, and no webhook is set', async () => {
    const asked: unknown[] = [];
    const { url01, url03 } = await agent(askAgain, {
      auth: {
        strategies: [apiKey({ keys: { 'key-a': 'alice' } })],
        authorize: (request) => {
          asked.push({ operation: request.operation, method: request.origin.method, hasSent: request.origin.params !== undefined });
          return !(request.operation === 'SendMessage' && request.params.configuration?.taskPushNotificationConfig);
        },
      },
      pushNotifications: { allowlist: ['127.0.0.1'], signingKey },
    });
    const alice = { headers: { 'x-api-key': 'key-a' } };
    const hook = { url: 'http://127.0.0.1:9/hook' };
    const over01 = await rpc(url01, 'tasks/send', { id: 'p1', message: userText('x'), pushNotification: hook }, alice);
    expect(over01).toMatchObject({ httpStatus: 403, error: { code: -32008 } });
    const taskId = randomUUID();
    const over03 = await rpc(
      url03,
      'message/send',
      { message: message03([{ kind: 'text', text: 'x' }], { taskId }), configuration: { pushNotificationConfig: hook } },
      alice,
    );
    expect(over03).toMatchObject({ httpStatus: 403, error: { code: -32008 } });
    // Nothing was started, so nothing can carry the webhook.
    expect((await rpc(url03, 'tasks/pushNotificationConfig/list', { id: taskId }, alice)).error).toMatchObject({ code: -32001 });
    // Without a push config the same rule lets both through.
    expect((await rpc(url03, 'message/send', { message: message03([{ kind: 'text', text: 'x' }]) }, alice)).result).toBeDefined();
    expect((await rpc(url01, 'tasks/send', { id: 'p2', message: userText('x') }, alice)).result).toBeDefined();
    expect(asked).toEqual([
      { operation: 'SendMessage', method: 'tasks/send', hasSent: true },
      { operation: 'SendMessage', method: 'message/send', hasSent: true },
      { operation: 'ListTaskPushNotificationConfigs', method: 'tasks/pushNotificationConfig/list', hasSent: true },
      { operation: 'SendMessage', method: 'message/send', hasSent: true },
      { operation: 'SendMessage', method: 'tasks/send', hasSent: true },
    ]);
  });

  test('the hook sees a 0.3 call as the 1.0 operation it performs: its message and context, its push config', async () => {
    const seen: { operation: string; taskId: string | undefined; params: unknown }[] = [];
    const { url03 } = await agent(askAgain, {
      auth: {
        strategies: [apiKey({ keys: { 'key-a': 'alice' } })],
        authorize: ({ operation, taskId, params }) => {
          seen.push({ operation, taskId, params });
          return true;
        },
      },
      pushNotifications: { allowlist: ['127.0.0.1'], signingKey },
    });
    const alice = { headers: { 'x-api-key': 'key-a' } };
    const sent = await rpc(url03, 'message/send', { message: message03([{ kind: 'text', text: 'x' }], { contextId: 'ctx' }) }, alice);
    const taskId = sent.result!.id;
    // A new task has no id before it is made.
    expect(seen[0]).toMatchObject({
      operation: 'SendMessage',
      taskId: undefined,
      params: { message: { contextId: 'ctx', role: 'user', parts: [{ type: 'text', text: 'x' }] } },
    });
    await rpc(
      url03,
      'tasks/pushNotificationConfig/set',
      { taskId, pushNotificationConfig: { id: 'c1', url: 'http://127.0.0.1:9/h' } },
      alice,
    );
    expect(seen[1]).toMatchObject({
      operation: 'CreateTaskPushNotificationConfig',
      taskId,
      params: { taskId, config: { id: 'c1', url: 'http://127.0.0.1:9/h', protocol: '0.3' } },
    });
    await rpc(url03, 'tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'c1' }, alice);
    expect(seen[2]).toEqual({ operation: 'DeleteTaskPushNotificationConfig', taskId, params: { taskId, id: 'c1' } });
  });
});
