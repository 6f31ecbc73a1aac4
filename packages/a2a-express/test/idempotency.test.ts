// Retries that never run a message twice (docs/idempotency.md), over every version and binding
// (0.1.0 JSON-RPC; 0.3 JSON-RPC; 1.0 JSON-RPC, HTTP+JSON and gRPC), blocking and streaming, on each
// store (in memory, Redis, PostgreSQL): the same send twice, and two sends with one
// Idempotency-Key, run one turn (the handler is called once) and answer with the same task; a
// streamed retry streams the turn again from its start. Another principal or tenant sending the
// same message id starts a turn of its own; a key sent again with another message is refused, a
// new task's message id with another message is no retry (a task of its own); a follow-up sent
// twice to its task runs once. Real servers on loopback.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { collect, openStream, postJson, rpc } from 'a2a-testing';
import { apiKey, artifact, completed, inputRequired, textOf, type TaskHandler, type TaskStore } from '../src/index.js';
import { statusDetailsFromBinary } from 'a2a-types/v1.0/grpc';
import { claimKeyOf } from '../src/core/idempotency.js';
import { InMemoryTaskStore } from '../src/store/index.js';
import { storesUnderTest } from './stores-under-test.js';
import { grpcAgents, unary, type GrpcClient } from './grpc-agents.js';
import { gate } from './helpers.js';

type Json = Record<string, unknown>;
const agents = grpcAgents();
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  await agents.close();
  for (const close of closers) await close();
});

/** How many times the handler was called for each message text: each test's texts are its own. */
const turns = new Map<string, number>();
/** Texts whose turn waits for the gate's opening. */
const held = new Map<string, Promise<void>>();
const handler: TaskHandler = async function* (ctx) {
  const text = textOf(ctx.message);
  turns.set(text, (turns.get(text) ?? 0) + 1);
  if (text.startsWith('ask ')) return yield inputRequired('and then?');
  await held.get(text);
  yield artifact(`echo ${text}`);
  yield completed('done');
};

const STORES = storesUnderTest('idempotency', closers);

interface Agent {
  readonly url: string;
  readonly client: GrpcClient;
}

async function agentOn(store: TaskStore): Promise<Agent> {
  return agents.agent(handler, {
    store,
    auth: { strategies: [apiKey({ keys: { 'key-alice': 'alice', 'key-bob': 'bob' } })] },
    tenants: ['acme'],
  });
}

/** Who sends: the principal's key, a tenant, an Idempotency-Key. */
interface Sender {
  readonly apiKey?: string;
  readonly tenant?: string;
  readonly idempotencyKey?: string;
}

/** A send's answer as the test reads it on every binding: the task, and for a stream what each event was. */
interface Answer {
  readonly taskId: string | undefined;
  readonly state: string | undefined;
  /** A stream's events as `task:<state>`, `status:<state>`, `artifact`, `message`. */
  readonly events?: string[];
  /** The error's code (gRPC: its status), and everything it says as text: its message and details. */
  readonly error?: { code: number | string; said: string };
}

/** One version's binding: how it sends a user's message of `text` with `messageId` (none: 0.1.0 without one). */
interface Route {
  readonly name: string;
  readonly tenants: boolean;
  send(agent: Agent, text: string, messageId: string | undefined, stream: boolean, sender: Sender, taskId?: string): Promise<Answer>;
}

function headersOf(sender: Sender, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'x-api-key': sender.apiKey ?? 'key-alice',
    ...(sender.idempotencyKey !== undefined && { 'idempotency-key': sender.idempotencyKey }),
    ...extra,
  };
}

/** A 1.0 StreamResponse (JSON-RPC's result, HTTP+JSON's event, gRPC's message) as the test reads it. */
function event10(value: Json): string {
  if (value.task) return `task:${((value.task as Json).status as Json).state}`;
  if (value.statusUpdate) return `status:${((value.statusUpdate as Json).status as Json).state}`;
  if (value.artifactUpdate) return 'artifact';
  return 'message';
}

function answer10(value: Json | undefined, events?: Json[]): Answer {
  const task = (value?.task ?? events?.find((event) => event.task)?.task) as Json | undefined;
  const last = events?.at(-1);
  const lastStatus = last && ((last.statusUpdate as Json | undefined)?.status as Json | undefined);
  return {
    taskId: task?.id as string | undefined,
    state: (lastStatus?.state ?? (task?.status as Json | undefined)?.state) as string | undefined,
    ...(events && { events: events.map(event10) }),
  };
}

const STATE_10: Record<string, string> = { TASK_STATE_COMPLETED: 'completed', TASK_STATE_INPUT_REQUIRED: 'input-required' };
const message10 = (text: string, messageId: string | undefined, taskId?: string): Json => ({
  messageId,
  role: 'ROLE_USER',
  parts: [{ text }],
  ...(taskId && { taskId }),
});

/** A JSON-RPC call's answer: its result, or its error. */
async function jsonRpc(
  url: string,
  method: string,
  params: Json,
  headers: Record<string, string>,
): Promise<{ result?: Json; error?: Answer['error'] }> {
  const answered = await rpc<Json>(url, method, params, { headers });
  return answered.error ? { error: errorOf(answered.error) } : { result: answered.result as Json };
}

async function jsonRpcStream(
  url: string,
  method: string,
  params: Json,
  headers: Record<string, string>,
): Promise<{ results?: Json[]; error?: Answer['error'] }> {
  const events = await collect(await openStream(url, method, params, { headers }));
  const first = events[0]?.message;
  if (first?.error) return { error: errorOf(first.error) };
  return { results: events.map((event) => event.message.result as unknown as Json) };
}

const ROUTES: readonly Route[] = [
  {
    name: '0.1.0 JSON-RPC',
    tenants: false,
    async send(agent, text, messageId, stream, sender, taskId) {
      const params = {
        id: taskId ?? randomUUID(),
        message: { role: 'user', parts: [{ type: 'text', text }], ...(messageId && { messageId }) },
      };
      if (!stream) {
        const { result, error } = await jsonRpc(`${agent.url}/`, 'tasks/send', params, headersOf(sender));
        return error
          ? { taskId: undefined, state: undefined, error }
          : { taskId: result!.id as string, state: (result!.status as Json).state as string };
      }
      const { results, error } = await jsonRpcStream(`${agent.url}/`, 'tasks/sendSubscribe', params, headersOf(sender));
      if (error) return { taskId: undefined, state: undefined, error };
      const events = results!.map((event) => (event.status ? `status:${(event.status as Json).state}` : 'artifact'));
      return { taskId: results![0]!.id as string, state: (results!.at(-1)!.status as Json).state as string, events };
    },
  },
  {
    name: '0.3 JSON-RPC',
    tenants: false,
    async send(agent, text, messageId, stream, sender, taskId) {
      const message = { kind: 'message', role: 'user', parts: [{ kind: 'text', text }], messageId, ...(taskId && { taskId }) };
      if (!stream) {
        const { result, error } = await jsonRpc(`${agent.url}/v0.3`, 'message/send', { message }, headersOf(sender));
        return error
          ? { taskId: undefined, state: undefined, error }
          : { taskId: result!.id as string, state: (result!.status as Json).state as string };
      }
      const { results, error } = await jsonRpcStream(`${agent.url}/v0.3`, 'message/stream', { message }, headersOf(sender));
      if (error) return { taskId: undefined, state: undefined, error };
      const events = results!.map((event) =>
        event.kind === 'artifact-update' ? 'artifact' : `${event.kind === 'task' ? 'task' : 'status'}:${(event.status as Json).state}`,
      );
      const last = results!.at(-1)!;
      return { taskId: results![0]!.id as string, state: (last.status as Json).state as string, events };
    },
  },
  {
    name: '1.0 JSON-RPC',
    tenants: true,
    async send(agent, text, messageId, stream, sender, taskId) {
      const params = { message: message10(text, messageId, taskId), ...(sender.tenant && { tenant: sender.tenant }) };
      const headers = headersOf(sender, { 'a2a-version': '1.0' });
      if (!stream) {
        const { result, error } = await jsonRpc(`${agent.url}/v1`, 'SendMessage', params, headers);
        return error ? { taskId: undefined, state: undefined, error } : normalized(answer10(result));
      }
      const { results, error } = await jsonRpcStream(`${agent.url}/v1`, 'SendStreamingMessage', params, headers);
      return error ? { taskId: undefined, state: undefined, error } : normalized(answer10(undefined, results));
    },
  },
  {
    name: '1.0 HTTP+JSON',
    tenants: true,
    async send(agent, text, messageId, stream, sender, taskId) {
      const base = `${agent.url}/v1${sender.tenant ? `/${sender.tenant}` : ''}`;
      const headers = headersOf(sender, { 'a2a-version': '1.0' });
      const response = await postJson(
        `${base}/message:${stream ? 'stream' : 'send'}`,
        { message: message10(text, messageId, taskId) },
        headers,
      );
      const body = await response.text();
      if (response.status !== 200) {
        return { taskId: undefined, state: undefined, error: { code: response.status, said: body } };
      }
      if (!stream) return normalized(answer10(JSON.parse(body) as Json));
      const events = body
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as Json);
      return normalized(answer10(undefined, events));
    },
  },
  {
    name: '1.0 gRPC',
    tenants: true,
    async send(agent, text, messageId, stream, sender, taskId) {
      const request = { message: message10(text, messageId, taskId), ...(sender.tenant && { tenant: sender.tenant }) };
      const headers = headersOf(sender, { 'a2a-version': '1.0' });
      if (!stream) {
        const { value, error } = await unary(agent.client, 'sendMessage', request, headers);
        return error ? { taskId: undefined, state: undefined, error: grpcErrorOf(error) } : normalized(answer10(value));
      }
      const { messages, error } = await streamedOver(agent.client, request, headers);
      return error ? { taskId: undefined, state: undefined, error: grpcErrorOf(error) } : normalized(answer10(undefined, messages));
    },
  },
];

/** 1.0's states in the words of the others, so that one expectation reads every binding. */
function normalized(answer: Answer): Answer {
  const state = (value: string | undefined) => (value && STATE_10[value]) ?? value?.replace(/^TASK_STATE_/, '').toLowerCase();
  return {
    ...answer,
    state: state(answer.state),
    ...(answer.events && { events: answer.events.map((event) => event.replace(/TASK_STATE_\w+/, (found) => state(found)!)) }),
  };
}

function streamedOver(
  client: GrpcClient,
  request: Json,
  headers: Record<string, string>,
): Promise<{ messages: Json[]; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const messages: Json[] = [];
    const metadata = new grpc.Metadata();
    for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
    const call = client.sendStreamingMessage!(request, metadata) as grpc.ClientReadableStream<Json>;
    call.on('data', (message: Json) => messages.push(message));
    call.on('error', (error: grpc.ServiceError) => resolve({ messages, error }));
    call.on('end', () => resolve({ messages }));
  });
}

function errorOf(error: unknown): Answer['error'] {
  return { code: (error as { code: number }).code, said: JSON.stringify(error) };
}

function grpcErrorOf(error: grpc.ServiceError): Answer['error'] {
  const [details] = error.metadata.get('grpc-status-details-bin') as Buffer[];
  return { code: error.code, said: `${error.details} ${details ? JSON.stringify(statusDetailsFromBinary(details)) : ''}` };
}

/** A text no other test sends: what the handler counts turns by. */
const unique = (what: string) => `${what} ${randomUUID()}`;

describe.each(STORES)('on $name', ({ open }) => {
  let agent: Agent;
  beforeAll(async () => {
    agent = await agentOn(await open());
  });

  describe.each(ROUTES)('over $name', (route) => {
    test.each([false, true])('the same send twice runs one turn and answers with the same task (streaming: %s)', async (stream) => {
      const text = unique('twice');
      const messageId = randomUUID();
      const taskId = route.name.startsWith('0.1.0') ? randomUUID() : undefined;
      const first = await route.send(agent, text, messageId, stream, {}, taskId);
      const second = await route.send(agent, text, messageId, stream, {}, taskId);
      expect(first.error).toBeUndefined();
      expect(first).toMatchObject({ state: 'completed' });
      // A streamed retry streams the turn again from its start, replayed from the task's log.
      expect(second).toEqual(first);
      expect(turns.get(text)).toBe(1);
    });

    test.each([false, true])('two sends with one Idempotency-Key run one turn (streaming: %s)', async (stream) => {
      const text = unique('keyed');
      const idempotencyKey = randomUUID();
      // Each try a message of its own id (0.1.0: none), as a client that makes the message anew.
      const messageId = () => (route.name.startsWith('0.1.0') ? undefined : randomUUID());
      const taskId = route.name.startsWith('0.1.0') ? randomUUID() : undefined;
      const first = await route.send(agent, text, messageId(), stream, { idempotencyKey }, taskId);
      const second = await route.send(agent, text, messageId(), stream, { idempotencyKey }, taskId);
      expect(first.error).toBeUndefined();
      expect(second).toEqual(first);
      expect(turns.get(text)).toBe(1);
    });

    test('a key sent again with another message is refused, and runs nothing', async () => {
      const idempotencyKey = randomUUID();
      const messageId = () => (route.name.startsWith('0.1.0') ? undefined : randomUUID());
      const taskId = route.name.startsWith('0.1.0') ? randomUUID() : undefined;
      const first = await route.send(agent, unique('first'), messageId(), false, { idempotencyKey }, taskId);
      const other = unique('other');
      const refused = await route.send(agent, other, messageId(), false, { idempotencyKey }, taskId);
      expect(first.error).toBeUndefined();
      expect(refused.error?.said ?? '').toMatch(/Idempotency-Key was sent before with another message/);
      expect(turns.get(other)).toBeUndefined();
    });

    test('another principal sending the same message id (and key) starts a turn of its own', async () => {
      const text = unique('principals');
      const messageId = randomUUID();
      const idempotencyKey = randomUUID();
      const taskId = route.name.startsWith('0.1.0') ? randomUUID() : undefined;
      const alice = await route.send(agent, text, messageId, false, { idempotencyKey }, taskId);
      // 0.1.0 names the task: Bob's is another task of the same id, which he may not see.
      const bob = await route.send(
        agent,
        text,
        messageId,
        false,
        { apiKey: 'key-bob', idempotencyKey },
        route.name.startsWith('0.1.0') ? randomUUID() : undefined,
      );
      expect([alice.state, bob.state]).toEqual(['completed', 'completed']);
      expect(bob.taskId).not.toBe(alice.taskId);
      expect(turns.get(text)).toBe(2);
    });

    if (route.tenants) {
      test('the same message id in another tenant starts a turn of its own', async () => {
        const text = unique('tenants');
        const messageId = randomUUID();
        const ours = await route.send(agent, text, messageId, false, {});
        const theirs = await route.send(agent, text, messageId, false, { tenant: 'acme' });
        const theirsAgain = await route.send(agent, text, messageId, false, { tenant: 'acme' });
        expect([ours.state, theirs.state]).toEqual(['completed', 'completed']);
        expect(theirs.taskId).not.toBe(ours.taskId);
        expect(theirsAgain.taskId).toBe(theirs.taskId);
        expect(turns.get(text)).toBe(2);
      });
    }

    test('a follow-up sent twice to its task runs one turn', async () => {
      const asked = await route.send(
        agent,
        unique('ask'),
        randomUUID(),
        false,
        {},
        route.name.startsWith('0.1.0') ? randomUUID() : undefined,
      );
      expect(asked.state).toBe('input-required');
      const text = unique('answer');
      const messageId = randomUUID();
      const first = await route.send(agent, text, messageId, false, {}, asked.taskId);
      // 0.1.0 and 0.3 would reopen the completed task for a new message, 1.0 refuse it: a retry does neither.
      const second = await route.send(agent, text, messageId, false, {}, asked.taskId);
      expect(first).toMatchObject({ taskId: asked.taskId, state: 'completed' });
      expect(second).toEqual(first);
      expect(turns.get(text)).toBe(1);
    });
  });

  test('a new task’s message id sent again with another message is no retry: it runs as a task of its own (1.0; the official conformance kit reuses its ids)', async () => {
    const messageId = randomUUID();
    const route = ROUTES.find((r) => r.name === '1.0 JSON-RPC')!;
    const first = await route.send(agent, unique('one'), messageId, false, {});
    const other = unique('another');
    const second = await route.send(agent, other, messageId, false, {});
    expect(second).toMatchObject({ state: 'completed' });
    expect(second.taskId).not.toBe(first.taskId);
    expect(turns.get(other)).toBe(1);
  });

  test('a retry while the turn runs waits for it as a blocking send does, and both answer its end; a streamed one follows it live', async () => {
    const route = ROUTES.find((r) => r.name === '1.0 JSON-RPC')!;
    const text = unique('slow');
    const opened = gate();
    held.set(text, opened.promise);
    const messageId = randomUUID();
    const first = route.send(agent, text, messageId, false, {});
    // The retry is sent once the first has started its turn.
    for (let i = 0; i < 500 && turns.get(text) === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(turns.get(text)).toBe(1);
    const retried = route.send(agent, text, messageId, false, {});
    const streamed = route.send(agent, text, messageId, true, {});
    opened.open();
    const [one, two, three] = await Promise.all([first, retried, streamed]);
    expect(one).toMatchObject({ state: 'completed' });
    expect(two).toEqual(one);
    expect(three).toMatchObject({ taskId: one.taskId, state: 'completed', events: ['task:working', 'artifact', 'status:completed'] });
    expect(turns.get(text)).toBe(1);
  });

  test('an unusable Idempotency-Key is refused with -32602', async () => {
    const route = ROUTES.find((r) => r.name === '1.0 JSON-RPC')!;
    const refused = await route.send(agent, unique('bad key'), randomUUID(), false, { idempotencyKey: 'é'.repeat(3) });
    expect(refused.error).toMatchObject({ code: -32602, said: expect.stringMatching(/Idempotency-Key header must be/) });
  });
});

describe('a claim and its task', () => {
  const rpc10 = (url: string, text: string, messageId: string) =>
    rpc<Json>(`${url}/v1`, 'SendMessage', { message: message10(text, messageId) }, { headers: { 'a2a-version': '1.0' } });

  test('a claim whose task was never made (its process died between the two) is run by the retry, under the ids claimed', async () => {
    const store = new InMemoryTaskStore();
    const { url } = await agents.agent(handler, { store });
    const messageId = randomUUID();
    const claimedTask = randomUUID();
    // What a process that died after claiming left: a claim, and no task.
    expect(await store.claimIdempotencyKey(claimKeyOf(undefined, 'messageId', messageId), { taskId: claimedTask, messageId }, 60_000)).toBe(
      undefined,
    );
    const text = unique('orphaned claim');
    const retried = await rpc10(url, text, messageId);
    expect((retried.result!.task as Json).id).toBe(claimedTask);
    expect(((retried.result!.task as Json).status as Json).state).toBe('TASK_STATE_COMPLETED');
    const again = await rpc10(url, text, messageId);
    expect((again.result!.task as Json).id).toBe(claimedTask);
    expect(turns.get(text)).toBe(1);
  });

  test('the in-memory store keeps at most maxIdempotencyKeys claims, the oldest dropped first', async () => {
    const store = new InMemoryTaskStore({ maxIdempotencyKeys: 2 });
    const claim = (key: string, i: number) => store.claimIdempotencyKey(key, { taskId: `t${i}`, messageId: `m${i}` }, 60_000);
    expect([await claim('a', 1), await claim('b', 2), await claim('c', 3)]).toEqual([undefined, undefined, undefined]);
    expect(await claim('b', 4)).toEqual({ taskId: 't2', messageId: 'm2' });
    expect(await claim('c', 5)).toEqual({ taskId: 't3', messageId: 'm3' });
    // 'a' made room for 'c': claimed anew.
    expect(await claim('a', 6)).toBeUndefined();
  });

  test('retriesByMessageId: false: the same new-task send twice runs two tasks; the same send with one Idempotency-Key still runs one', async () => {
    const { url } = await agents.agent(handler, { retriesByMessageId: false });
    const text = unique('no message id retries');
    const messageId = randomUUID();
    const first = await rpc10(url, text, messageId);
    const second = await rpc10(url, text, messageId);
    expect((second.result!.task as Json).id).not.toBe((first.result!.task as Json).id);
    expect(turns.get(text)).toBe(2);
    const keyed = unique('keyed without message id retries');
    const idempotencyKey = randomUUID();
    const send = () =>
      rpc<Json>(
        `${url}/v1`,
        'SendMessage',
        { message: message10(keyed, randomUUID()) },
        { headers: { 'a2a-version': '1.0', 'idempotency-key': idempotencyKey } },
      );
    const one = await send();
    const two = await send();
    expect((two.result!.task as Json).id).toBe((one.result!.task as Json).id);
    expect(turns.get(keyed)).toBe(1);
  });

  test('with a store that keeps no claims, the router keeps them in its process', async () => {
    const inner = new InMemoryTaskStore();
    const withoutClaims = Object.assign(Object.create(inner) as TaskStore, { claimIdempotencyKey: undefined });
    const { url } = await agents.agent(handler, { store: withoutClaims });
    const text = unique('own store');
    const messageId = randomUUID();
    const first = await rpc10(url, text, messageId);
    const second = await rpc10(url, text, messageId);
    expect((second.result!.task as Json).id).toBe((first.result!.task as Json).id);
    expect(turns.get(text)).toBe(1);
  });
});
