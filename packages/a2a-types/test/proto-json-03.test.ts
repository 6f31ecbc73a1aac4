// The 0.3 objects in their proto JSON form (HTTP+JSON's bodies) and back: every kind of part and
// stream event comes back as it went, what the proto has no field for is left out on the way, and
// what a client may send in other spellings is read.
import {
  publishedSchemaValidator03,
  sendParamsFromProtoJson03,
  sendParamsToProtoJson03,
  setPushConfigParamsFromProtoJson03,
  setPushConfigRequestToProtoJson03,
  streamResultFromProtoJson03,
  streamResultToProtoJson03,
  taskPushConfigFromProtoJson03,
  taskPushConfigToProtoJson03,
  type Message,
  type StreamResult,
} from '../src/v03/index.js';

const message: Message = {
  kind: 'message',
  messageId: 'm1',
  role: 'user',
  contextId: 'c1',
  taskId: 't1',
  parts: [
    { kind: 'text', text: 'hi' },
    { kind: 'file', file: { uri: 'https://files.example/a.png', mimeType: 'image/png' } },
    { kind: 'file', file: { bytes: 'aGVsbG8=', mimeType: 'text/plain' } },
    { kind: 'data', data: { amount: 3, nested: { data: 1 } } },
  ],
  metadata: { via: 'test' },
  extensions: ['https://ext.example/x'],
};

const events: StreamResult[] = [
  message,
  {
    kind: 'task',
    id: 't1',
    contextId: 'c1',
    status: { state: 'input-required', message: { ...message, role: 'agent', messageId: 'm2' }, timestamp: '2026-11-28T06:00:00.000Z' },
    artifacts: [{ artifactId: 'a1', name: 'answer', parts: [{ kind: 'text', text: 'x' }] }],
    history: [message],
    metadata: { k: 'v' },
  },
  { kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'canceled' }, final: true },
  {
    kind: 'artifact-update',
    taskId: 't1',
    contextId: 'c1',
    artifact: { artifactId: 'a1', parts: [{ kind: 'text', text: 'more' }] },
    append: true,
    lastChunk: true,
  },
];

test('each stream event comes back as it went, through its proto JSON', () => {
  for (const event of events) {
    const proto = streamResultToProtoJson03(event);
    expect(Object.keys(proto)).toHaveLength(1);
    const back = streamResultFromProtoJson03(JSON.parse(JSON.stringify(proto)));
    expect(back).toEqual(event);
    const definition = {
      message: 'Message',
      task: 'Task',
      'status-update': 'TaskStatusUpdateEvent',
      'artifact-update': 'TaskArtifactUpdateEvent',
    }[event.kind];
    expect(publishedSchemaValidator03(definition)(back)).toBe(true);
  }
  expect(streamResultToProtoJson03(events[1]!)).toMatchObject({
    task: { status: { state: 'TASK_STATE_INPUT_REQUIRED', message: { role: 'ROLE_AGENT' } } },
  });
  expect(streamResultToProtoJson03(message)).toMatchObject({
    message: { content: [{ text: 'hi' }, { file: { fileWithUri: 'https://files.example/a.png' } }, {}, { data: { data: { amount: 3 } } }] },
  });
});

test('what the 0.3 proto has no field for is left out; a send says blocking when 0.3 leaves it to the default', () => {
  const proto = sendParamsToProtoJson03({
    message: {
      ...message,
      referenceTaskIds: ['t0'],
      parts: [{ kind: 'file', file: { uri: 'https://files.example/b', name: 'b.txt' }, metadata: { p: 1 } }],
    },
    configuration: { historyLength: 2 },
  });
  expect(proto).toEqual({
    message: {
      messageId: 'm1',
      contextId: 'c1',
      taskId: 't1',
      role: 'ROLE_USER',
      content: [{ file: { fileWithUri: 'https://files.example/b' } }],
      metadata: { via: 'test' },
      extensions: ['https://ext.example/x'],
    },
    configuration: { historyLength: 2, blocking: true },
  });
});

test('a send in proto names, enum numbers and text, or the JSON-RPC spelling, reads as MessageSendParams', () => {
  expect(
    sendParamsFromProtoJson03({
      request: { message_id: 'm', role: 1, content: [{ text: 'a' }, { file: { file_with_bytes: 'AA==', mime_type: 'x/y' } }] },
      configuration: { history_length: '3', push_notification: { url: 'https://hooks.example/h', token: '' } },
    }),
  ).toEqual({
    message: {
      kind: 'message',
      messageId: 'm',
      role: 'user',
      parts: [
        { kind: 'text', text: 'a' },
        { kind: 'file', file: { bytes: 'AA==', mimeType: 'x/y' } },
      ],
    },
    configuration: { historyLength: 3, pushNotificationConfig: { url: 'https://hooks.example/h' }, blocking: false },
  });
  expect(sendParamsFromProtoJson03({ message })).toEqual({ message });
  // What cannot be read is passed on as it came, for the schema to refuse with its path.
  expect(sendParamsFromProtoJson03({ message: { messageId: 'm', role: 'ROLE_ROBOT', content: 'text' } })).toEqual({
    message: { kind: 'message', messageId: 'm', role: 'ROLE_ROBOT', parts: 'text' },
  });
});

test('a push config by its resource name, both ways', () => {
  const config = {
    taskId: 't1',
    pushNotificationConfig: {
      id: 'h1',
      url: 'https://hooks.example/h',
      token: 'tok',
      authentication: { schemes: ['Bearer'], credentials: 'c' },
    },
  };
  const proto = taskPushConfigToProtoJson03(config);
  expect(proto).toEqual({ name: 'tasks/t1/pushNotificationConfigs/h1', pushNotificationConfig: config.pushNotificationConfig });
  expect(taskPushConfigFromProtoJson03(proto)).toEqual(config);
  expect(
    taskPushConfigFromProtoJson03({ name: 'tasks/t1/pushNotificationConfigs/h2', pushNotificationConfig: { url: 'https://h' } }),
  ).toEqual({
    taskId: 't1',
    pushNotificationConfig: { id: 'h2', url: 'https://h' },
  });
});

test('what proto3 leaves out for holding its zero reads as that zero: an empty id, an unspecified state', () => {
  // As protobuf's own JSON writers (and so the official SDKs' servers) write a status update whose contextId is empty.
  expect(streamResultFromProtoJson03({ statusUpdate: { taskId: 't1', status: {}, final: true } })).toEqual({
    kind: 'status-update',
    taskId: 't1',
    contextId: '',
    status: { state: 'unknown' },
    final: true,
  });
  expect(streamResultFromProtoJson03({ task: { status: { state: 'TASK_STATE_WORKING' } } })).toEqual({
    kind: 'task',
    id: '',
    contextId: '',
    status: { state: 'working' },
  });
});

test('a message whose role is neither is written unspecified, not made a user', () => {
  const roleless = { ...message, role: undefined } as unknown as Message;
  expect(streamResultToProtoJson03(roleless)).toMatchObject({ message: { role: 'ROLE_UNSPECIFIED' } });
});

test("a new push config: its task as parent, its id as configId; read back from the request, the path's task, or the config alone", () => {
  const config = { taskId: 't1', pushNotificationConfig: { id: 'h1', url: 'https://hooks.example/h' } };
  const request = setPushConfigRequestToProtoJson03(config);
  expect(request).toEqual({
    parent: 'tasks/t1',
    configId: 'h1',
    config: { name: 'tasks/t1/pushNotificationConfigs/h1', pushNotificationConfig: config.pushNotificationConfig },
  });
  expect(setPushConfigParamsFromProtoJson03(request)).toEqual(config);
  // A REST path names the task; the official JS SDK's client sends the config alone.
  expect(setPushConfigParamsFromProtoJson03(request.config as Record<string, unknown>, 't1')).toEqual(config);
  // Without an id, none is made up: the name ends in `/` and reads back without one.
  const idless = { taskId: 't1', pushNotificationConfig: { url: 'https://hooks.example/h' } };
  expect(setPushConfigRequestToProtoJson03(idless)).toEqual({
    parent: 'tasks/t1',
    config: { name: 'tasks/t1/pushNotificationConfigs/', pushNotificationConfig: idless.pushNotificationConfig },
  });
  expect(setPushConfigParamsFromProtoJson03(setPushConfigRequestToProtoJson03(idless))).toEqual(idless);
  // The id may come as the request's configId alone.
  expect(
    setPushConfigParamsFromProtoJson03({
      parent: 'tasks/t1/pushNotificationConfigs',
      config_id: 'h2',
      config: { pushNotificationConfig: { url: 'https://h' } },
    }),
  ).toEqual({ taskId: 't1', pushNotificationConfig: { id: 'h2', url: 'https://h' } });
});
