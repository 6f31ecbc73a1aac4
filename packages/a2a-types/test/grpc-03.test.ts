// A2A 0.3's gRPC messages as a2a-types/v0.3/grpc translates them: 0.3's JSON-RPC objects written
// as the proto's bytes and read back are the same objects, but for what the proto has no field
// for; and what the proto cannot say is refused with an error that names what was expected.
import { A2A_METHODS_03, grpcClientDefinition03 } from '../src/v03/grpc/index.js';
import { publishedSchemaValidator03 } from '../src/v03/index.js';

const method = (jsonRpcMethod: string) => A2A_METHODS_03.find((m) => m.jsonRpcMethod === jsonRpcMethod)!;
const throughParams = (jsonRpcMethod: string, params: unknown) =>
  method(jsonRpcMethod).paramsFromBinary(method(jsonRpcMethod).paramsToBinary(params));
const throughResult = (jsonRpcMethod: string, result: unknown) =>
  method(jsonRpcMethod).resultFromBinary(method(jsonRpcMethod).resultToBinary(result));

const message = {
  kind: 'message',
  messageId: 'm1',
  role: 'user',
  contextId: 'c1',
  taskId: 't1',
  parts: [
    { kind: 'text', text: 'hi' },
    { kind: 'file', file: { bytes: 'aGVsbG8=', mimeType: 'text/plain' } },
    { kind: 'file', file: { uri: 'https://example.com/a.png' } },
    { kind: 'data', data: { nested: { list: [1, 'two', true, null] } } },
  ],
  metadata: { trace: 'abc' },
  extensions: ['https://example.com/ext'],
};

const task = {
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state: 'input-required', timestamp: '2026-01-02T03:04:05.678Z', message: { ...message, role: 'agent', messageId: 'm2' } },
  artifacts: [{ artifactId: 'a1', name: 'echo', description: 'the echo', parts: [{ kind: 'text', text: 'hi' }], metadata: { n: 1 } }],
  history: [message],
  metadata: { owner: 'me' },
};

test('every method of the service is a 0.3 JSON-RPC method', () => {
  expect(Object.keys(grpcClientDefinition03()).sort()).toEqual([
    'agent/getAuthenticatedExtendedCard',
    'message/send',
    'message/stream',
    'tasks/cancel',
    'tasks/get',
    'tasks/pushNotificationConfig/delete',
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/list',
    'tasks/pushNotificationConfig/set',
    'tasks/resubscribe',
  ]);
});

test('a send, a task and each stream event cross the proto and come back as they were', () => {
  const send = {
    message,
    configuration: {
      acceptedOutputModes: ['text/plain'],
      historyLength: 3,
      blocking: true,
      pushNotificationConfig: {
        id: 'p',
        url: 'https://hook.example/x',
        token: 'tok',
        authentication: { schemes: ['Bearer'], credentials: 'c' },
      },
    },
    metadata: { m: 1 },
  };
  expect(throughParams('message/send', send)).toEqual(send);
  expect(throughResult('message/send', task)).toEqual(task);
  expect(throughResult('message/send', message)).toEqual(message);
  const statusUpdate = {
    kind: 'status-update',
    taskId: 't1',
    contextId: 'c1',
    status: { state: 'canceled' },
    final: true,
    metadata: { x: 'y' },
  };
  const artifactUpdate = {
    kind: 'artifact-update',
    taskId: 't1',
    contextId: 'c1',
    artifact: task.artifacts[0],
    append: true,
    lastChunk: true,
  };
  for (const event of [task, message, statusUpdate, artifactUpdate]) expect(throughResult('message/stream', event)).toEqual(event);
  for (const value of [task, message, statusUpdate, artifactUpdate]) {
    const definition =
      (value as { kind: string }).kind === 'task'
        ? 'Task'
        : (value as { kind: string }).kind === 'message'
          ? 'Message'
          : (value as { kind: string }).kind === 'status-update'
            ? 'TaskStatusUpdateEvent'
            : 'TaskArtifactUpdateEvent';
    expect(publishedSchemaValidator03(definition)(throughResult('message/stream', value))).toBe(true);
  }
});

test("what the proto has no field for is left out: a part's metadata, a file's name, referenceTaskIds", () => {
  const withExtras = {
    ...message,
    referenceTaskIds: ['t0'],
    parts: [{ kind: 'file', file: { uri: 'https://x/y', name: 'y.png' }, metadata: { a: 1 } }],
  };
  expect(throughResult('message/send', withExtras)).toEqual({ ...message, parts: [{ kind: 'file', file: { uri: 'https://x/y' } }] });
});

test('tasks and push configs are resource names on the wire, ids in the params', () => {
  expect(throughParams('tasks/get', { id: 't1', historyLength: 2 })).toEqual({ id: 't1', historyLength: 2 });
  expect(throughParams('tasks/cancel', { id: 't1' })).toEqual({ id: 't1' });
  expect(throughParams('tasks/resubscribe', { id: 't1' })).toEqual({ id: 't1' });
  expect(throughParams('tasks/pushNotificationConfig/get', { id: 't1', pushNotificationConfigId: 'p' })).toEqual({
    id: 't1',
    pushNotificationConfigId: 'p',
  });
  expect(throughParams('tasks/pushNotificationConfig/get', { id: 't1' })).toEqual({ id: 't1' });
  expect(throughParams('tasks/pushNotificationConfig/delete', { id: 't1', pushNotificationConfigId: 'p' })).toEqual({
    id: 't1',
    pushNotificationConfigId: 'p',
  });
  expect(throughParams('tasks/pushNotificationConfig/list', { id: 't1' })).toEqual({ id: 't1' });
  const config = { taskId: 't1', pushNotificationConfig: { id: 'p', url: 'https://hook.example/x' } };
  expect(throughParams('tasks/pushNotificationConfig/set', config)).toEqual(config);
  expect(throughResult('tasks/pushNotificationConfig/set', config)).toEqual(config);
  expect(throughResult('tasks/pushNotificationConfig/list', [config, config])).toEqual([config, config]);
  expect(throughResult('tasks/pushNotificationConfig/delete', null)).toBeNull();
  // A config without an id gets none on the way, as over HTTP+JSON (the server gives it one).
  const idless = { taskId: 't1', pushNotificationConfig: { url: 'https://hook.example/x' } };
  expect(throughParams('tasks/pushNotificationConfig/set', idless)).toEqual(idless);
});

test('a name that is not a resource name of the kind asked for is -32602 saying what it must be', () => {
  // GetTaskRequest { name: "jobs/1" }; DeleteTaskPushNotificationConfigRequest { name: "tasks/1" }.
  const named = (text: string) => new Uint8Array([0x0a, text.length, ...new TextEncoder().encode(text)]);
  expect(() => method('tasks/get').paramsFromBinary(named('jobs/1'))).toThrow(expect.objectContaining({ code: -32602 }));
  expect(() => method('tasks/pushNotificationConfig/delete').paramsFromBinary(named('tasks/1'))).toThrow(
    expect.objectContaining({ data: { reason: expect.stringMatching(/tasks\/\{id\}\/pushNotificationConfigs\/\{configId\}/) } }),
  );
});

test('the card crosses with its security schemes, and reads back as a card the published 0.3 schema takes', () => {
  const card = {
    protocolVersion: '0.3.0',
    name: 'Agent',
    description: 'An agent',
    url: 'https://agent.example/v0.3',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: 'agent.example:50051', transport: 'GRPC' }],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true },
    securitySchemes: {
      apikey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      oauth2: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.example/token', scopes: { read: 'Read' } } } },
      openid: { type: 'openIdConnect', openIdConnectUrl: 'https://auth.example/.well-known/openid-configuration' },
    },
    security: [{ apikey: [] }, { oauth2: ['read'] }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'Skill', description: 'A skill', tags: ['t'], examples: ['e'] }],
  };
  const back = throughResult('agent/getAuthenticatedExtendedCard', card);
  expect(back).toEqual(card);
  expect(publishedSchemaValidator03('AgentCard')(back)).toBe(true);
});
