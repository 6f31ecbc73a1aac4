// The conformance agent end to end, on whichever server runs it: the built agent started as its
// files start it (server.ts on Express, as its `start` script does; edge.ts on Node's own HTTP
// server and the fetch handler on Hono, Bun and Deno), driven over A2A 0.3 by the official
// JavaScript SDK's client (`@a2a-js/sdk` 0.3), one scenario of the conformance kit after another,
// and over 0.1.0 by plain JSON-RPC, which sees the mapping the README documents. Written once, run
// on each server by the test files beside it.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { ClientFactory, ContentTypeNotSupportedError, JsonRpcTransportFactory, TaskNotFoundError, type Client } from '@a2a-js/sdk/client';
import type { FilePart, Message, Part, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { createPushNotificationVerifier } from 'a2a-push-receiver';
import { collectEvents, rpc, runtimeCommand, serverPool, spawnAgent, within, type SampleEdge, type SpawnedAgent } from 'a2a-testing';
import { publishedSchemaValidator03 } from 'a2a-types/v0.3';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repositoryRoot = join(appDir, '..', '..');
const { serve, closeAll } = serverPool();

/** Starts the conformance agent on `edge` with `env`, once it says where it listens. */
function startConformance(edge: SampleEdge, env: Record<string, string> = {}): Promise<SpawnedAgent> {
  const runtime = edge === 'bun' || edge === 'deno' ? edge : 'node';
  const { command, args } = runtimeCommand(runtime, edge === 'express' ? 'dist/server.js' : 'dist/edge.js', repositoryRoot);
  const server: Record<string, string> = edge === 'hono' ? { CONFORMANCE_SERVER: 'hono' } : {};
  return spawnAgent(command, args, { cwd: appDir, env: { PORT: '0', LOG_LEVEL: 'info', ...server, ...env }, timeoutMs: 30_000 });
}

type StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

/** A message the kit sends: its scenario in the prefix of its id. */
const scenario = (prefix: string, extra: Partial<Message> = {}, text = 'from the conformance test'): Message => ({
  kind: 'message',
  messageId: `${prefix}-${crypto.randomUUID().slice(0, 8)}`,
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});
const textOf = (parts: Part[] = []) => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

const collect = (events: AsyncIterable<StreamEvent>, max?: number) => collectEvents(events, max);

/** A config named by its id: 0.3's `GetTaskPushNotificationConfigParams` (the SDK types only the task id). */
const byConfigId = (id: string, pushNotificationConfigId: string) => ({ id, pushNotificationConfigId }) as { id: string };

function expectValid03(definition: string, value: unknown): void {
  const validate = publishedSchemaValidator03(definition);
  if (!validate(value)) throw new Error(`${definition}: ${JSON.stringify(validate.issues)}\n${JSON.stringify(value)}`);
}

/** The conformance agent's end-to-end suites, against the agent on `edge`. */
export function conformanceSuites(edge: SampleEdge): void {
  describe(`conformance agent on ${edge}, end to end, with the official @a2a-js/sdk 0.3 client`, () => {
    let agent: SpawnedAgent;
    let client: Client;

    beforeAll(async () => {
      agent = await startConformance(edge, { A2A_PUSH_ALLOWLIST: '127.0.0.1', CONFORMANCE_RESUBSCRIBE_WAIT_MS: '1500' });
      client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(agent.url);
    });
    afterAll(async () => {
      expect(await agent.stop()).toBe(0);
      await closeAll();
    });

    test('its 0.3 card: streaming and push notifications, the tck skill, the input modes that make the content-type scenario', async () => {
      const card = await client.getAgentCard();
      expectValid03('AgentCard', card);
      expect(card).toMatchObject({ name: 'Conformance Agent', protocolVersion: '0.3.0', url: `${agent.url}/v0.3` });
      expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
      expect(card.skills).toEqual([expect.objectContaining({ id: 'tck', tags: ['tck'] })]);
      expect(card.defaultInputModes).not.toContain('*/*');
    });

    test('tck-complete-task completes with "Hello from TCK"; tck-artifact-* return their artifact, then complete', async () => {
      const done = (await client.sendMessage({ message: scenario('tck-complete-task') })) as Task;
      expect(done).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      expect(textOf(done.status.message!.parts)).toBe('Hello from TCK');

      const text = (await client.sendMessage({ message: scenario('tck-artifact-text') })) as Task;
      expect(text.status.state).toBe('completed');
      expect(text.artifacts![0]!.artifactId).toEqual(expect.any(String));
      expect(text.artifacts![0]!.parts).toEqual([{ kind: 'text', text: 'Generated text content' }]);

      const file = (await client.sendMessage({ message: scenario('tck-artifact-file') })) as Task;
      expect(file.artifacts![0]!.parts).toEqual([{ kind: 'file', file: { name: 'output.txt', mimeType: 'text/plain', bytes: 'dGNr' } }]);
      const url = (await client.sendMessage({ message: scenario('tck-artifact-file-url') })) as Task;
      expect((url.artifacts![0]!.parts[0] as FilePart).file).toEqual({
        name: 'output.txt',
        mimeType: 'text/plain',
        uri: 'https://example.com/output.txt',
      });
      const data = (await client.sendMessage({ message: scenario('tck-artifact-data') })) as Task;
      expect(data.artifacts![0]!.parts).toEqual([{ kind: 'data', data: { key: 'value', count: 42 } }]);
    });

    test('tck-message-response is a Message, not a Task, over message/send and message/stream', async () => {
      const answer = await client.sendMessage({ message: scenario('tck-message-response', { contextId: 'ctx-conformance' }) });
      expect(answer).toMatchObject({ kind: 'message', role: 'agent', contextId: 'ctx-conformance' });
      expect(textOf((answer as Message).parts)).toBe('Direct message response');
      const streamed = await collect(client.sendMessageStream({ message: scenario('tck-message-response') }));
      expect(streamed.map((e) => e.kind)).toEqual(['message']);
      expect(textOf((streamed[0] as Message).parts)).toBe('Direct message response');
    });

    test('tck-input-required waits for input, a tck-complete-task follow-up completes it, with the history in order', async () => {
      const waiting = (await client.sendMessage({ message: scenario('tck-input-required') })) as Task;
      expect(waiting.status.state).toBe('input-required');
      const follow = await client.sendMessage({
        message: scenario('tck-input-required', { taskId: waiting.id }, 'TCK history message 1'),
      });
      expect((follow as Task).status.state).toBe('input-required');
      const done = (await client.sendMessage({
        message: scenario('tck-complete-task', { taskId: waiting.id, contextId: waiting.contextId }, 'TCK complete after history'),
      })) as Task;
      expect(done).toMatchObject({ id: waiting.id, contextId: waiting.contextId, status: { state: 'completed' } });
      const got = await client.getTask({ id: waiting.id, historyLength: 10 });
      const userTexts = got.history!.filter((m) => m.role === 'user').map((m) => textOf(m.parts));
      expect(userTexts).toEqual(['from the conformance test', 'TCK history message 1', 'TCK complete after history']);
      expect((await client.getTask({ id: waiting.id, historyLength: 1 })).history).toHaveLength(1);
    });

    test('tck-reject-task ends rejected; a task of no scenario waits for input and can be canceled; an unknown tck- prefix completes', async () => {
      const refused = (await client.sendMessage({ message: scenario('tck-reject-task') })) as Task;
      expect(refused.status.state).toBe('rejected');
      expect(textOf(refused.status.message!.parts)).toBe('rejected');

      const plain = (await client.sendMessage({ message: scenario('cancel-test-message-id') })) as Task;
      expect(plain.status.state).toBe('input-required');
      expect((await client.cancelTask({ id: plain.id })).status.state).toBe('canceled');

      const unknown = (await client.sendMessage({ message: scenario('tck-something-new') })) as Task;
      expect(unknown.status.state).toBe('completed');
      expect(textOf(unknown.status.message!.parts)).toMatch(/^Unhandled messageId prefix: tck-something-new-/);
      await expect(client.getTask({ id: 'tck-nonexistent-get' })).rejects.toBeInstanceOf(TaskNotFoundError);
      // A streaming call's error reaches the client as an error event, its code kept.
      await expect(collect(client.resubscribeTask({ id: 'tck-nonexistent-resubscribe' }))).rejects.toThrow(/Code: -32001/);
    });

    test('content the card does not take gets -32005 (the content-type scenario)', async () => {
      const unsupported = scenario('tck-send-003', {
        parts: [{ kind: 'file', file: { bytes: 'dGNr', mimeType: 'application/x-unsupported-tck-type' } }],
      });
      await expect(client.sendMessage({ message: unsupported })).rejects.toBeInstanceOf(ContentTypeNotSupportedError);
    });

    test('the streaming scenarios: the Task, then working, the artifact, completed; chunks assemble', async () => {
      for (const [prefix, text] of [
        ['tck-stream-001', 'Stream hello from TCK'],
        ['tck-stream-003', 'Stream task lifecycle'],
        ['tck-stream-ordering-001', 'Ordered output'],
        ['tck-stream-artifact-text', 'Streamed text content'],
      ] as const) {
        const events = await collect(client.sendMessageStream({ message: scenario(prefix) }));
        expect([prefix, events.map((e) => e.kind)]).toEqual([prefix, ['task', 'status-update', 'artifact-update', 'status-update']]);
        expect(textOf((events[2] as TaskArtifactUpdateEvent).artifact.parts)).toBe(text);
        expect(events.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
      }
      const statusOnly = await collect(client.sendMessageStream({ message: scenario('tck-stream-002') }));
      expect(statusOnly.map((e) => e.kind)).toEqual(['task', 'status-update']);
      expect(statusOnly[1]).toMatchObject({ final: true, status: { state: 'completed' } });

      const chunked = await collect(client.sendMessageStream({ message: scenario('tck-stream-artifact-chunked') }));
      const chunks = chunked.filter((e): e is TaskArtifactUpdateEvent => e.kind === 'artifact-update');
      expect(chunks.map((c) => [c.append, c.lastChunk ?? false])).toEqual([
        [true, false],
        [true, true],
      ]);
      expect(new Set(chunks.map((c) => c.artifact.artifactId)).size).toBe(1);
      expect(chunks.map((c) => textOf(c.artifact.parts)).join('')).toBe('chunk-1 chunk-2');

      const file = await collect(client.sendMessageStream({ message: scenario('tck-stream-artifact-file') }));
      expect((file[2] as TaskArtifactUpdateEvent).artifact.parts).toEqual([
        { kind: 'file', file: { name: 'output.txt', mimeType: 'text/plain', bytes: 'dGNr' } },
      ]);
    });

    test('test-resubscribe-message-id stays working long enough to resubscribe, and the resubscription ends with completed', async () => {
      const leaving = new AbortController();
      const first = await collect(
        client.sendMessageStream({ message: scenario('test-resubscribe-message-id') }, { signal: leaving.signal }),
        2,
      );
      leaving.abort();
      expect(first.map((e) => e.kind)).toEqual(['task', 'status-update']);
      const taskId = (first[0] as Task).id;
      expect((await client.getTask({ id: taskId })).status.state).toBe('working');
      const resumed = await collect(client.resubscribeTask({ id: taskId }));
      expect(resumed[0]).toMatchObject({ kind: 'status-update', status: { state: 'working' } });
      expect(resumed.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    });

    test('several push configs on one task: set, listed, fetched, each delivered and signed, deleted', async () => {
      const received: Record<string, { headers: Record<string, string | string[] | undefined>; body: Buffer }[]> = { a: [], b: [] };
      const hooks = express();
      hooks.post('/hook/:name', express.raw({ type: () => true }), (req, res) => {
        received[req.params.name!]?.push({ headers: req.headers, body: req.body as Buffer });
        res.status(204).end();
      });
      const hookServer = await serve(hooks);

      const waiting = (await client.sendMessage({ message: scenario('tck-input-required') })) as Task;
      const configs = ['a', 'b'].map((name) => ({ id: `tck-push-${name}`, url: `${hookServer.url}/hook/${name}`, token: `token-${name}` }));
      for (const config of configs) {
        const set = await client.setTaskPushNotificationConfig({ taskId: waiting.id, pushNotificationConfig: config });
        expect(set).toEqual({ taskId: waiting.id, pushNotificationConfig: { ...config, token: '********' } });
      }
      const listed = await client.listTaskPushNotificationConfig({ id: waiting.id });
      expect(listed.map((c) => c.pushNotificationConfig.id)).toEqual(['tck-push-a', 'tck-push-b']);
      for (const config of configs) {
        const got = await client.getTaskPushNotificationConfig(byConfigId(waiting.id, config.id));
        expect(got.pushNotificationConfig).toMatchObject({ id: config.id, url: config.url });
      }

      await client.sendMessage({ message: scenario('tck-complete-task', { taskId: waiting.id }) });
      const verifier = createPushNotificationVerifier<Task>({ jwksUrl: `${agent.url}/.well-known/jwks.json` });
      for (const name of ['a', 'b']) {
        const deliveries = await within(
          (async () => {
            while (received[name]!.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
            return received[name]!;
          })(),
          10_000,
          `webhook ${name}`,
        );
        const states = [];
        for (const delivery of deliveries) {
          expect(delivery.headers['x-a2a-notification-token']).toBe(`token-${name}`);
          const { payload } = await verifier.verify({ headers: delivery.headers, body: delivery.body });
          expectValid03('Task', payload);
          expect(payload).toMatchObject({ kind: 'task', id: waiting.id });
          states.push(payload.status.state);
        }
        expect([name, states]).toEqual([name, ['working', 'completed']]);
      }

      await client.deleteTaskPushNotificationConfig({ id: waiting.id, pushNotificationConfigId: 'tck-push-a' });
      // Deleting it again succeeds: what the client wanted is so.
      await client.deleteTaskPushNotificationConfig({ id: waiting.id, pushNotificationConfigId: 'tck-push-a' });
      expect((await client.listTaskPushNotificationConfig({ id: waiting.id })).map((c) => c.pushNotificationConfig.id)).toEqual([
        'tck-push-b',
      ]);
      await expect(client.getTaskPushNotificationConfig(byConfigId(waiting.id, 'tck-push-a'))).rejects.toThrow();
    });
  });

  describe(`conformance agent on ${edge} over A2A 0.1.0: the documented mapping`, () => {
    let agent: SpawnedAgent;
    beforeAll(async () => {
      agent = await startConformance(edge);
    });
    afterAll(async () => {
      expect(await agent.stop()).toBe(0);
    });

    /** A 0.1.0 message carrying the kit's messageId (0.1.0 keeps what a client adds to a message). */
    const send01 = (prefix: string) =>
      rpc<{ status: { state: string; message?: { parts: { type: string; text?: string }[] } } }>(`${agent.url}/`, 'tasks/send', {
        id: crypto.randomUUID(),
        message: { role: 'user', parts: [{ type: 'text', text: 'hi' }], messageId: `${prefix}-1` },
      });

    test.each([
      ['tck-message-response', 'completed', 'Direct message response'],
      ['tck-reject-task', 'failed', 'rejected'],
      ['tck-complete-task', 'completed', 'Hello from TCK'],
      ['tck-input-required', 'input-required', 'Send more input to continue.'],
    ])('%s: a 0.1.0 client sees %s, with the message %j', async (prefix, state, text) => {
      const { result, error } = await send01(prefix);
      expect(error).toBeUndefined();
      expect(result!.status.state).toBe(state);
      expect(result!.status.message!.parts).toEqual([{ type: 'text', text }]);
    });
  });
}
