// Everything the router sends, checked against the *published* A2A 0.1.0 schema as it is (rebuilt
// exactly by a2a-types), whatever our own schema fixes loosen on input: every method's result,
// every task state a client can see, every part kind, stream events with and without ids, and
// errors with data. The reference clients validate against these definitions.
import express from 'express';
import { readStreamText, rpc, serverPool } from 'a2a-testing';
import {
  A2AError,
  artifact,
  completed,
  dataPart,
  failed,
  filePart,
  inputRequired,
  textPart,
  working,
  type Part,
  type TaskHandler,
} from '../src/index.js';
import { publishedSchemaValidator } from 'a2a-types';
import { appWith, userText } from './helpers.js';

const pool = serverPool();
afterAll(pool.closeAll);

/** Fails with the published schema's own words when `value` does not pass `definition`. */
function expectPublished(definition: string, value: unknown): void {
  const validate = publishedSchemaValidator(definition);
  expect(validate(value) ? [] : { definition, value, issues: validate.issues }).toEqual([]);
}

const everyPart: Part[] = [
  textPart('text'),
  filePart({ name: 'a.txt', mimeType: 'text/plain', bytes: 'aGk=' }),
  filePart({ name: 'b.pdf', mimeType: 'application/pdf', uri: 'https://files.example.com/b.pdf' }),
  dataPart({ amount: 1, rows: [1, 2] }, { schema: 'x' }),
];

const handler: TaskHandler = async function* (ctx) {
  const text = ctx.message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  if (text === 'ask') return yield inputRequired([textPart('Which one?'), dataPart({ options: ['a', 'b'] })]);
  if (text === 'fail') return yield failed('It did not work.');
  if (text === 'throw') throw new Error('boom');
  if (text === 'refuse') throw A2AError.contentTypeNotSupported({ accepted: ['text/plain'] });
  if (text === 'array') return yield artifact([{ type: 'data', data: [1, 2, 3] }]);
  if (text === 'hold') {
    yield working('holding');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return;
  }
  yield working(everyPart, { step: 1 });
  yield artifact(everyPart, { name: 'all', description: 'every kind', lastChunk: false, metadata: { m: 1 } });
  yield artifact('more', { append: true, lastChunk: true });
  yield completed(everyPart);
};

async function agent() {
  const receiver = express();
  receiver.post('/hook', (_req, res) => void res.status(204).end());
  const hook = await pool.serve(receiver);
  // sendWaitMs: a held turn's tasks/send answers with the working task soon.
  const { app } = appWith(handler, { pushNotifications: { allowlist: ['127.0.0.1'] }, sendWaitMs: 100 });
  const server = await pool.serve(app);
  return { url: server.url, hook: `${hook.url}/hook` };
}

const responseOf: Record<string, string> = {
  'tasks/send': 'SendTaskResponse',
  'tasks/get': 'GetTaskResponse',
  'tasks/cancel': 'CancelTaskResponse',
  'tasks/pushNotification/set': 'SetTaskPushNotificationResponse',
  'tasks/pushNotification/get': 'GetTaskPushNotificationResponse',
};

/** A unary call whose whole response must pass the published definition for its method. */
async function call(url: string, method: string, params: unknown) {
  const response = await rpc(url, method, params);
  const { httpStatus: _, ...body } = response;
  expectPublished(responseOf[method] ?? 'JSONRPCResponse', body);
  return response;
}

describe('what the router sends passes the published schema', () => {
  test('the agent card', async () => {
    const { url } = await agent();
    expectPublished('AgentCard', await (await fetch(`${url}/.well-known/agent.json`)).json());
  });

  test('tasks/send and tasks/get in every state a turn can end in, with every part kind and history', async () => {
    const { url } = await agent();
    const states: Record<string, string> = { all: 'completed', ask: 'input-required', fail: 'failed', throw: 'failed', array: 'failed' };
    for (const [text, state] of Object.entries(states)) {
      const sent = await call(url, 'tasks/send', {
        id: `send-${text}`,
        sessionId: 's1',
        message: { role: 'user', parts: [textPart(text)] },
        historyLength: 5,
      });
      expect(sent.result?.status.state).toBe(state);
      await call(url, 'tasks/get', { id: `send-${text}`, historyLength: 10 });
      await call(url, 'tasks/get', { id: `send-${text}` });
    }
    // A reopened task (a message to a completed one), then its history.
    await call(url, 'tasks/send', { id: 'send-all', message: userText('all') });
    await call(url, 'tasks/get', { id: 'send-all', historyLength: 10 });
  });

  test('tasks/send answered while the turn runs, tasks/cancel, and the canceled task', async () => {
    const { url } = await agent();
    expect((await call(url, 'tasks/send', { id: 'held', message: userText('hold') })).result?.status.state).toBe('working');
    expect((await call(url, 'tasks/cancel', { id: 'held' })).result?.status.state).toBe('canceled');
    await call(url, 'tasks/get', { id: 'held', historyLength: 3 });
  });

  test('push configs: set, get, get with none (an error), removed (a null result)', async () => {
    const { url, hook } = await agent();
    await call(url, 'tasks/send', { id: 'pushed', message: userText('all') });
    const none = await call(url, 'tasks/pushNotification/get', { id: 'pushed' });
    expect(none.error).toMatchObject({ code: -32001, message: 'Push notification config not found' });
    const config = { url: hook, token: 'secret', authentication: { schemes: ['Bearer'], credentials: 'c' } };
    expect((await call(url, 'tasks/pushNotification/set', { id: 'pushed', pushNotificationConfig: config })).result).toMatchObject({
      id: 'pushed',
      pushNotificationConfig: { url: hook, token: '********' },
    });
    await call(url, 'tasks/pushNotification/get', { id: 'pushed' });
    expect((await call(url, 'tasks/pushNotification/set', { id: 'pushed', pushNotificationConfig: null })).result).toBeNull();
    expect((await call(url, 'tasks/pushNotification/get', { id: 'pushed' })).error?.code).toBe(-32001);
  });

  test('errors, with and without data, for every kind of refusal', async () => {
    const { url } = await agent();
    await call(url, 'tasks/send', { id: 'done', message: userText('all') });
    const refusals: [string, unknown, number][] = [
      ['tasks/get', { id: 'nope' }, -32001],
      ['tasks/get', { id: 7 }, -32602],
      ['tasks/cancel', { id: 'done' }, -32002],
      ['tasks/send', { id: 'refused', message: userText('refuse') }, -32005],
      ['tasks/nothing', {}, -32601],
    ];
    for (const [method, params, code] of refusals) expect((await call(url, method, params)).error?.code).toBe(code);
    for (const body of [
      '{',
      '[]',
      '{"jsonrpc":"2.0","id":1}',
      '[{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"done"}},{"x":1}]',
    ]) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const answer = (await res.json()) as unknown;
      for (const one of Array.isArray(answer) ? answer : [answer]) expectPublished('JSONRPCResponse', one);
    }
  });

  test.each([
    ['without event ids', {}],
    ['with event ids', { prefer: 'sse-event-ids' }],
  ])('stream events of tasks/sendSubscribe and tasks/resubscribe, %s', async (_, headers: Record<string, string>) => {
    const { url } = await agent();
    const streams = [
      await readStreamText(url, 'tasks/sendSubscribe', { id: 'streamed', message: userText('all') }, { headers }),
      await readStreamText(url, 'tasks/sendSubscribe', { id: 'streamed-ask', message: userText('ask') }, { headers }),
      await readStreamText(url, 'tasks/sendSubscribe', { id: 'streamed-fail', message: userText('fail') }, { headers }),
      await readStreamText(url, 'tasks/resubscribe', { id: 'streamed' }, { headers }),
      await readStreamText(url, 'tasks/resubscribe', { id: 'streamed' }, { headers: { ...headers, 'last-event-id': '1' } }),
    ];
    let events = 0;
    for (const { body } of streams) {
      for (const block of body.split('\n\n')) {
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (!data) continue;
        events++;
        expectPublished('SendTaskStreamingResponse', JSON.parse(data.slice('data: '.length)));
      }
    }
    expect(events).toBeGreaterThan(12);
    const refused = await readStreamText(url, 'tasks/resubscribe', { id: 'nope' }, { headers });
    expectPublished('SendTaskStreamingResponse', JSON.parse(refused.body));
  });
});
