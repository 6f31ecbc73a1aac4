// Every message has its own id from the moment the kit has it: two identical messages of one task
// are two messages to a client that de-duplicates by `messageId` (as 1.0 invites), on every
// version. What a previous release kept without an id is still shown with the id it showed then.
import { rpc, serverPool } from 'a2a-testing';
import { derivedMessageId } from '../src/core/message-ids.js';
import type { TaskRecord } from '../src/model/record.js';
import { agentMessage, inputRequired, working, type TaskHandler } from '../src/index.js';
import { InMemoryTaskStore } from '../src/store/index.js';
import { appWith, userText } from './helpers.js';

interface ShownMessage {
  messageId: string;
  role: string;
}

const { serve, closeAll } = serverPool();
afterAll(closeAll);

/** Says the same thing twice, from one message object, then waits for input with the same words. */
const repeating: TaskHandler = async function* () {
  const same = agentMessage('thinking');
  yield working(same);
  yield working(same);
  yield inputRequired('thinking');
};

async function agent(options: Parameters<typeof appWith>[1] = {}) {
  const { app } = appWith(repeating, options);
  const { url } = await serve(app);
  return { url01: url, url03: `${url}/v0.3`, url10: `${url}/v1` };
}

const V1 = { headers: { 'a2a-version': '1.0' } };

describe('message ids', () => {
  test('a message sent twice by the agent, and a 0.1.0 message without an id, each get an id of their own, the same on every version', async () => {
    const { url01, url03, url10 } = await agent();
    // The 0.1.0 client sends the same words twice, without ids.
    await rpc(url01, 'tasks/send', { id: 'twice', message: userText('again') });
    await rpc(url01, 'tasks/send', { id: 'twice', message: userText('again') });

    const over10 = await rpc<{ history: ShownMessage[] }>(url10, 'GetTask', { id: 'twice' }, V1);
    const over03 = await rpc<{ history: ShownMessage[] }>(url03, 'tasks/get', { id: 'twice' });
    const ids10 = over10.result!.history.map((message) => message.messageId);
    const ids03 = over03.result!.history.map((message) => message.messageId);
    // Two user messages and, per turn, two "working" and one "input-required" message, all alike.
    expect(ids10.length).toBe(8);
    expect(new Set(ids10).size).toBe(ids10.length);
    expect(ids03).toEqual(ids10);
    // 0.1.0 shows the ids the newer versions show.
    const over01 = await rpc<{ history: ShownMessage[] }>(url01, 'tasks/get', { id: 'twice', historyLength: 8 });
    expect(over01.result!.history.map((message) => message.messageId)).toEqual(ids10);
  });

  test('a stream shows each message with the id its task keeps', async () => {
    const { url10 } = await agent();
    const response = await fetch(url10, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendStreamingMessage',
        params: { message: { role: 'ROLE_USER', messageId: 'm-1', parts: [{ text: 'go' }] } },
      }),
    });
    const text = await response.text();
    const events = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map(
        (line) =>
          JSON.parse(line.slice(5)) as { result: Record<string, { taskId?: string; id?: string; status?: { message?: ShownMessage } }> },
      );
    const streamed = events.flatMap((event) => {
      const message = event.result.statusUpdate?.status?.message;
      return message ? [message.messageId] : [];
    });
    expect(streamed.length).toBe(3);
    expect(new Set(streamed).size).toBe(3);
    const taskId = events.find((event) => event.result.task)!.result.task!.id!;
    const read = await rpc<{ history: ShownMessage[] }>(url10, 'GetTask', { id: taskId }, V1);
    expect(read.result!.history.filter((message) => message.role === 'ROLE_AGENT').map((message) => message.messageId)).toEqual(streamed);
  });

  test('a record kept without message ids by the previous release shows the ids it showed then', async () => {
    const store = new InMemoryTaskStore();
    const said = { role: 'agent' as const, parts: [{ type: 'text' as const, text: 'same' }] };
    const legacy = {
      task: { id: 'old', contextId: 'ctx-old', status: { state: 'input-required', message: said, timestamp: '2026-11-01T00:00:00.000Z' } },
      history: [userText('hello'), said, said],
      lastEventId: 3,
      turn: 1,
      updatedAt: Date.now(),
    } as unknown as TaskRecord;
    await store.update('old', () => ({ record: legacy, events: [] }));
    const { url03, url10 } = await agent({ store });

    const over10 = await rpc<{ history: ShownMessage[] }>(url10, 'GetTask', { id: 'old' }, V1);
    const over03 = await rpc<{ history: ShownMessage[] }>(url03, 'tasks/get', { id: 'old' });
    const expected = legacy.history.map((message) => derivedMessageId('old', message));
    expect(over10.result!.history.map((message) => message.messageId)).toEqual(expected);
    expect(over03.result!.history.map((message) => message.messageId)).toEqual(expected);
    // The two messages the previous release kept alike are still shown alike, as they were then.
    expect(expected[1]).toBe(expected[2]);
  });
});
