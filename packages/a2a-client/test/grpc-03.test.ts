// A2AClient03 over A2A 0.3's gRPC binding (`a2a.v1.A2AService`), against the official SDK's 0.3.14
// gRPC server and against a2a-express's, each started once for the file. Answers are held to the
// published 0.3 schema as over JSON-RPC, and errors carry the 0.3 JSON-RPC codes.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import * as sdk03 from '@a2a-js/sdk/server';
import * as sdk03grpc from '@a2a-js/sdk/server/grpc';
import express from 'express';
import { a2aRouter, apiKey, artifact, completed, textOf, working, type A2ARouter } from 'a2a-express';
import { pino } from 'pino';
import { serverPool } from 'a2a-testing';
import type { AgentCard, Message, StreamResult, Task } from 'a2a-types/v0.3';
import { A2AClient03, JsonRpcError, type Interceptor } from '../src/index.js';
import { grpcTransport } from '../src/grpc.js';

const message = (text: string): Message => ({ kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] });
const textsOf = (task: Task) => (task.artifacts ?? []).flatMap((a) => a.parts).map((p) => (p.kind === 'text' ? p.text : ''));

async function collect(events: AsyncIterable<{ event: StreamResult }>, onFirst?: () => void): Promise<StreamResult[]> {
  const seen: StreamResult[] = [];
  for await (const { event } of events) {
    seen.push(event);
    if (seen.length === 1) onFirst?.();
  }
  return seen;
}

/** The SDK's executor: echoes the text as an artifact; `wait` holds the turn until it is canceled. */
class EchoExecutor {
  private readonly held = new Map<string, () => void>();

  async execute(context: sdk03.RequestContext, bus: sdk03.ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
    const timestamp = () => new Date().toISOString();
    bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: timestamp() }, history: [userMessage] });
    bus.publish({ kind: 'status-update', taskId, contextId, final: false, status: { state: 'working', timestamp: timestamp() } });
    if (text === 'wait') {
      await new Promise<void>((resolve) => this.held.set(taskId, resolve));
      return;
    }
    bus.publish({
      kind: 'artifact-update',
      taskId,
      contextId,
      lastChunk: true,
      artifact: { artifactId: 'echo', name: 'echo', parts: [{ kind: 'text', text }] },
    });
    bus.publish({ kind: 'status-update', taskId, contextId, final: true, status: { state: 'completed', timestamp: timestamp() } });
    bus.finished();
  }

  async cancelTask(taskId: string, bus: sdk03.ExecutionEventBus): Promise<void> {
    this.held.get(taskId)?.();
    this.held.delete(taskId);
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId: '',
      final: true,
      status: { state: 'canceled', timestamp: new Date().toISOString() },
    });
    bus.finished();
  }
}

const { serve, closeAll } = serverPool();
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await closeAll();
});

/** The SDK 0.3.14 agent, served over gRPC alone: its card, as a client would have been handed it. */
async function sdkAgent(): Promise<AgentCard> {
  const card: AgentCard = {
    name: 'SDK 0.3.14 echo',
    description: 'The official SDK over gRPC',
    protocolVersion: '0.3.0',
    version: '1.0.0',
    url: 'http://127.0.0.1:9/unused',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const pushStore = new sdk03.InMemoryPushNotificationStore();
  const handler = new sdk03.DefaultRequestHandler(
    card as never,
    new sdk03.InMemoryTaskStore(),
    new EchoExecutor() as never,
    undefined,
    pushStore,
    new sdk03.DefaultPushNotificationSender(pushStore),
  );
  const server = new grpc.Server();
  server.addService(
    sdk03grpc.A2AService,
    sdk03grpc.grpcService({ requestHandler: handler, userBuilder: sdk03grpc.UserBuilder.noAuthentication }),
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  closers.push(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
  card.additionalInterfaces!.push({ url: `127.0.0.1:${port}`, transport: 'GRPC' });
  return card;
}

/** a2a-express's agent, over HTTP (its card) and gRPC; `wait` holds the turn until it is canceled. */
async function ourAgent(auth?: Parameters<typeof a2aRouter>[1]['auth']): Promise<{ url: string; router: A2ARouter }> {
  const router = a2aRouter(
    async function* (ctx) {
      const text = textOf(ctx.message);
      yield working('echoing');
      if (text === 'wait') {
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        return;
      }
      yield artifact(text, { name: 'echo', lastChunk: true });
      yield completed('done');
    },
    {
      card: { name: 'Echo', version: '1.0.0' },
      logger: pino({ level: 'silent' }),
      pushNotifications: { allowlist: ['127.0.0.1'] },
      ...(auth && { auth }),
    },
  );
  const url = (await serve(express().use(router)))!.url;
  const { serveGrpc } = await import('a2a-express/grpc');
  const grpcServer = await serveGrpc(router, { port: 0, agentUrl: url });
  closers.push(async () => {
    await grpcServer.close({ graceMs: 100 });
    await router.close();
  });
  return { url, router };
}

/** What each agent's tests share: a client over its gRPC interface. */
const agents: [string, () => Promise<A2AClient03>][] = [
  ['the SDK 0.3.14 gRPC server', async () => A2AClient03.fromCard(await sdkAgent(), { grpc: grpcTransport(), preferredBinding: 'GRPC' })],
  ['a2a-express', async () => new A2AClient03((await ourAgent()).url, { grpc: grpcTransport(), preferredBinding: 'GRPC' })],
];

describe.each(agents)('A2AClient03 over gRPC, against %s', (_name, connect) => {
  let client: A2AClient03;
  beforeAll(async () => {
    client = await connect();
    closers.push(() => client.close());
  });

  test('sends a message and gets the completed task; gets it again', async () => {
    const task = (await client.sendMessage({ message: message('hello') })) as Task;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    expect(textsOf(task).join('')).toBe('hello');
    expect((await client.getTask({ id: task.id })).status.state).toBe('completed');
  });

  test('streams a turn to its final event', async () => {
    const events = await collect(client.streamMessage({ message: message('hello') }));
    expect(events.some((event) => event.kind === 'artifact-update')).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  test('resubscribes to a running task and sees it canceled', async () => {
    const task = (await client.sendMessage({ message: message('wait'), configuration: { blocking: false } })) as Task;
    const events = await collect(client.resubscribe({ id: task.id }), () => void client.cancelTask({ id: task.id }));
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } });
  });

  test('sets, gets, lists and deletes a push config', async () => {
    const task = (await client.sendMessage({ message: message('hello') })) as Task;
    const pushNotificationConfig = { id: 'hook', url: 'http://127.0.0.1:9/hook', token: 'tok' };
    const set = await client.setPushNotificationConfig({ taskId: task.id, pushNotificationConfig });
    expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: 'hook', url: pushNotificationConfig.url } });
    const got = await client.getPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook' });
    expect(got.pushNotificationConfig.url).toBe(pushNotificationConfig.url);
    expect((await client.listPushNotificationConfigs({ id: task.id })).map((c) => c.pushNotificationConfig.id)).toEqual(['hook']);
    await client.deletePushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook' });
    expect(await client.listPushNotificationConfigs({ id: task.id })).toEqual([]);
  });

  test("an unknown task is 0.3's -32001, a finished task's cancel -32002", async () => {
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toMatchObject({ name: 'JsonRpcError', code: -32001 });
    const task = (await client.sendMessage({ message: message('hello') })) as Task;
    await expect(client.cancelTask({ id: task.id })).rejects.toMatchObject({ code: -32002 });
  });
});

describe('A2AClient03 over gRPC, as over JSON-RPC', () => {
  test("the card's credentials go as metadata, and interceptors see the call as GRPC", async () => {
    const { url } = await ourAgent({ strategies: [apiKey({ keys: { 'the-key': 'partner' } })] });
    const seen: string[] = [];
    const interceptor: Interceptor = { before: (call) => void seen.push(`${call.binding} ${call.method}`) };
    const client = new A2AClient03(url, {
      grpc: grpcTransport(),
      preferredBinding: 'GRPC',
      credentials: { apikey: 'the-key' },
      interceptors: [interceptor],
    });
    closers.push(() => client.close());
    await expect(client.sendMessage({ message: message('hello') })).resolves.toMatchObject({ status: { state: 'completed' } });
    expect(seen).toContain('GRPC message/send');

    const anonymous = new A2AClient03(url, { grpc: grpcTransport(), preferredBinding: 'GRPC' });
    closers.push(() => anonymous.close());
    const refused = await anonymous.sendMessage({ message: message('hello') }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(JsonRpcError);
    expect((refused as JsonRpcError).data).toEqual({ reason: 'UNAUTHENTICATED' });

    // With gRPC at hand but no preference, the card's own (JSON-RPC) is taken.
    const jsonRpc = new A2AClient03(url, { grpc: grpcTransport(), credentials: { apikey: 'the-key' }, interceptors: [interceptor] });
    closers.push(() => jsonRpc.close());
    await jsonRpc.getTask({ id: 'no-such-task' }).catch(() => undefined);
    expect(seen).toContain('JSONRPC tasks/get');
  });

  test('asking for gRPC without a gRPC transport is a TypeError that says what to give', () => {
    expect(() => new A2AClient03('http://127.0.0.1:9', { preferredBinding: 'GRPC' })).toThrow(/needs `grpc: grpcTransport\(\)`/);
  });
});
