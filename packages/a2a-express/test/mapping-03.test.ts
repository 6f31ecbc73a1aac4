// The mapping between the 0.1.0 and 0.3 object models (src/versions/v0_3/mapping.ts), on the cases a
// running agent meets rarely: nulls 0.1.0 allows, a data part holding an array, a file given by
// reference only, messages without ids, extras a client sent. Each output passes the published
// 0.3 schema.
import type { Message, TaskEvent } from 'a2a-types';
import { messageFrom03, publishedSchemaValidator03 } from 'a2a-types/v0.3';
import type { TaskRecord } from '../src/store/index.js';
import { derivedMessageId } from '../src/core/message-ids.js';
import { errorTo03, eventTo03, messageTo03, partTo03, sendFrom03, taskTo03 } from '../src/versions/v0_3/mapping.js';
import { A2AError } from '../src/index.js';

function expectValid03(definition: string, value: unknown): void {
  const validate = publishedSchemaValidator03(definition);
  if (!validate(value)) throw new Error(`${definition}: ${JSON.stringify(validate.issues)}`);
}

const record = (history: Message[], extra: Partial<TaskRecord['task']> = {}): TaskRecord => ({
  task: { id: 't-1', contextId: 's-1', status: { state: 'completed', message: history.at(-1) ?? null, timestamp: null }, ...extra },
  history,
  lastEventId: 3,
  turn: 1,
  updatedAt: 0,
});

describe('0.1.0 → 0.3', () => {
  test('nulls become absent fields; a bare-array data part is wrapped; a file without content gets empty bytes', () => {
    const parts = [
      { type: 'text' as const, text: 'hi', metadata: null },
      { type: 'data' as const, data: [1, 2] },
      { type: 'file' as const, file: { name: 'ref.pdf', mimeType: null, bytes: null, uri: null } },
      { type: 'file' as const, file: { uri: 'https://files.example/a.png' } },
    ];
    const mapped = parts.map(partTo03);
    expect(mapped).toEqual([
      { kind: 'text', text: 'hi' },
      { kind: 'data', data: { items: [1, 2] } },
      { kind: 'file', file: { name: 'ref.pdf', bytes: '' } },
      { kind: 'file', file: { uri: 'https://files.example/a.png' } },
    ]);
    for (const part of mapped) expectValid03('Part', part);
  });

  test('a message without an id gets one derived from its task and content: stable, and different for different content', () => {
    const asked: Message = { role: 'agent', parts: [{ type: 'text', text: 'Which city?' }], metadata: null };
    const first = messageTo03(asked, 't-1', 's-1');
    expectValid03('Message', first);
    expect(first).toEqual({
      kind: 'message',
      role: 'agent',
      messageId: derivedMessageId('t-1', asked),
      parts: [{ kind: 'text', text: 'Which city?' }],
      taskId: 't-1',
      contextId: 's-1',
    });
    expect(messageTo03(structuredClone(asked), 't-1', 's-1').messageId).toBe(first.messageId);
    expect(messageTo03({ ...asked, parts: [{ type: 'text', text: 'Which day?' }] }, 't-1', 's-1').messageId).not.toBe(first.messageId);
    expect(messageTo03(asked, 't-2', 's-1').messageId).not.toBe(first.messageId);
  });

  test('a task: kind, contextId from the session, history by historyLength (all when absent), status message like its history entry', () => {
    const history: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'one' }] },
      { role: 'agent', parts: [{ type: 'text', text: 'two' }] },
    ];
    const all = taskTo03(record(history));
    expectValid03('Task', all);
    expect(all).toMatchObject({ kind: 'task', id: 't-1', contextId: 's-1', status: { state: 'completed' } });
    expect(all.status).not.toHaveProperty('timestamp');
    expect(all.history).toHaveLength(2);
    expect(all.status.message).toEqual(all.history![1]);
    expect(taskTo03(record(history), 1).history).toHaveLength(1);
    expect(taskTo03(record(history), 0)).not.toHaveProperty('history');
    expect(taskTo03(record(history, { contextId: 'c-2' })).contextId).toBe('c-2');
  });

  test('events: status-update and artifact-update with taskId, contextId, artifactId from the index, append and lastChunk outside', () => {
    const status: TaskEvent = {
      id: 't-1',
      status: { state: 'working', timestamp: '2026-11-23T00:00:00.000Z' },
      final: false,
      metadata: null,
    };
    const chunk: TaskEvent = {
      id: 't-1',
      artifact: { index: 2, name: 'out', parts: [{ type: 'text', text: 'x' }], append: true, lastChunk: null, description: null },
    };
    const mappedStatus = eventTo03(status, 's-1');
    const mappedChunk = eventTo03(chunk, 's-1');
    expectValid03('TaskStatusUpdateEvent', mappedStatus);
    expectValid03('TaskArtifactUpdateEvent', mappedChunk);
    expect(mappedStatus).toEqual({ kind: 'status-update', taskId: 't-1', contextId: 's-1', status: status.status, final: false });
    expect(mappedChunk).toEqual({
      kind: 'artifact-update',
      taskId: 't-1',
      contextId: 's-1',
      artifact: { artifactId: 'artifact-2', name: 'out', parts: [{ kind: 'text', text: 'x' }] },
      append: true,
    });
  });
});

describe('0.3 → 0.1.0 → 0.3', () => {
  test('everything a 0.3 client sent with a message comes back as it was sent', () => {
    const sent = {
      kind: 'message' as const,
      messageId: 'm-1',
      role: 'user' as const,
      parts: [
        { kind: 'text' as const, text: 'hi', metadata: { lang: 'en' } },
        { kind: 'data' as const, data: { a: 1 } },
        { kind: 'file' as const, file: { bytes: 'aGk=', mimeType: 'text/plain', name: 'hi.txt' } },
      ],
      contextId: 'c-1',
      referenceTaskIds: ['t-0'],
      extensions: ['https://ext.example/x'],
      metadata: { trace: 'abc' },
      futureField: { kept: true },
    };
    const stored = messageFrom03(sent);
    expect(stored.parts.map((p) => p.type)).toEqual(['text', 'data', 'file']);
    expect(messageTo03(stored, 't-1', 'c-1')).toEqual({ ...sent, taskId: 't-1' });
  });

  test('a field named __proto__ stays a field both ways, and sets no prototype', () => {
    const sent = JSON.parse(
      '{"kind":"message","messageId":"m-1","role":"user","parts":[{"kind":"text","text":"hi","__proto__":{"p":1}}],"__proto__":{"m":1}}',
    );
    const stored = messageFrom03(sent) as unknown as Record<string, unknown>;
    expect(Object.getPrototypeOf(stored)).toBe(Object.prototype);
    expect(JSON.stringify(stored)).toBe(
      '{"messageId":"m-1","role":"user","__proto__":{"m":1},"parts":[{"type":"text","text":"hi","__proto__":{"p":1}}]}',
    );
    const answered = messageTo03(stored as unknown as Message, 't-1', 'c-1');
    expect(Object.getPrototypeOf(answered)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(answered))).toEqual(JSON.parse(JSON.stringify({ ...sent, taskId: 't-1', contextId: 'c-1' })));
    expect(JSON.stringify(answered)).toContain('"__proto__":{"m":1}');
    expect(JSON.stringify(answered)).toContain('"__proto__":{"p":1}');
  });

  test('send params: the message as the core keeps it, its context on it, the push config marked as 0.3 and without an id of its own', () => {
    const params = sendFrom03({
      message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind: 'text', text: 'x' }], contextId: 'c' },
      configuration: { pushNotificationConfig: { url: 'https://hooks.example/a' }, blocking: false },
      metadata: { m: 1 },
    });
    expect(params).toMatchObject({
      message: { messageId: 'm', contextId: 'c', parts: [{ type: 'text', text: 'x' }] },
      configuration: { taskPushNotificationConfig: { url: 'https://hooks.example/a', protocol: '0.3' }, returnImmediately: true },
      metadata: { m: 1 },
    });
    expect(params.configuration!.taskPushNotificationConfig).not.toHaveProperty('id');
    const continuing = sendFrom03({ message: { kind: 'message', messageId: 'm', role: 'user', parts: [], taskId: 'old' } });
    expect(continuing.message.taskId).toBe('old');
    expect(continuing).not.toHaveProperty('task');
  });

  test('errors: streaming off is -32004, a refused credential -32000, every other code as it is', () => {
    expect(errorTo03(A2AError.streamingNotSupported()).code).toBe(-32004);
    expect(errorTo03(A2AError.authenticationRequired('no key')).toJSON()).toEqual({
      code: -32000,
      message: 'Authentication required',
      data: { reason: 'no key' },
    });
    const notFound = A2AError.taskNotFound('t');
    expect(errorTo03(notFound)).toBe(notFound);
  });

  test("errors keep their reason in 0.3's words, for the binding that writes them; 0.3's own -32007 is not a refused credential", () => {
    expect(errorTo03(A2AError.authenticationRequired('no key')).reason).toBe('UNAUTHENTICATED');
    expect(errorTo03(A2AError.streamingNotSupported()).reason).toBe('STREAMING_NOT_SUPPORTED');
    // Its code is the kit's AuthenticationRequired; its reason says it is 0.3's extended card error.
    const noCard = new A2AError(-32007, 'Authenticated Extended Card not configured', undefined, 'EXTENDED_AGENT_CARD_NOT_CONFIGURED');
    expect(errorTo03(noCard).toJSON()).toEqual({ code: -32007, message: 'Authenticated Extended Card not configured' });
  });
});
