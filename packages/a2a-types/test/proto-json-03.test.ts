// The 0.3 objects in their proto JSON form (HTTP+JSON's bodies) and back: every kind of part and
// stream event comes back as it went, what the proto has no field for is left out on the way, and
// what a client may send in other spellings is read.
import {
  publishedSchemaValidator03,
  sendParamsFromProtoJson03,
  sendParamsToProtoJson03,
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
