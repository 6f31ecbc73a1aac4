// A2AClient03 against A2A 0.3 agents: the echo agent (a kit agent, which serves 0.3 beside
// 0.1.0), and an agent built with the official SDK's own 0.3 server, which we did not write.
import express from 'express';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { droppingProxy, serverPool, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { serveSdkAgent } from 'a2a-testing/sdk-agent';
import type { Message, StreamResult } from 'a2a-types/v0.3';
import { A2AClient03, InvalidResponseError, JsonRpcError, type Departure, type StreamEvent03 } from '../src/index.js';

const echoDir = join(dirname(fileURLToPath(import.meta.url)), '../../../apps/echo-agent');
const { serve, closeAll } = serverPool();
let fast: SpawnedAgent;
let slow: SpawnedAgent;
beforeAll(async () => {
  const env = { PORT: '0', A2A_PUSH_ALLOWLIST: '127.0.0.1' };
  [fast, slow] = await Promise.all([
    spawnAgent('node', ['dist/server.js'], { cwd: echoDir, env }),
    spawnAgent('node', ['dist/server.js'], { cwd: echoDir, env: { ...env, ECHO_DELAY_MS: '80' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([fast.stop(), slow.stop(), closeAll()]);
});

const user = (text: string, extra: Partial<Message> = {}): Message => ({
  kind: 'message',
  messageId: crypto.randomUUID(),
  role: 'user',
  parts: [{ kind: 'text', text }],
  ...extra,
});
const chunksOf = (events: StreamEvent03[]) =>
  events
    .flatMap((e) => (e.event.kind === 'artifact-update' ? e.event.artifact.parts : []))
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('');

describe('A2AClient03 against the echo agent', () => {
  test('finds the 0.3 endpoint from the card; send, get, cancel', async () => {
    const client = new A2AClient03(fast.url);
    const card = await client.getCard();
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: `${fast.url}/v0.3` });
    const task = await client.sendMessage({ message: user('hello there') });
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' } });
    if (task.kind !== 'task') throw new Error('expected a task');
    expect((await client.getTask({ id: task.id, historyLength: 1 })).history).toHaveLength(1);
    const asked = await client.sendMessage({ message: user(' ') });
    if (asked.kind !== 'task') throw new Error('expected a task');
    expect((await client.cancelTask({ id: asked.id })).status.state).toBe('canceled');
    await expect(client.cancelTask({ id: asked.id })).rejects.toMatchObject({ code: -32002 });
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(JsonRpcError);
  });

  test('a dropped stream is resumed with Last-Event-ID on the task its first event named: nothing missed, nothing twice', async () => {
    const proxy = await droppingProxy(slow.url);
    const client = new A2AClient03(proxy.url);
    const events: StreamEvent03[] = [];
    let dropped = false;
    for await (const e of client.streamMessage({ message: user('alpha beta gamma delta epsilon zeta eta theta iota') })) {
      events.push(e);
      if (events.length === 3 && !dropped) {
        dropped = true;
        proxy.dropAll();
      }
    }
    await proxy.close();
    expect(dropped).toBe(true);
    expect(events[0]!.event.kind).toBe('task');
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => Number(events[0]!.id) + i));
    expect(chunksOf(events)).toBe('alpha beta gamma delta epsilon zeta eta theta iota');
    expect(events.at(-1)!.event).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  test('resubscribe from a Last-Event-ID; push configs set, get, list, delete', async () => {
    const client = new A2AClient03(slow.url);
    const stream = client.streamMessage({ message: user('a b c d e f g h i j k l') });
    const first = await stream.next();
    const second = await stream.next();
    await stream.return(undefined);
    const taskId = (first.value!.event as { id: string }).id;
    const rest: StreamEvent03[] = [];
    for await (const e of client.resubscribe({ id: taskId }, { lastEventId: second.value!.id })) rest.push(e);
    expect(Number(rest[0]!.id)).toBe(Number(second.value!.id) + 1);
    expect(rest.at(-1)!.event).toMatchObject({ kind: 'status-update', final: true });

    const hook = await serve(express().post('/hook', (_req, res) => void res.end()));
    const config = { taskId, pushNotificationConfig: { id: 'h', url: `${hook.url}/hook`, token: 't' } };
    const set = await client.setPushNotificationConfig(config);
    expect(set.pushNotificationConfig).toMatchObject({ id: 'h', token: '********' });
    expect(await client.getPushNotificationConfig({ id: taskId, pushNotificationConfigId: 'h' })).toEqual(set);
    expect(await client.listPushNotificationConfigs({ id: taskId })).toEqual([set]);
    await client.deletePushNotificationConfig({ id: taskId, pushNotificationConfigId: 'h' });
    expect(await client.listPushNotificationConfigs({ id: taskId })).toEqual([]);
  });
});

describe('A2AClient03 against an agent built with the official SDK server', () => {
  /** An SDK agent that answers with a Message, or with a task that departs from the schema ("bad"). */
  async function sdkAgent(): Promise<string> {
    const server = await serveSdkAgent(({ text, taskId, contextId }) =>
      text === 'bad'
        ? [{ kind: 'task', id: taskId, contextId, status: {} }]
        : [{ kind: 'message', messageId: 'reply', role: 'agent', parts: [{ kind: 'text', text: `you said ${text}` }], contextId }],
    );
    sdkServers.push(server);
    return server.url;
  }
  const sdkServers: { close(): Promise<void> }[] = [];
  afterAll(() => Promise.all(sdkServers.map((s) => s.close())));

  test('an agent that answers with a Message: sendMessage returns it; a stream ends with it', async () => {
    const client = new A2AClient03(await sdkAgent());
    const answer = await client.sendMessage({ message: user('hi') });
    expect(answer).toMatchObject({ kind: 'message', role: 'agent', parts: [{ kind: 'text', text: 'you said hi' }] });
    const events: StreamResult[] = [];
    for await (const { event } of client.streamMessage({ message: user('stream') })) events.push(event);
    expect(events).toEqual([expect.objectContaining({ kind: 'message', parts: [{ kind: 'text', text: 'you said stream' }] })]);
  });

  test("an answer that departs from the 0.3 schema: an InvalidResponseError in 'strict', reported in 'warn'", async () => {
    const url = await sdkAgent();
    await expect(new A2AClient03(url).sendMessage({ message: user('bad') })).rejects.toBeInstanceOf(InvalidResponseError);
    const departures: Departure[] = [];
    const lenient = new A2AClient03(url, { validateResponses: 'warn', onDeparture: (d) => departures.push(d) });
    expect(await lenient.sendMessage({ message: user('bad') })).toMatchObject({ kind: 'task', status: {} });
    expect(departures).toEqual([
      { what: 'message/send result', issues: expect.arrayContaining([expect.objectContaining({ path: '/status' })]) },
    ]);
  });
});
