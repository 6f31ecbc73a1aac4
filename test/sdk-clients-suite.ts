// The sample agents as today's clients see them: driven by the official A2A JavaScript SDK, its
// 0.3 client (`@a2a-js/sdk` 0.3) and its newest client (1.x, with its v0.3 compatibility on),
// against the built agents started as their start scripts start them. Nothing here speaks 0.3
// by hand: what works, works with a client we did not write. The same suites run with the echo
// agent on every server it runs on (sample-edges.ts): Express here, the others beside its
// end-to-end tests (apps/echo-agent/test/edge-*.test.ts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ClientFactory,
  JsonRpcTransportFactory,
  RestTransportFactory,
  TaskNotCancelableError,
  TaskNotFoundError,
  type Client,
} from '@a2a-js/sdk/client';
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  ClientFactory as ClientFactory1,
  ClientFactoryOptions as ClientFactoryOptions1,
  DefaultAgentCardResolver as DefaultAgentCardResolver1,
  JsonRpcTransportFactory as JsonRpcTransportFactory1,
} from 'a2a-sdk-1/client';
import { GrpcTransportFactory as GrpcTransportFactory1 } from 'a2a-sdk-1/client/grpc';
import { Role, TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import {
  TaskNotCancelableError as TaskNotCancelableError1,
  TaskNotFoundError as TaskNotFoundError1,
  UnsupportedOperationError as UnsupportedOperationError1,
} from 'a2a-sdk-1/errors';
import { collectEvents, serverPool, spawnAgent, within, type SpawnedAgent } from 'a2a-testing';
import { startEcho, type SampleEdge } from '../apps/echo-agent/test/sample-edges.js';
import { createPushNotificationVerifier } from 'a2a-push-receiver';
import type { Task as Task03 } from 'a2a-types/v0.3';
import { publishedSchemaValidator03 } from 'a2a-types/v0.3';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

type StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

const userMessage = (text: string, extra: Partial<Message> = {}): Message => ({
  kind: 'message',
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});
const textOf = (parts: { kind: string; text?: string }[] = []) => parts.map((p) => p.text ?? '').join('');

/** The SDK 0.3 client's transports the suite runs over: each finds its interface in the 0.3 card. */
const SDK03_TRANSPORTS = [
  ['JSON-RPC', (fetchImpl: typeof fetch) => new JsonRpcTransportFactory({ fetchImpl })],
  ['HTTP+JSON', (fetchImpl: typeof fetch) => new RestTransportFactory({ fetchImpl })],
] as const;
type Sdk03Transport = (typeof SDK03_TRANSPORTS)[number][1];

/** A 0.3 client as the SDK makes one: from the agent's base URL, through its card, with the one transport given. */
async function sdkClientOver(
  baseUrl: string,
  headers: Record<string, string> = {},
  transport: Sdk03Transport = SDK03_TRANSPORTS[0][1],
): Promise<Client> {
  const fetchWithHeaders: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as object), ...headers } });
  return new ClientFactory({ transports: [transport(fetchWithHeaders)] }).createFromUrl(baseUrl);
}

const collect = (events: AsyncIterable<StreamEvent>, max?: number) => collectEvents(events, max);

/**
 * The SDK clients' suites against the sample agents, the echo agent on `edge` (the currency agent
 * on Express, its own server). gRPC is served beside the Express server only.
 */
/** The 1.0 bindings the SDK client is tried over: gRPC is served beside the Express server only. */
function bindingsOn(edge: SampleEdge): [string, string | undefined][] {
  const bindings: [string, string | undefined][] = [
    ['JSON-RPC', undefined],
    ['HTTP+JSON', 'HTTP+JSON'],
  ];
  return edge === 'express' ? [...bindings, ['gRPC', 'GRPC']] : bindings;
}

export function sdkClientSuites(edge: SampleEdge): void {
  const { serve, closeAll } = serverPool();
  function start(app: 'echo-agent' | 'currency-agent', env: Record<string, string> = {}): Promise<SpawnedAgent> {
    const samplesEnv = { A2A_PUSH_ALLOWLIST: '127.0.0.1', FRANKFURTER_URL: 'http://127.0.0.1:9', RATES_TIMEOUT_MS: '300', ...env };
    if (app === 'echo-agent') return startEcho(edge, samplesEnv);
    return spawnAgent('node', ['dist/server.js'], { cwd: join(root, 'apps', app), env: { PORT: '0', ...samplesEnv } });
  }

  /**
   * The echo agent, a slow echo agent and the currency agent, each as its start script starts it:
   * started once for the suites that need nothing else of them (every client makes tasks of its
   * own), stopped after the last, each exiting cleanly.
   */
  let samples: Promise<SpawnedAgent[]> | undefined;
  const startSamples = (): Promise<SpawnedAgent[]> =>
    (samples ??= Promise.all([start('echo-agent'), start('echo-agent', { ECHO_DELAY_MS: '300' }), start('currency-agent')]));
  afterAll(async () => {
    const started = await samples;
    for (const agent of started ?? []) expect(await agent.stop()).toBe(0);
  });

  describe.each(SDK03_TRANSPORTS)(
    `the official @a2a-js/sdk 0.3 client over %s against the sample agents (echo on ${edge})`,
    (_binding, transport) => {
      const sdkClient = (baseUrl: string, headers: Record<string, string> = {}) => sdkClientOver(baseUrl, headers, transport);
      let echo: SpawnedAgent;
      let slowEcho: SpawnedAgent;
      let currency: SpawnedAgent;
      beforeAll(async () => {
        [echo, slowEcho, currency] = (await startSamples()) as [SpawnedAgent, SpawnedAgent, SpawnedAgent];
      });
      afterAll(() => closeAll());

      test('finds the agent from its base URL alone: the 0.3 card, and its interface for the transport', async () => {
        const client = await sdkClient(echo.url);
        const card = await client.getAgentCard();
        expect(publishedSchemaValidator03('AgentCard')(card)).toBe(true);
        expect(card).toMatchObject({
          name: 'Echo Agent',
          protocolVersion: '0.3.0',
          preferredTransport: 'JSONRPC',
          url: `${echo.url}/v0.3`,
        });
        expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true, stateTransitionHistory: false });
      });

      test('echo: send, get, and a stream of the task, its status and artifact updates', async () => {
        const client = await sdkClient(echo.url);
        const sent = (await client.sendMessage({ message: userMessage('hello from the sdk') })) as Task;
        expect(sent).toMatchObject({ kind: 'task', status: { state: 'completed' } });
        expect(textOf(sent.artifacts![0]!.parts as never)).toBe('hello from the sdk');
        const got = await client.getTask({ id: sent.id, historyLength: 1 });
        expect(got).toMatchObject({ id: sent.id, contextId: sent.contextId, status: { state: 'completed' } });
        expect(got.history).toHaveLength(1);

        const events = await collect(client.sendMessageStream({ message: userMessage('one two three four five six') }));
        expect(events.map((e) => e.kind)).toEqual([
          'task',
          'status-update',
          'artifact-update',
          'artifact-update',
          'artifact-update',
          'status-update',
        ]);
        const chunks = events.filter((e): e is TaskArtifactUpdateEvent => e.kind === 'artifact-update');
        expect(chunks.map((c) => textOf(c.artifact.parts as never)).join('')).toBe('one two three four five six');
        expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      });

      test('echo: cancel a long task, and resubscribe to one after leaving its stream', async () => {
        const client = await sdkClient(slowEcho.url);
        const running = (await client.sendMessage({ message: userMessage('a b c d e f'), configuration: { blocking: false } })) as Task;
        expect(running.status.state).toBe('working');
        const canceled = await client.cancelTask({ id: running.id });
        expect(canceled.status.state).toBe('canceled');
        await expect(client.cancelTask({ id: running.id })).rejects.toBeInstanceOf(TaskNotCancelableError);

        const leaving = new AbortController();
        const first = await collect(client.sendMessageStream({ message: userMessage('g h i j k l') }, { signal: leaving.signal }), 2);
        leaving.abort();
        const taskId = (first[0] as Task).id;
        const resumed = await collect(client.resubscribeTask({ id: taskId }));
        expect(resumed[0]).toMatchObject({ kind: 'status-update', taskId });
        expect(resumed.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
        expect(resumed.some((e) => e.kind === 'artifact-update')).toBe(true);
      });

      test('echo: push config set, get, list and delete; the webhook gets signed 0.3 Tasks', async () => {
        const received: { headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
        const { url: hookUrl } = await serve((req, res) => {
          const chunks: Buffer[] = [];
          req.on('data', (chunk: Buffer) => chunks.push(chunk));
          req.on('end', () => {
            received.push({ headers: req.headers, body: Buffer.concat(chunks) });
            res.writeHead(204).end();
          });
        });
        const client = await sdkClient(echo.url);
        const asked = (await client.sendMessage({ message: userMessage(' ') })) as Task;
        expect(asked.status.state).toBe('input-required');

        const config = { id: 'sdk-hook', url: `${hookUrl}/hook`, token: 'tok' };
        const set = await client.setTaskPushNotificationConfig({ taskId: asked.id, pushNotificationConfig: config });
        expect(set).toEqual({ taskId: asked.id, pushNotificationConfig: { ...config, token: '********' } });
        // By its id: the SDK's REST transport asks for one (its JSON-RPC one sends what it is given).
        expect(await client.getTaskPushNotificationConfig({ id: asked.id, pushNotificationConfigId: 'sdk-hook' } as never)).toEqual(set);
        expect(await client.listTaskPushNotificationConfig({ id: asked.id })).toEqual([set]);

        await client.sendMessage({ message: userMessage('now echo', { taskId: asked.id }) });
        await within(
          (async () => {
            while (received.length < 3) await new Promise((r) => setTimeout(r, 20));
          })(),
          5_000,
          'three notifications',
        );
        const verifier = createPushNotificationVerifier<Task03>({ jwksUrl: `${echo.url}/.well-known/jwks.json` });
        const states = [];
        for (const notification of received) {
          const { payload } = await verifier.verify(notification);
          expect(payload).toMatchObject({ kind: 'task', id: asked.id, contextId: asked.contextId });
          states.push(payload.status.state);
        }
        expect(states).toEqual(['working', 'working', 'completed']);

        await client.deleteTaskPushNotificationConfig({ id: asked.id, pushNotificationConfigId: 'sdk-hook' });
        expect(await client.listTaskPushNotificationConfig({ id: asked.id })).toEqual([]);
      });

      test('errors reach the SDK as its own error types: unknown task, a canceled task, bad params, auth', async () => {
        const client = await sdkClient(echo.url);
        await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
        const asked = (await client.sendMessage({ message: userMessage(' ') })) as Task;
        await client.cancelTask({ id: asked.id });
        await expect(client.sendMessage({ message: userMessage('again', { taskId: asked.id }) })).rejects.toThrow(/-32009/);
        await expect(client.sendMessage({ message: { ...userMessage('x'), parts: [] } })).rejects.toThrow(/-32602/);

        const locked = await start('echo-agent', { A2A_API_KEYS: 'k-sdk=sdk-user' });
        try {
          const withKey = await sdkClient(locked.url, { 'x-api-key': 'k-sdk' });
          expect(((await withKey.sendMessage({ message: userMessage('secure') })) as Task).status.state).toBe('completed');
          const withoutKey = await sdkClient(locked.url);
          // Not the SDK's AuthenticatedExtendedCardNotConfiguredError, as 0.1.0's -32007 would read.
          const refusal = await withoutKey.sendMessage({ message: userMessage('x') }).catch((error: Error) => error);
          expect(refusal).toBeInstanceOf(Error);
          expect((refusal as Error).message).toMatch(/Authentication required \(Code: -32000\)/);
          expect((refusal as Error).constructor.name).not.toMatch(/ExtendedCard/);
        } finally {
          expect(await locked.stop()).toBe(0);
        }
      });

      test('currency: a conversion in one message, and a multi-turn one continued by task id', async () => {
        const client = await sdkClient(currency.url);
        const card = await client.getAgentCard();
        expect(card.skills[0]).toMatchObject({ id: 'convert_currency', tags: ['currency conversion', 'currency exchange'] });
        const converted = (await client.sendMessage({ message: userMessage('convert 100 USD to EUR') })) as Task;
        expect(converted.status.state).toBe('completed');
        expect(textOf(converted.artifacts![0]!.parts as never)).toMatch(/^100 USD is [\d.]+ EUR\./);
        expect(converted.artifacts![0]!.parts).toContainEqual(
          expect.objectContaining({ kind: 'data', data: expect.objectContaining({ from: 'USD', to: 'EUR' }) }),
        );

        const asked = (await client.sendMessage({ message: userMessage('How much is 100 USD?') })) as Task;
        expect(asked.status).toMatchObject({ state: 'input-required', message: { kind: 'message', role: 'agent' } });
        const answered = (await client.sendMessage({
          message: userMessage('in GBP', { taskId: asked.id, contextId: asked.contextId }),
        })) as Task;
        expect(answered).toMatchObject({ id: asked.id, status: { state: 'completed' } });
        expect(textOf(answered.artifacts![0]!.parts as never)).toMatch(/^100 USD is [\d.]+ GBP\./);

        const events = await collect(client.sendMessageStream({ message: userMessage('what is the exchange rate between USD and GBP?') }));
        expect(events[0]!.kind).toBe('task');
        expect(events.filter((e) => e.kind === 'status-update').map((e) => (e as TaskStatusUpdateEvent).status.state)).toContain('working');
        expect(events.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
      });
    },
  );

  describe(`the SDK's newest client (1.x), with its v0.3 compatibility on (echo on ${edge})`, () => {
    let echo: SpawnedAgent;
    beforeAll(async () => {
      echo = (await startSamples())[0]!;
    });

    test('reads the 0.3 card, then sends, streams, gets and cancels over 0.3 JSON-RPC', async () => {
      const legacyCompat = { enabled: true };
      // Given the 0.3 endpoint as the agent's base URL, the client reads the 0.3 card there; from the
      // root it would be given the 1.0 card (it asks for 1.0) and speak 1.0.
      const client = await new ClientFactory1({
        transports: [new JsonRpcTransportFactory1({ legacyCompat })],
        cardResolver: new DefaultAgentCardResolver1({ legacyCompat }),
      }).createFromUrl(`${echo.url}/v0.3/`);
      expect((client as unknown as { transport: { protocolVersion: string } }).transport.protocolVersion).toBe('0.3');
      const request = (text: string) =>
        ({
          message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: text } }] },
        }) as unknown as SendMessageRequest;
      const sent = await client.sendMessage(request('hello from 1.x'));
      expect(sent).toMatchObject({ status: { state: TaskState.TASK_STATE_COMPLETED } });
      const task = sent as { id: string; artifacts: { parts: { content: { value: string } }[] }[] };
      expect(task.artifacts[0]!.parts.map((p) => p.content.value).join('')).toBe('hello from 1.x');
      const got = await client.getTask({ id: task.id } as never);
      expect(got).toMatchObject({ id: task.id, status: { state: TaskState.TASK_STATE_COMPLETED } });

      const cases: string[] = [];
      for await (const event of client.sendMessageStream(request('streamed to 1.x'))) cases.push(event.payload!.$case);
      expect(cases[0]).toBe('task');
      expect(cases.at(-1)).toBe('statusUpdate');
      expect(cases).toContain('artifactUpdate');

      const asked = (await client.sendMessage(request(' '))) as { id: string };
      const canceled = await client.cancelTask({ id: asked.id } as never);
      expect(canceled).toMatchObject({ status: { state: TaskState.TASK_STATE_CANCELED } });
    });
  });

  describe.each(bindingsOn(edge))(
    `the SDK's newest client (1.x) as its README makes it, over A2A 1.0 %s (echo on ${edge})`,
    (_binding, preferred) => {
      /**
       * The default client (JSON-RPC, the card's first interface), or one preferring HTTP+JSON, or one
       * with the SDK's gRPC transport added and preferred, as the SDK's README shows.
       */
      const connect = (url: string) =>
        (preferred
          ? new ClientFactory1(
              ClientFactoryOptions1.createFrom(ClientFactoryOptions1.default, {
                ...(preferred === 'GRPC' && { transports: [new GrpcTransportFactory1()] }),
                preferredTransports: [preferred],
              }),
            )
          : new ClientFactory1()
        ).createFromUrl(url);
      const expectedTransport = { 'HTTP+JSON': /^_?RestTransport$/, GRPC: /^_?GrpcTransport$/ }[preferred ?? ''] ?? /^_?JsonRpcTransport$/;
      let echo: SpawnedAgent;
      let slowEcho: SpawnedAgent;
      let currency: SpawnedAgent;
      /** Over gRPC, samples of their own that serve it too, on a port each (A2A_GRPC_PORT; 0: any free one, which its card lists). */
      let ownSamples: SpawnedAgent[] = [];
      beforeAll(async () => {
        if (preferred === 'GRPC') {
          const env = { A2A_GRPC_PORT: '0' };
          ownSamples = await Promise.all([
            start('echo-agent', env),
            start('echo-agent', { ECHO_DELAY_MS: '300', ...env }),
            start('currency-agent', env),
          ]);
        }
        [echo, slowEcho, currency] = (preferred === 'GRPC' ? ownSamples : await startSamples()) as [
          SpawnedAgent,
          SpawnedAgent,
          SpawnedAgent,
        ];
      });
      afterAll(async () => {
        for (const agent of ownSamples) expect(await agent.stop()).toBe(0);
      });

      const request = (text: string, extra: Record<string, unknown> = {}) =>
        ({
          // As the SDK's types have a request: every field there (its gRPC transport writes each; a
          // request without `tenant` goes out naming the tenant "undefined").
          tenant: '',
          message: {
            messageId: crypto.randomUUID(),
            contextId: '',
            taskId: '',
            role: Role.ROLE_USER,
            parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
            ...extra,
          },
        }) as unknown as SendMessageRequest;
      type SdkTask = { id: string; contextId: string; status: { state: number }; artifacts: { parts: { content: { value: string } }[] }[] };
      const textOfParts = (parts: { content: { value: string } }[]) => parts.map((p) => p.content.value).join('');

      test('finds its 1.0 interface in the card, then sends, gets and streams', async () => {
        const client = await connect(echo.url);
        const card = await client.getAgentCard();
        expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion])).toContainEqual([preferred ?? 'JSONRPC', '1.0']);
        const { transport } = client as unknown as { transport: { protocolVersion: string; constructor: { name: string } } };
        expect(transport.protocolVersion).toBe('1.0');
        expect(transport.constructor.name).toMatch(expectedTransport);

        const sent = (await client.sendMessage(request('hello from 1.0'))) as unknown as SdkTask;
        expect(sent.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(textOfParts(sent.artifacts[0]!.parts)).toBe('hello from 1.0');
        const got = (await client.getTask({ tenant: '', id: sent.id, historyLength: 1 } as never)) as unknown as SdkTask & {
          history: unknown[];
        };
        expect(got).toMatchObject({ id: sent.id, contextId: sent.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
        expect(got.history).toHaveLength(1);

        const cases: string[] = [];
        let streamed = '';
        for await (const event of client.sendMessageStream(request('one two three four five six'))) {
          cases.push(event.payload!.$case);
          if (event.payload!.$case === 'artifactUpdate')
            streamed += textOfParts(
              (event.payload!.value as never as SdkTask['artifacts'][0] & { artifact: SdkTask['artifacts'][0] }).artifact.parts,
            );
        }
        expect(cases[0]).toBe('task');
        expect(cases.at(-1)).toBe('statusUpdate');
        expect(streamed).toBe('one two three four five six');
      });

      test('cancels, continues a task waiting for input, and subscribes to a running one', async () => {
        const client = await connect(slowEcho.url);
        const running = (await client.sendMessage({
          ...request('a b c d e f'),
          configuration: { returnImmediately: true },
        } as never)) as unknown as SdkTask;
        expect(running.status.state).toBe(TaskState.TASK_STATE_WORKING);
        const subscribed: string[] = [];
        for await (const event of client.resubscribeTask({ tenant: '', id: running.id } as never)) subscribed.push(event.payload!.$case);
        expect(subscribed[0]).toBe('task');
        expect(subscribed.at(-1)).toBe('statusUpdate');

        const asked = (await client.sendMessage(request(' '))) as unknown as SdkTask;
        expect(asked.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        const answered = (await client.sendMessage(request('now echo', { taskId: asked.id }))) as unknown as SdkTask;
        expect(answered).toMatchObject({ id: asked.id, status: { state: TaskState.TASK_STATE_COMPLETED } });

        const waiting = (await client.sendMessage(request(' '))) as unknown as SdkTask;
        const canceled = (await client.cancelTask({ tenant: '', id: waiting.id } as never)) as unknown as SdkTask;
        expect(canceled.status.state).toBe(TaskState.TASK_STATE_CANCELED);
        await expect(client.cancelTask({ tenant: '', id: waiting.id } as never)).rejects.toBeInstanceOf(TaskNotCancelableError1);
      });

      test('currency: a conversion, and a multi-turn one continued by task id', async () => {
        const client = await connect(currency.url);
        const converted = (await client.sendMessage(request('convert 100 USD to EUR'))) as unknown as SdkTask;
        expect(converted.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
        expect(textOfParts(converted.artifacts[0]!.parts.filter((p) => p.content.value && typeof p.content.value === 'string'))).toMatch(
          /^100 USD is [\d.]+ EUR\./,
        );
        const asked = (await client.sendMessage(request('How much is 100 USD?'))) as unknown as SdkTask;
        expect(asked.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
        const answered = (await client.sendMessage(request('in GBP', { taskId: asked.id }))) as unknown as SdkTask;
        expect(answered).toMatchObject({ id: asked.id, status: { state: TaskState.TASK_STATE_COMPLETED } });
      });

      test('lists the tasks of a context, a page at a time', async () => {
        const client = await connect(echo.url);
        const contextId = crypto.randomUUID();
        const sent: string[] = [];
        for (const text of ['first', 'second', 'third'])
          sent.push(((await client.sendMessage(request(text, { contextId }))) as unknown as SdkTask).id);
        const page = (pageToken: string) =>
          client.listTasks({ tenant: '', contextId, status: 0, pageSize: 2, pageToken, includeArtifacts: true } as never);
        const first = await page('');
        expect(first.tasks.map((t) => t.id)).toEqual([sent[2], sent[1]]);
        expect(first).toMatchObject({ pageSize: 2, totalSize: 3 });
        expect(textOfParts(first.tasks[0]!.artifacts[0]!.parts as never)).toBe('third');
        const second = await page(first.nextPageToken);
        expect(second.tasks.map((t) => t.id)).toEqual([sent[0]]);
        expect(second.nextPageToken).toBe('');
      });

      test('push configs: create, get, list and delete', async () => {
        const client = await connect(echo.url);
        const asked = (await client.sendMessage(request(' '))) as unknown as SdkTask;
        const config = { taskId: asked.id, id: 'sdk1-hook', url: 'http://127.0.0.1:9/hook', token: 'tok', tenant: '' };
        const created = await client.createTaskPushNotificationConfig(config as never);
        expect(created).toMatchObject({ taskId: asked.id, id: 'sdk1-hook', url: config.url, token: '********' });
        expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: 'sdk1-hook' } as never)).toEqual(created);
        expect(
          (await client.listTaskPushNotificationConfig({ taskId: asked.id, pageSize: 0, pageToken: '', tenant: '' } as never)).configs,
        ).toEqual([created]);
        await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: asked.id, id: 'sdk1-hook' } as never);
        expect(
          (await client.listTaskPushNotificationConfig({ taskId: asked.id, pageSize: 0, pageToken: '', tenant: '' } as never)).configs,
        ).toEqual([]);
      });

      test('errors reach the SDK as its own error types', async () => {
        const client = await connect(echo.url);
        await expect(client.getTask({ tenant: '', id: 'no-such-task' } as never)).rejects.toBeInstanceOf(TaskNotFoundError1);
        const done = (await client.sendMessage(request('done'))) as unknown as SdkTask;
        await expect(client.sendMessage(request('again', { taskId: done.id }))).rejects.toBeInstanceOf(UnsupportedOperationError1);
      });
    },
  );
}
