import request from 'supertest';
import { completed, type TaskHandler } from '../src/index.js';
import { appWith, request as rpcRequest, resultOf } from './helpers.js';

const echoText: TaskHandler = async (ctx) => completed(`${ctx.message.parts.length} parts`);
const { app } = appWith(echoText);

const text = (t: string) => ({ type: 'text', text: t });
const send = (params: unknown) => rpcRequest('tasks/send', params, 'p');

async function call(body: unknown) {
  return (await request(app).post('/').set('Content-Type', 'application/json').send(JSON.stringify(body))).body;
}

describe('params validation (-32602 with details in error.data)', () => {
  test.each([
    ['missing params', rpcRequest('tasks/send', undefined, 'p'), ''],
    ['params as an array', rpcRequest('tasks/send', [1], 'p'), ''],
    ['a message without parts', send({ id: 't', message: { role: 'user' } }), '/message'],
    ['a message with zero parts', send({ id: 't', message: { role: 'user', parts: [] } }), '/message/parts'],
    ['an unknown part type', send({ id: 't', message: { role: 'user', parts: [{ type: 'image', text: 'x' }] } }), '/message/parts/0'],
    ['a part without a type', send({ id: 't', message: { role: 'user', parts: [{ text: 'x' }] } }), '/message/parts/0'],
    ['a text part without text', send({ id: 't', message: { role: 'user', parts: [{ type: 'text' }] } }), '/message/parts/0'],
    [
      'a file with both bytes and uri',
      send({ id: 't', message: { role: 'user', parts: [{ type: 'file', file: { bytes: 'aGk=', uri: 'https://x/y' } }] } }),
      '/message/parts/0/file',
    ],
    ['a role other than user/agent', send({ id: 't', message: { role: 'system', parts: [text('x')] } }), '/message/role'],
    ['a non-string task id', send({ id: 12, message: { role: 'user', parts: [text('x')] } }), '/id'],
    ['a missing task id', send({ message: { role: 'user', parts: [text('x')] } }), ''],
    ['a negative historyLength', send({ id: 't', historyLength: -1, message: { role: 'user', parts: [text('x')] } }), '/historyLength'],
    ['a fractional historyLength', send({ id: 't', historyLength: 1.5, message: { role: 'user', parts: [text('x')] } }), '/historyLength'],
    ['a string historyLength', send({ id: 't', historyLength: '3', message: { role: 'user', parts: [text('x')] } }), '/historyLength'],
    ['tasks/get with a numeric id', rpcRequest('tasks/get', { id: 3 }, 'p'), '/id'],
    ['tasks/get with a negative historyLength', rpcRequest('tasks/get', { id: 'x', historyLength: -2 }, 'p'), '/historyLength'],
    ['tasks/cancel without id', rpcRequest('tasks/cancel', {}, 'p'), ''],
    ['tasks/resubscribe with a non-string id', rpcRequest('tasks/resubscribe', { id: true }, 'p'), '/id'],
  ])('%s', async (_, body, path) => {
    const response = await call(body);
    expect(response).toMatchObject({ id: 'p', error: { code: -32602 } });
    const issues = response.error.data as { path: string; message: string; keyword: string }[];
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]!.path).toBe(path);
    expect(typeof issues[0]!.message).toBe('string');
  });

  test('the same rules hold on tasks/sendSubscribe, answered as JSON, not as a stream', async () => {
    const res = await request(app)
      .post('/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(rpcRequest('tasks/sendSubscribe', { id: 't', message: { role: 'user', parts: [] } }, 's')));
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ id: 's', error: { code: -32602 } });
  });

  test('unknown extra properties that real clients send are accepted', async () => {
    const response = await call(
      send({
        id: 'extras',
        sessionId: '8f01f3d172cd4396a0e535ae8aec6687',
        acceptedOutputModes: ['text'],
        message: { role: 'user', parts: [{ type: 'text', text: 'hi', extra: 1 }], messageId: 'm1' },
      }),
    );
    expect(resultOf(response).status.state).toBe('completed');
  });

  test.each([
    ['a data part holding an array', { type: 'data', data: [1, 2, 3] }],
    ['a data part holding an object', { type: 'data', data: { a: 1 } }],
    ['a file by uri', { type: 'file', file: { uri: 'https://example.com/a.png', mimeType: 'image/png' } }],
    ['a file by bytes', { type: 'file', file: { bytes: 'aGk=', name: 'hi.txt' } }],
    ['a file reference with neither', { type: 'file', file: { name: 'earlier.pdf' } }],
  ])('%s is accepted', async (_, part) => {
    const response = await call(send({ id: `ok-${JSON.stringify(part).length}`, message: { role: 'user', parts: [part] } }));
    expect(resultOf(response).status.state).toBe('completed');
  });

  test('null sessionId and historyLength are accepted as "not given"', async () => {
    const response = await call(send({ id: 'nulls', sessionId: null, historyLength: null, message: { role: 'user', parts: [text('x')] } }));
    const task = resultOf(response);
    expect(typeof task.sessionId).toBe('string');
    expect(task).not.toHaveProperty('history');
  });
});

describe('push notification methods while push notifications are off', () => {
  test.each([
    ['tasks/pushNotification/set', { id: 'x', pushNotificationConfig: { url: 'https://example.com/hook' } }],
    ['tasks/pushNotification/get', { id: 'x' }],
    ['tasks/pushNotification/get with bad params', { nonsense: true }],
  ])('%s → -32003', async (method, params) => {
    const response = await call(rpcRequest(method.split(' ')[0]!, params, 'push'));
    expect(response).toMatchObject({ id: 'push', error: { code: -32003 } });
  });

  test('a tasks/send carrying a push config is refused (-32003) rather than silently dropped', async () => {
    const response = await call(
      send({ id: 'with-push', message: { role: 'user', parts: [text('x')] }, pushNotification: { url: 'https://example.com/hook' } }),
    );
    expect(response.error.code).toBe(-32003);
    expect((await call(rpcRequest('tasks/get', { id: 'with-push' }))).error.code).toBe(-32001);
  });
});

describe('task ids must be well-formed Unicode (they are store keys)', () => {
  test.each(['\ud800', '\udbff', 'a\udc00b', '\udc00\ud800'])('%j is -32602 on every method', async (id) => {
    for (const body of [
      send({ id, message: { role: 'user', parts: [text('x')] } }),
      rpcRequest('tasks/get', { id }, 'p'),
      rpcRequest('tasks/cancel', { id }, 'p'),
      rpcRequest('tasks/sendSubscribe', { id, message: { role: 'user', parts: [text('x')] } }, 'p'),
    ]) {
      const response = await call(body);
      expect(response.error).toMatchObject({ code: -32602, data: [{ path: '/id', keyword: 'wellFormed' }] });
    }
  });

  test('well-formed ids with U+FFFD or astral characters are their own tasks', async () => {
    for (const id of ['\ufffd', '\ud83d\ude00', 'plain']) {
      expect(resultOf(await call(send({ id, message: { role: 'user', parts: [text(id)] } }))).id).toBe(id);
    }
  });
});
