// The JSON-RPC core on its own: an agent built with createAgentCore and called through
// `dispatch`, with no Express and no HTTP. What a second binding (another protocol version,
// another server framework) builds on.
import type { JSONRPCErrorResponse, JSONRPCSuccessResponse, Task } from 'a2a-types';
import { type AgentCore, createAgentCore } from '../src/agent-core.js';
import type { Dispatched, RequestContext } from '../src/transports/json-rpc.js';
import { artifact, type AuthorizeHook, completed, customAuth, type TaskHandler, textOf, working } from '../src/index.js';
import type { StoredEvent } from '../src/store/index.js';
import { silent, userText } from './helpers.js';

const handler: TaskHandler = async function* (ctx) {
  const text = textOf(ctx.message);
  const chunks = /^stream (\d+)$/.exec(text);
  if (chunks) {
    yield working('streaming');
    for (let i = 1; i <= Number(chunks[1]); i++) yield artifact(`chunk ${i}`, { index: 0, append: i > 1 });
  } else {
    yield artifact(text);
  }
  yield completed();
};

const cores: AgentCore[] = [];
afterAll(() => Promise.all(cores.map((core) => core.close())));
/** With `authorize`, every call is made by one principal (the hook is asked about authenticated calls). */
function agent(options: { authorize?: AuthorizeHook } = {}) {
  const tester = { id: 'tester', scheme: 'Test' };
  const auth = options.authorize && { strategies: [customAuth('Test', () => tester)], authorize: options.authorize };
  const core = createAgentCore(handler, { card: { name: 'Core', version: '1.0.0' }, logger: silent, auth });
  cores.push(core);
  const context: RequestContext = { principal: auth && tester, headers: {}, lastEventId: undefined };
  return { core, call: (body: unknown, extra: Partial<RequestContext> = {}) => core.dispatch(body, { ...context, ...extra }) };
}

const send = (id: string, text: string, rpcId: number | string = 1) => ({
  jsonrpc: '2.0',
  id: rpcId,
  method: 'tasks/send',
  params: { id, message: userText(text) },
});

function response(answer: Dispatched) {
  if (answer.kind !== 'response') throw new Error(`expected a response, got ${answer.kind}`);
  return answer.response;
}
const errorOf = (answer: Dispatched) => (response(answer) as JSONRPCErrorResponse).error;
const resultOf = (answer: Dispatched) => (response(answer) as JSONRPCSuccessResponse).result as Task;

async function eventsOf(answer: Dispatched): Promise<StoredEvent[]> {
  if (answer.kind !== 'stream') throw new Error(`expected a stream, got ${answer.kind}`);
  const events: StoredEvent[] = [];
  for await (const event of answer.events) events.push(event);
  return events;
}

test('a unary call answers one response, with the request id', async () => {
  const { call } = agent();
  const answer = response(await call(send('unary', 'hello', 'req-1')));
  expect(answer.id).toBe('req-1');
  expect(resultOf(await call(send('unary-2', 'hello')))).toMatchObject({ id: 'unary-2', status: { state: 'completed' } });
});

test('a streaming call answers a stream that iterates every event in order and ends after the final one', async () => {
  const { call } = agent();
  const answer = await call({
    jsonrpc: '2.0',
    id: 7,
    method: 'tasks/sendSubscribe',
    params: { id: 'streamed', message: userText('stream 50') },
  });
  expect(answer).toMatchObject({ kind: 'stream', id: 7 });
  const events = await eventsOf(answer);
  expect(events.map((e) => e.id)).toEqual(Array.from({ length: 53 }, (_, i) => i + 1));
  expect(events.at(-1)!.event).toMatchObject({ status: { state: 'completed' }, final: true });
});

test('leaving the iteration early closes the stream; the task runs on', async () => {
  const { call } = agent();
  const answer = await call({
    jsonrpc: '2.0',
    id: 1,
    method: 'tasks/sendSubscribe',
    params: { id: 'left', message: userText('stream 20') },
  });
  if (answer.kind !== 'stream') throw new Error('expected a stream');
  for await (const event of answer.events) {
    if (event.id === 2) break;
  }
  const got = resultOf(await call({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: 'left' } }));
  expect(['working', 'completed']).toContain(got.status.state);
});

test('resubscribe takes Last-Event-ID from the call context', async () => {
  const { call } = agent();
  await call(send('resumed', 'stream 5'));
  const replay = await eventsOf(
    await call({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: 'resumed' } }, { lastEventId: '4' }),
  );
  expect(replay.map((e) => e.id)).toEqual([5, 6, 7, 8]);
});

test('batches answer the non-notifications in order; notifications alone answer nothing', async () => {
  const { call } = agent();
  const batch = await call([send('b1', 'one', 1), { jsonrpc: '2.0', method: 'tasks/get', params: { id: 'b1' } }, send('b2', 'two', 2)]);
  if (batch.kind !== 'batch') throw new Error(`expected a batch, got ${batch.kind}`);
  expect(batch.responses.map((r) => r.id)).toEqual([1, 2]);
  expect(await call({ jsonrpc: '2.0', method: 'tasks/get', params: { id: 'b1' } })).toEqual({ kind: 'none' });
});

test('every error is a JSON-RPC error object: envelope, method, params with details, authorization', async () => {
  const { call } = agent({ authorize: async ({ operation }) => operation !== 'CancelTask' });
  expect(errorOf(await call({ jsonrpc: '1.0', id: 1, method: 'tasks/get' })).code).toBe(-32600);
  expect(errorOf(await call({ jsonrpc: '2.0', id: 1, method: 'tasks/nothing', params: {} })).code).toBe(-32601);
  const invalid = errorOf(await call({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 42 } }));
  expect(invalid.code).toBe(-32602);
  expect(invalid.data).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/id' })]));
  expect(errorOf(await call({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'nowhere' } })).code).toBe(-32001);
  expect(errorOf(await call({ jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { id: 'nowhere' } })).code).toBe(-32008);
});
