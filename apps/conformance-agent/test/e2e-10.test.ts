// The conformance agent over A2A 1.0, as the conformance kit's 1.0 line reaches it: its card at
// the 1.0 interface's base URL, fetched with no header; then the kit's scenarios driven by the
// official @a2a-js/sdk 1.x client as its README makes one, over JSON-RPC and over HTTP+JSON; and
// the kit's own ways of calling where they differ from the SDK's (a trailing slash, an empty
// cancel body, snake_case params, a webhook with credentials).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClientFactory, ClientFactoryOptions, type Client } from 'a2a-sdk-1/client';
import { Role, TaskState, type SendMessageRequest } from 'a2a-sdk-1';
import { collectEvents, rpc, serverPool, spawnAgent, within, type SpawnedAgent } from 'a2a-testing';
import { publishedSchemaValidator10 } from 'a2a-types/v1.0';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const { serve, closeAll } = serverPool();
const V1 = { 'A2A-Version': '1.0' };

function expectValid10(title: string, value: unknown): void {
  const validate = publishedSchemaValidator10(title);
  if (!validate(value)) throw new Error(`${title}: ${JSON.stringify(validate.issues)}\n${JSON.stringify(value)}`);
}

/** A message of the kit's: its scenario in the prefix of its id (in the SDK's own object form). */
const scenario = (prefix: string, extra: Record<string, unknown> = {}) =>
  ({
    message: {
      messageId: `${prefix}-${crypto.randomUUID().slice(0, 8)}`,
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: 'TCK prerequisite task creation' } }],
      ...extra,
    },
  }) as unknown as SendMessageRequest;

type SdkPart = { content: { $case: string; value: unknown }; filename?: string; mediaType?: string };
type SdkTask = {
  id: string;
  contextId: string;
  status: { state: number; message?: { parts: SdkPart[] } };
  artifacts: { parts: SdkPart[] }[];
};

let agent: SpawnedAgent;
beforeAll(async () => {
  agent = await spawnAgent('node', ['dist/server.js'], {
    cwd: appDir,
    env: { PORT: '0', LOG_LEVEL: 'info', A2A_PUSH_ALLOWLIST: '127.0.0.1,localhost', CONFORMANCE_RESUBSCRIBE_WAIT_MS: '1500' },
  });
});
afterAll(async () => {
  expect(await agent.stop()).toBe(0);
  await closeAll();
});

test('the card at the 1.0 base URL, fetched with no header: strict 1.0, JSON-RPC and HTTP+JSON interfaces first', async () => {
  const response = await fetch(`${agent.url}/v1/.well-known/agent-card.json`);
  expect(response.status).toBe(200);
  const card = (await response.json()) as { supportedInterfaces: unknown[]; capabilities: unknown };
  expectValid10('Agent Card', card);
  for (const key of [
    'name',
    'description',
    'version',
    'capabilities',
    'skills',
    'supportedInterfaces',
    'defaultInputModes',
    'defaultOutputModes',
  ]) {
    expect(card).toHaveProperty(key);
  }
  expect(card.supportedInterfaces.slice(0, 2)).toEqual([
    { url: `${agent.url}/v1`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${agent.url}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ]);
  expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true });
});

describe.each([
  ['JSON-RPC', 'JSONRPC'],
  ['HTTP+JSON', 'HTTP+JSON'],
])('the kit scenarios over 1.0 %s, with the official SDK 1.x client', (_name, binding) => {
  let client: Client;
  beforeAll(async () => {
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] });
    client = await new ClientFactory(options).createFromUrl(`${agent.url}/v1/`);
  });

  test('tck-complete-task, the artifact scenarios, tck-message-response', async () => {
    const done = (await client.sendMessage(scenario('tck-complete-task'))) as unknown as SdkTask;
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.status.message!.parts[0]!.content.value).toBe('Hello from TCK');

    const text = (await client.sendMessage(scenario('tck-artifact-text'))) as unknown as SdkTask;
    expect(text.artifacts[0]!.parts[0]!.content).toEqual({ $case: 'text', value: 'Generated text content' });
    const file = (await client.sendMessage(scenario('tck-artifact-file'))) as unknown as SdkTask;
    expect(file.artifacts[0]!.parts[0]).toMatchObject({ content: { $case: 'raw' }, filename: 'output.txt', mediaType: 'text/plain' });
    expect(Buffer.from(file.artifacts[0]!.parts[0]!.content.value as Uint8Array).toString()).toBe('tck');
    const url = (await client.sendMessage(scenario('tck-artifact-file-url'))) as unknown as SdkTask;
    expect(url.artifacts[0]!.parts[0]).toMatchObject({
      content: { $case: 'url', value: 'https://example.com/output.txt' },
      filename: 'output.txt',
      mediaType: 'text/plain',
    });
    const data = (await client.sendMessage(scenario('tck-artifact-data'))) as unknown as SdkTask;
    expect(data.artifacts[0]!.parts[0]!.content).toEqual({ $case: 'data', value: { key: 'value', count: 42 } });

    const message = (await client.sendMessage(scenario('tck-message-response'))) as unknown as { parts: SdkPart[]; role: number };
    expect(message.role).toBe(Role.ROLE_AGENT);
    expect(message.parts[0]!.content.value).toBe('Direct message response');
  });

  test('tck-input-required continued by task id alone; a completed task takes no more; streams close at the end', async () => {
    const waiting = (await client.sendMessage(scenario('tck-input-required'))) as unknown as SdkTask;
    expect(waiting.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage(scenario('tck-complete-task', { taskId: waiting.id }))) as unknown as SdkTask;
    expect(done).toMatchObject({ id: waiting.id, contextId: waiting.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
    await expect(client.sendMessage(scenario('tck-terminal', { taskId: waiting.id }))).rejects.toThrow();

    const events = await collectEvents(client.sendMessageStream(scenario('tck-stream-001')));
    expect(events.map((e) => e.payload!.$case)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
  });
});

describe("the kit's own ways of calling", () => {
  test('JSON-RPC at the URL with a trailing slash; snake_case params; the version header required', async () => {
    const url = `${agent.url}/v1/`;
    const sent = await rpc<{ task: { id: string } }>(
      url,
      'SendMessage',
      { message: { messageId: 'tck-complete-task-x', role: 'ROLE_USER', parts: [{ text: 'hi' }] } },
      { headers: V1 },
    );
    expectValid10('Send Message Response', sent.result);
    const got = await rpc(url, 'GetTask', { id: sent.result!.task.id, history_length: 1 }, { headers: V1 });
    expect((got.result as { history: unknown[] }).history).toHaveLength(1);
    const listed = await rpc(url, 'ListTasks', { context_id: 'tck-test-context-none', page_size: 2 }, { headers: V1 });
    expect(listed.result).toEqual({ tasks: [], nextPageToken: '', pageSize: 2, totalSize: 0 });
    expect((await rpc(url, 'GetTask', { id: 'x' }, { headers: { 'A2A-Version': '99.0' } })).error).toMatchObject({ code: -32009 });
  });

  test('REST cancel with Content-Type application/json and no body; errors as google.rpc.Status with ErrorInfo', async () => {
    const base = `${agent.url}/v1`;
    const post = (path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { ...V1, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const waiting = (
      (await (
        await post('/message:send', { message: { messageId: 'tck-input-required-r', role: 'ROLE_USER', parts: [{ text: 'x' }] } })
      ).json()) as { task: { id: string } }
    ).task;
    const canceled = await post(`/tasks/${waiting.id}:cancel`);
    expect(canceled.status).toBe(200);
    const again = await post(`/tasks/${waiting.id}:cancel`);
    expect(again.status).toBe(400);
    const missing = await fetch(`${base}/tasks/tck-nonexistent`, { headers: V1 });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/application\/json/);
    expect(await missing.json()).toMatchObject({
      error: { code: 404, details: [{ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }] },
    });
  });

  test('a webhook given with the message and its credentials: POSTs a StreamResponse with Authorization and Content-Length', async () => {
    const received: { authorization?: string; length?: string; body: string }[] = [];
    const { url: hook } = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        received.push({ authorization: req.headers.authorization, length: req.headers['content-length'], body });
        res.writeHead(200).end();
      });
    });
    const config = {
      id: 'tck-push',
      url: `${hook.replace('127.0.0.1', 'localhost')}/webhook`,
      authentication: { scheme: 'Bearer', credentials: 'tck-test-token' },
    };
    const message = { messageId: 'tck-input-required-p', role: 'ROLE_USER', parts: [{ text: 'x' }] };
    const sent = await rpc<{ task: { id: string } }>(
      `${agent.url}/v1`,
      'SendMessage',
      { message, configuration: { taskPushNotificationConfig: config } },
      { headers: V1 },
    );
    await rpc(
      `${agent.url}/v1`,
      'SendMessage',
      { message: { ...message, messageId: 'tck-complete-task-p', taskId: sent.result!.task.id } },
      { headers: V1 },
    );
    await within(
      (async () => {
        while (!received.some((r) => r.body.includes('TASK_STATE_COMPLETED'))) await new Promise((r) => setTimeout(r, 20));
      })(),
      5_000,
      'the completed notification',
    );
    for (const notification of received) {
      expect(notification.authorization).toBe('Bearer tck-test-token');
      expect(notification.length).toBe(String(Buffer.byteLength(notification.body)));
      expectValid10('Stream Response', JSON.parse(notification.body));
    }
  });
});

test('with CONFORMANCE_REQUIRE_EXTENSION=1, the kit’s CORE-CAP-004 as it asks: the card requires its extension, a call without it is -32008 (JSON-RPC) and 400 (HTTP+JSON), a call with it is served', async () => {
  const strict = await spawnAgent('node', ['dist/server.js'], {
    cwd: appDir,
    env: { PORT: '0', LOG_LEVEL: 'info', CONFORMANCE_REQUIRE_EXTENSION: '1' },
  });
  try {
    const base = `${strict.url}/v1`;
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as { capabilities: { extensions?: unknown[] } };
    expect(card.capabilities.extensions).toEqual([expect.objectContaining({ uri: 'urn:a2a:tck:required-extension', required: true })]);
    const message = { role: 'ROLE_USER', parts: [{ text: 'extension test' }], messageId: 'tck-cap-ext-004-jsonrpc-1' };
    const refused = await rpc(base, 'SendMessage', { message }, { headers: V1 });
    expect(refused.error).toMatchObject({ code: -32008, data: [expect.objectContaining({ reason: 'EXTENSION_SUPPORT_REQUIRED' })] });
    const rest = await fetch(`${base}/message:send`, {
      method: 'POST',
      headers: { ...V1, 'content-type': 'application/json' },
      body: JSON.stringify({ message: { ...message, messageId: 'tck-cap-ext-004-http-json-1' } }),
    });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { error: { details: { reason?: string }[] } }).error.details[0]?.reason).toBe(
      'EXTENSION_SUPPORT_REQUIRED',
    );
    const served = await rpc(
      base,
      'SendMessage',
      { message: { ...message, messageId: 'tck-complete-task-ext' } },
      { headers: { ...V1, 'A2A-Extensions': 'urn:a2a:tck:required-extension' } },
    );
    expect(served.error).toBeUndefined();
  } finally {
    expect(await strict.stop()).toBe(0);
  }
});
