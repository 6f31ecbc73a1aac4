// A2AClient03 over A2A 0.3's HTTP+JSON binding: against an agent served by the official JS SDK
// 0.3's own REST handler, which we did not write, and against a2a-express's. The binding is the
// card's or the one asked for; interceptors, credentials and retries see HTTP+JSON calls as they
// see JSON-RPC ones.
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { a2aRouter, apiKey, artifact, completed, reply, working, type TaskHandler } from 'a2a-express';
import { pino } from 'pino';
import { droppingProxy, serverPool } from 'a2a-testing';
import type { Message } from 'a2a-types/v0.3';
import { A2AClient03, JsonRpcError, type Interceptor, type StreamEvent03 } from '../src/index.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

const user = (text: string, extra: Partial<Message> = {}): Message => ({
  kind: 'message',
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});
const textOf = (events: StreamEvent03[]) =>
  events
    .flatMap((e) => (e.event.kind === 'artifact-update' ? e.event.artifact.parts : []))
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('');
async function collect(stream: AsyncIterable<StreamEvent03>): Promise<StreamEvent03[]> {
  const events: StreamEvent03[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/**
 * An agent served by the SDK's REST handler alone, at `/rest`: its card names HTTP+JSON as its
 * preferred transport. Each message is answered with a task, one artifact, and a final status.
 */
async function sdkRestAgent(): Promise<string> {
  const card = {
    name: 'SDK REST agent',
    description: 'built with @a2a-js/sdk',
    url: 'http://127.0.0.1/rest',
    preferredTransport: 'HTTP+JSON',
    version: '1.0.0',
    protocolVersion: '0.3.0',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const executor = {
    async execute(
      ctx: { taskId: string; contextId: string; userMessage: Message },
      bus: { publish(event: unknown): void; finished(): void },
    ) {
      const { taskId, contextId, userMessage } = ctx;
      const text = userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [userMessage] });
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: { artifactId: 'a1', parts: [{ kind: 'text', text }] },
        lastChunk: true,
      });
      bus.publish({ kind: 'status-update', taskId, contextId, status: { state: 'completed' }, final: true });
      bus.finished();
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(card as never, new InMemoryTaskStore(), executor as never);
  const app = express();
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const server = await serve(app);
  card.url = `${server.url}/rest`;
  return server.url;
}

describe('A2AClient03 against the official SDK REST server', () => {
  let url: string;
  beforeAll(async () => {
    url = await sdkRestAgent();
  });

  test('the card prefers HTTP+JSON: send, get, stream; errors by their 0.3 codes', async () => {
    const seen: string[] = [];
    const client = new A2AClient03(url, { interceptors: [{ before: (call) => void seen.push(`${call.binding} ${call.httpMethod}`) }] });
    expect(await client.agentInterface()).toEqual({ binding: 'HTTP+JSON', url: `${url}/rest` });
    const task = await client.sendMessage({ message: user('over rest') });
    if (task.kind !== 'task') throw new Error('expected a task');
    expect(task).toMatchObject({
      status: { state: 'completed' },
      artifacts: [{ artifactId: 'a1', parts: [{ kind: 'text', text: 'over rest' }] }],
    });
    expect(await client.getTask({ id: task.id })).toMatchObject({ kind: 'task', id: task.id, status: { state: 'completed' } });
    const events = await collect(client.streamMessage({ message: user('streamed') }));
    expect(textOf(events)).toBe('streamed');
    expect(events.at(-1)!.event).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    await expect(client.cancelTask({ id: task.id })).rejects.toMatchObject({ code: -32002 });
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toMatchObject({ code: -32001 });
    expect(seen).toContain('HTTP+JSON POST');
    expect(seen).toContain('HTTP+JSON GET');
  });

  test('push configs: set (the body the SDK server reads), get, list, delete', async () => {
    const client = new A2AClient03(url);
    const task = await client.sendMessage({ message: user('hooked') });
    if (task.kind !== 'task') throw new Error('expected a task');
    const config = { id: 'hook-1', url: 'http://127.0.0.1:9/hook', token: 't' };
    expect(await client.setPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config })).toMatchObject({
      taskId: task.id,
      pushNotificationConfig: config,
    });
    expect(await client.getPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' })).toMatchObject({
      pushNotificationConfig: { id: 'hook-1', url: config.url },
    });
    expect(await client.listPushNotificationConfigs({ id: task.id })).toEqual([
      expect.objectContaining({ taskId: task.id, pushNotificationConfig: expect.objectContaining({ id: 'hook-1' }) }),
    ]);
    await client.deletePushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' });
    expect(await client.listPushNotificationConfigs({ id: task.id })).toEqual([]);
  });
});

describe('A2AClient03 against a2a-express over HTTP+JSON', () => {
  let held: { promise: Promise<void>; open: () => void };
  const echo: TaskHandler = async function* (ctx) {
    const text = ctx.message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (text === 'reply') return yield reply('hello');
    yield working();
    if (text === 'wait') await held.promise;
    yield artifact(text.slice(0, 2), { name: 'echo', lastChunk: false });
    yield artifact(text.slice(2), { append: true, lastChunk: true });
    yield completed('done');
  };
  const gate = () => {
    let open!: () => void;
    held = { promise: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
  };
  let base: string;
  let failNextGet = false;
  beforeAll(async () => {
    gate();
    const app = express();
    // One 503 for a read, which the client's retries ask again.
    app.use((req, res, next) => {
      if (failNextGet && req.method === 'GET' && req.path.startsWith('/v0.3/v1/tasks/')) {
        failNextGet = false;
        res.status(503).json({ code: -32603, message: 'busy' });
      } else next();
    });
    const logger = pino({ level: 'silent' });
    app.use(a2aRouter(echo, { card: { name: 'Echo', version: '1.0.0' }, logger, pushNotifications: { allowlist: ['127.0.0.1'] } }));
    const secured = express();
    secured.use(
      a2aRouter(echo, {
        card: { name: 'Echo', version: '1.0.0' },
        logger,
        auth: { strategies: [apiKey({ keys: { 'the-key': 'alice' } })] },
      }),
    );
    [base] = await Promise.all([serve(app).then((s) => s.url)]);
    securedUrl = (await serve(secured)).url;
  });
  afterAll(() => held.open());
  let securedUrl: string;

  test("JSON-RPC stays the default (the card prefers it); preferredBinding HTTP+JSON picks the card's other interface", async () => {
    expect(await new A2AClient03(base).agentInterface()).toEqual({ binding: 'JSONRPC', url: `${base}/v0.3` });
    expect(await new A2AClient03(base, { preferredBinding: 'HTTP+JSON' }).agentInterface()).toEqual({
      binding: 'HTTP+JSON',
      url: `${base}/v0.3`,
    });
  });

  test('send, get, cancel, a reply; retries ask a read again after a 503', async () => {
    const calls: string[] = [];
    const interceptor: Interceptor = { before: (call) => void calls.push(`${call.httpMethod} ${new URL(call.url).pathname}`) };
    const client = new A2AClient03(base, { preferredBinding: 'HTTP+JSON', interceptors: [interceptor], retry: { backoffMs: 1 } });
    const task = await client.sendMessage({ message: user('hello') });
    if (task.kind !== 'task') throw new Error('expected a task');
    expect(task).toMatchObject({ status: { state: 'completed' }, artifacts: [{ name: 'echo', parts: [{ text: 'he' }, { text: 'llo' }] }] });
    failNextGet = true;
    const got = await client.getTask({ id: task.id, historyLength: 1 });
    expect(failNextGet).toBe(false);
    expect(got.history).toHaveLength(1);
    expect(await client.sendMessage({ message: user('reply') })).toMatchObject({
      kind: 'message',
      role: 'agent',
      parts: [{ text: 'hello' }],
    });

    gate();
    const running = await client.sendMessage({ message: user('wait'), configuration: { blocking: false } });
    if (running.kind !== 'task') throw new Error('expected a task');
    expect(running.status.state).toBe('working');
    expect((await client.cancelTask({ id: running.id })).status.state).toBe('canceled');
    const again = await client.cancelTask({ id: running.id }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(JsonRpcError);
    expect(again).toMatchObject({ code: -32002 });
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toMatchObject({ code: -32001 });
    held.open();
    expect(calls).toContain(`POST /v0.3/v1/message:send`);
    expect(calls).toContain(`GET /v0.3/v1/tasks/${task.id}`);
    expect(calls).toContain(`POST /v0.3/v1/tasks/${running.id}:cancel`);
  });

  test('stream, then resubscribe from a Last-Event-ID: the events missed, nothing twice', async () => {
    const client = new A2AClient03(base, { preferredBinding: 'HTTP+JSON' });
    const events = await collect(client.streamMessage({ message: user('abcdef') }));
    expect(events.map((e) => e.event.kind)).toEqual(['task', 'status-update', 'artifact-update', 'artifact-update', 'status-update']);
    expect(textOf(events)).toBe('abcdef');

    gate();
    const stream = client.streamMessage({ message: user('wait') });
    const first = (await stream.next()).value as StreamEvent03;
    await stream.return(undefined);
    if (first.event.kind !== 'task') throw new Error('expected the task first');
    const resumed = client.resubscribe({ id: first.event.id }, { lastEventId: first.id });
    const next = await resumed.next();
    held.open();
    const rest = [next.value as StreamEvent03, ...(await collect({ [Symbol.asyncIterator]: () => resumed }))];
    expect(Number(rest[0]!.id)).toBe(Number(first.id) + 1);
    expect(textOf(rest)).toBe('wait');
    expect(rest.at(-1)!.event).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  test('a dropped stream is resumed on its task with :subscribe and Last-Event-ID: nothing missed, nothing twice', async () => {
    const proxy = await droppingProxy(base);
    const client = new A2AClient03(proxy.url, { preferredBinding: 'HTTP+JSON' });
    gate();
    const events: StreamEvent03[] = [];
    for await (const event of client.streamMessage({ message: user('wait') })) {
      events.push(event);
      if (events.length === 2) {
        proxy.dropAll();
        held.open();
      }
    }
    await proxy.close();
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => Number(events[0]!.id) + i));
    expect(textOf(events)).toBe('wait');
    expect(events.at(-1)!.event).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  test("push configs over HTTP+JSON: set, get (the task's own without an id), list, delete", async () => {
    const client = new A2AClient03(base, { preferredBinding: 'HTTP+JSON' });
    const task = await client.sendMessage({ message: user('hooked') });
    if (task.kind !== 'task') throw new Error('expected a task');
    await client.setPushNotificationConfig({ taskId: task.id, pushNotificationConfig: { url: 'http://127.0.0.1:9/own' } });
    await client.setPushNotificationConfig({
      taskId: task.id,
      pushNotificationConfig: { id: 'h2', url: 'http://127.0.0.1:9/h2', token: 'tok' },
    });
    expect(await client.getPushNotificationConfig({ id: task.id })).toMatchObject({
      pushNotificationConfig: { url: 'http://127.0.0.1:9/own' },
    });
    expect(await client.getPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'h2' })).toMatchObject({
      taskId: task.id,
      pushNotificationConfig: { id: 'h2', url: 'http://127.0.0.1:9/h2' },
    });
    expect((await client.listPushNotificationConfigs({ id: task.id })).map((c) => c.pushNotificationConfig.id).sort()).toEqual([
      task.id,
      'h2',
    ]);
    await client.deletePushNotificationConfig({ id: task.id, pushNotificationConfigId: 'h2' });
    expect((await client.listPushNotificationConfigs({ id: task.id })).map((c) => c.pushNotificationConfig.id)).toEqual([task.id]);
  });

  test('credentials: refused without (401, the 0.3 error), let in with the key the card names', async () => {
    const refused = await new A2AClient03(securedUrl, { preferredBinding: 'HTTP+JSON' })
      .sendMessage({ message: user('x') })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect(refused).toMatchObject({ code: -32000 });
    const client = new A2AClient03(securedUrl, { preferredBinding: 'HTTP+JSON', credentials: { apikey: 'the-key' } });
    expect(await client.sendMessage({ message: user('in') })).toMatchObject({ kind: 'task', status: { state: 'completed' } });
  });
});
