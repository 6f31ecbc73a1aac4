// A2AClient10 against A2A 1.0 agents, over both bindings: the echo agent as its start script
// starts it, and agents made here for what the echo agent does not do (an extended card, answers
// that depart from the spec).
import express from 'express';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { a2aRouter, apiKey, artifact, completed } from 'a2a-express';
import { pino } from 'pino';
import { serverPool, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import type { Message, Part } from 'a2a-types/v1.0';
import {
  A2AClient10,
  InvalidResponseError,
  NetworkError,
  JsonRpcError,
  type Binding10,
  type Departure,
  type StreamEvent10,
} from '../src/index.js';
import { grpcTransport } from '../src/grpc.js';

const echoDir = join(dirname(fileURLToPath(import.meta.url)), '../../../apps/echo-agent');
const { serve, closeAll } = serverPool();
let echo: SpawnedAgent;
let slow: SpawnedAgent;
beforeAll(async () => {
  const env = { PORT: '0', A2A_PUSH_ALLOWLIST: '127.0.0.1' };
  [echo, slow] = await Promise.all([
    spawnAgent('node', ['dist/server.js'], { cwd: echoDir, env }),
    spawnAgent('node', ['dist/server.js'], { cwd: echoDir, env: { ...env, ECHO_DELAY_MS: '80' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([echo.stop(), slow.stop(), closeAll()]);
});

const user = (text: string, extra: Partial<Message> = {}): Message => ({
  messageId: crypto.randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});
const textOf = (parts: Part[]) => parts.map((p) => ('text' in p ? p.text : '')).join('');
const streamed = (events: StreamEvent10[]) =>
  events
    .flatMap((e) => ('artifactUpdate' in e.event ? e.event.artifactUpdate.artifact.parts : []))
    .map((p) => ('text' in p ? p.text : ''))
    .join('');
const kinds = (events: StreamEvent10[]) => events.map((e) => Object.keys(e.event)[0]);

describe.each<Binding10>(['JSONRPC', 'HTTP+JSON'])('A2AClient10 over %s against the echo agent', (binding) => {
  test('picks the interface from the card; send, get, list, cancel', async () => {
    const client = new A2AClient10(echo.url, { preferredBinding: binding });
    expect(await client.agentInterface()).toEqual({ url: `${echo.url}/v1`, protocolBinding: binding, protocolVersion: '1.0' });
    const contextId = crypto.randomUUID();
    const sent = await client.sendMessage({ message: user('hello there', { contextId }) });
    if (!('task' in sent)) throw new Error('expected a task');
    expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(sent.task.artifacts![0]!.parts)).toBe('hello there');
    expect((await client.getTask({ id: sent.task.id, historyLength: 1 })).history).toHaveLength(1);
    const asked = await client.sendMessage({ message: user(' ', { contextId }) });
    if (!('task' in asked)) throw new Error('expected a task');
    const listed = await client.listTasks({ contextId, pageSize: 1 });
    expect(listed).toMatchObject({ tasks: [{ id: asked.task.id }], pageSize: 1, totalSize: 2 });
    expect((await client.listTasks({ contextId, pageToken: listed.nextPageToken })).tasks.map((t) => t.id)).toEqual([sent.task.id]);
    expect((await client.cancelTask({ id: asked.task.id })).status.state).toBe('TASK_STATE_CANCELED');
    await expect(client.cancelTask({ id: asked.task.id })).rejects.toMatchObject({ code: -32002 });
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(JsonRpcError);
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toMatchObject({ code: -32001 });
  });

  test('streams a send, and subscribes to a running task: the task first, then its updates', async () => {
    const client = new A2AClient10(slow.url, { preferredBinding: binding });
    const events: StreamEvent10[] = [];
    for await (const event of client.streamMessage({ message: user('one two three four') })) events.push(event);
    expect(kinds(events)[0]).toBe('task');
    expect(streamed(events)).toBe('one two three four');
    expect(events.at(-1)!.event).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });

    const running = await client.sendMessage({ message: user('five six seven eight'), configuration: { returnImmediately: true } });
    if (!('task' in running)) throw new Error('expected a task');
    const followed: StreamEvent10[] = [];
    for await (const event of client.subscribe({ id: running.task.id })) followed.push(event);
    expect(kinds(followed)[0]).toBe('task');
    expect(followed.at(-1)!.event).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  test('push configs: create, get, list, delete', async () => {
    const client = new A2AClient10(echo.url, { preferredBinding: binding });
    const asked = await client.sendMessage({ message: user(' ') });
    if (!('task' in asked)) throw new Error('expected a task');
    const taskId = asked.task.id;
    const created = await client.createPushNotificationConfig({ taskId, id: 'hook', url: 'http://127.0.0.1:9/hook' });
    expect(created).toEqual({ taskId, id: 'hook', url: 'http://127.0.0.1:9/hook' });
    expect(await client.getPushNotificationConfig({ taskId, id: 'hook' })).toEqual(created);
    expect((await client.listPushNotificationConfigs({ taskId })).configs).toEqual([created]);
    await client.deletePushNotificationConfig({ taskId, id: 'hook' });
    expect((await client.listPushNotificationConfigs({ taskId })).configs).toEqual([]);
  });
});

test('the extended card, for a caller with credentials', async () => {
  const app = express().use(
    a2aRouter(async function* () {}, {
      card: { name: 'Vault', version: '1.0.0' },
      logger: pino({ level: 'silent' }),
      auth: { strategies: [apiKey({ keys: { 'key-a': 'alice' } })] },
      extendedCard: { description: 'For callers who signed in' },
    }),
  );
  const { url } = await serve(app);
  for (const preferredBinding of ['JSONRPC', 'HTTP+JSON'] as const) {
    const client = new A2AClient10(url, { preferredBinding, headers: { 'x-api-key': 'key-a' } });
    expect((await client.getCard()).capabilities.extendedAgentCard).toBe(true);
    expect((await client.getExtendedCard()).description).toBe('For callers who signed in');
  }
});

test('answers are held to the published 1.0 schema: a 0.3-shaped task is refused, or reported in warn mode', async () => {
  const card = (url: string) => ({
    name: 'Old',
    description: 'answers in 0.3 shapes',
    version: '1',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  });
  let base = '';
  const app = express()
    .get('/.well-known/agent-card.json', (_req, res) => res.json(card(`${base}/rpc`)))
    .post('/rpc', express.json(), (req, res) =>
      res.json({ jsonrpc: '2.0', id: req.body.id, result: { kind: 'task', id: 't', contextId: 'c', status: { state: 'completed' } } }),
    );
  base = (await serve(app)).url;
  await expect(new A2AClient10(base).getTask({ id: 't' })).rejects.toBeInstanceOf(InvalidResponseError);
  const departures: Departure[] = [];
  const lenient = new A2AClient10(base, { validateResponses: 'warn', onDeparture: (d) => departures.push(d) });
  expect(await lenient.getTask({ id: 't' })).toMatchObject({ id: 't' });
  expect(departures[0]!.issues.map((i) => i.message)).toContain('must NOT have additional properties');
});

test('a card without a 1.0 interface this client speaks is an InvalidResponseError; a gRPC-only one is dialled', async () => {
  const cardWith = (supportedInterfaces: object[]) => ({
    name: 'Elsewhere only',
    description: 'x',
    version: '1',
    supportedInterfaces,
    capabilities: {},
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  });
  const elsewhere = await serve(
    express().get('/.well-known/agent-card.json', (_req, res) =>
      res.json(cardWith([{ url: 'ws://127.0.0.1:9', protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' }])),
    ),
  );
  await expect(new A2AClient10(elsewhere.url).getTask({ id: 't' })).rejects.toThrow(
    /no A2A 1.0 interface over JSONRPC, HTTP\+JSON or GRPC/,
  );
  // Nothing listens on loopback port 9: the gRPC interface is dialled, and the call fails as a network error.
  const grpcOnly = await serve(
    express().get('/.well-known/agent-card.json', (_req, res) =>
      res.json(cardWith([{ url: '127.0.0.1:9', protocolBinding: 'GRPC', protocolVersion: '1.0' }])),
    ),
  );
  const client = new A2AClient10(grpcOnly.url, { timeoutMs: 5_000, grpc: grpcTransport() });
  await expect(client.getTask({ id: 't' })).rejects.toBeInstanceOf(NetworkError);
  client.close();
  // Without gRPC (the main entry has none: a page bundles it), the card's gRPC interface is passed
  // over, and a card that lists no other says what to add.
  await expect(new A2AClient10(grpcOnly.url).getTask({ id: 't' })).rejects.toThrow(
    /lists A2A 1\.0 over gRPC only: give the client `grpc: grpcTransport\(\)` from 'a2a-client\/grpc'/,
  );
  expect(() => new A2AClient10(grpcOnly.url, { preferredBinding: 'GRPC' })).toThrow(/needs `grpc: grpcTransport\(\)`/);
});

describe.each<Binding10>(['JSONRPC', 'HTTP+JSON', 'GRPC'])('A2AClient10 over %s, in a tenant', (binding) => {
  test('with `tenant`, every call names it (HTTP+JSON: below its path segment): the task is the tenant’s, the default tenant does not know it; a card listing the tenant’s interfaces has it chosen', async () => {
    const { serveGrpc } = await import('a2a-express/grpc');
    for (const listTenantsInCard of [false, true]) {
      const router = a2aRouter(
        async function* (ctx) {
          yield artifact(`in ${ctx.call.tenant}`);
          yield completed();
        },
        { card: { name: 'Tenanted', version: '1.0.0' }, logger: pino({ level: 'silent' }), tenants: ['acme'], listTenantsInCard },
      );
      const http = await serve(express().use(router));
      const grpcServer = await serveGrpc(router, { port: 0, agentUrl: http.url });
      const client = new A2AClient10(http.url, { preferredBinding: binding, tenant: 'acme', grpc: grpcTransport() });
      try {
        const chosen = await client.agentInterface();
        expect(chosen).toMatchObject({ protocolBinding: binding, tenant: 'acme' });
        const { task } = (await client.sendMessage({ message: user('hi') })) as { task: { id: string; artifacts: { parts: Part[] }[] } };
        expect(textOf(task.artifacts[0]!.parts)).toBe('in acme');
        expect((await client.getTask({ id: task.id })).id).toBe(task.id);
        const events: StreamEvent10[] = [];
        for await (const event of client.streamMessage({ message: user('streamed') })) events.push(event);
        expect(streamed(events)).toBe('in acme');
        expect((await fetch(`${http.url}/v1/tasks/${task.id}`, { headers: { 'A2A-Version': '1.0' } })).status).toBe(404);
        expect((await fetch(`${http.url}/v1/acme/tasks/${task.id}`, { headers: { 'A2A-Version': '1.0' } })).status).toBe(200);
      } finally {
        client.close();
        await grpcServer.close({ graceMs: 100 });
        await router.close();
      }
    }
  });
});
