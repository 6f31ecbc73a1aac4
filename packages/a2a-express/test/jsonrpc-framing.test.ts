import request from 'supertest';
import { completed, type TaskHandler } from '../src/index.js';
import { appWith, expectOneOf, request as rpcRequest, resultOf, sendRequest } from './helpers.js';

const done: TaskHandler = async () => completed('done');
const { app } = appWith(done);

function post(body: unknown, contentType = 'application/json') {
  return request(app)
    .post('/')
    .set('Content-Type', contentType)
    .send(typeof body === 'string' ? body : JSON.stringify(body));
}

describe('JSON-RPC framing', () => {
  test('malformed JSON is -32700 with id null', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expectOneOf(res.body);
  });

  test('an empty body is -32700', async () => {
    const res = await post('');
    expect(res.body.error.code).toBe(-32700);
  });

  test.each([
    ['a number', 42],
    ['a string', '"tasks/send"'],
    ['null', null],
    ['an empty object', {}],
    ['no jsonrpc member', { id: 1, method: 'tasks/get', params: { id: 'x' } }],
    ['a wrong jsonrpc version', { jsonrpc: '1.0', id: 1, method: 'tasks/get', params: { id: 'x' } }],
    ['a non-string method', { jsonrpc: '2.0', id: 1, method: 5, params: {} }],
    ['a missing method', { jsonrpc: '2.0', id: 1, params: {} }],
    ['an id that is an object', { jsonrpc: '2.0', id: { a: 1 }, method: 'tasks/get', params: { id: 'x' } }],
    ['params that are a string', { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: 'x' }],
  ])('%s is -32600 with details', async (_, body) => {
    const res = await post(body === null ? 'null' : typeof body === 'number' ? String(body) : body);
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(-32600);
    expect(Array.isArray(res.body.error.data)).toBe(true);
    expectOneOf(res.body);
  });

  test('an invalid request echoes a usable id, and null when the id is unusable', async () => {
    expect((await post({ jsonrpc: '1.0', id: 7, method: 'tasks/get' })).body.id).toBe(7);
    expect((await post({ jsonrpc: '2.0', id: [1], method: 'tasks/get' })).body.id).toBeNull();
  });

  test('an empty batch is a single -32600', async () => {
    const res = await post([]);
    expect(res.body).toMatchObject({ id: null, error: { code: -32600, data: { reason: 'an empty batch' } } });
  });

  test('a batch is served: one response per request with an id, in order', async () => {
    const res = await post([
      rpcRequest('tasks/get', { id: 'missing' }, 'a'),
      sendRequest('batch-task', 'hi', {}, 'b'),
      { jsonrpc: '2.0', method: 'tasks/get', params: { id: 'missing' } }, // a notification
      42,
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(3);
    expect(res.body[0]).toMatchObject({ id: 'a', error: { code: -32001 } });
    expect(res.body[1]).toMatchObject({ id: 'b', result: { id: 'batch-task', status: { state: 'completed' } } });
    expect(res.body[2]).toMatchObject({ id: null, error: { code: -32600 } });
    res.body.forEach(expectOneOf);
  });

  test('a batch may not hold a streaming method (-32004) or more than maxBatchSize requests', async () => {
    const streaming = await post([
      rpcRequest('tasks/sendSubscribe', { id: 's', message: { role: 'user', parts: [{ type: 'text', text: 'x' }] } }, 1),
    ]);
    expect(streaming.body[0]).toMatchObject({ id: 1, error: { code: -32004 } });
    const { app: small } = appWith(done, { maxBatchSize: 2 });
    const tooMany = await request(small)
      .post('/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify([1, 2, 3].map((i) => rpcRequest('tasks/get', { id: 'x' }, i))));
    expect(tooMany.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  test('a batch of notifications only is answered 204 with no body', async () => {
    const res = await post([{ jsonrpc: '2.0', method: 'tasks/get', params: { id: 'x' } }]);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  test('an unknown method is -32601 with its id', async () => {
    const res = await post(rpcRequest('tasks/foo', {}, 'req-9'));
    expect(res.body).toMatchObject({ id: 'req-9', error: { code: -32601, data: { method: 'tasks/foo' } } });
  });

  test('a method name from Object.prototype is -32601, not a crash', async () => {
    const res = await post(rpcRequest('constructor', {}, 3));
    expect(res.body.error.code).toBe(-32601);
  });

  test.each([0, 42, -7, 1.5, 'abc', '', 'req-001', null])('id %p is echoed exactly', async (id) => {
    const res = await post(rpcRequest('tasks/get', { id: 'nope' }, id));
    expect(res.body.id).toStrictEqual(id);
    expectOneOf(res.body);
  });

  test('a successful response carries result and no error', async () => {
    const res = await post(sendRequest('framing-ok', 'hello', {}, 5));
    expect(res.body.id).toBe(5);
    expect(resultOf(res.body).status.state).toBe('completed');
    expect(res.body).not.toHaveProperty('error');
  });

  test('a notification (no id) is run and answered 204 with no body', async () => {
    const res = await post({
      jsonrpc: '2.0',
      method: 'tasks/send',
      params: { id: 'notified', message: { role: 'user', parts: [{ type: 'text', text: 'x' }] } },
    });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const got = await post(rpcRequest('tasks/get', { id: 'notified' }));
    expect(resultOf(got.body).status.state).toBe('completed');
  });

  test('a body that is not application/json is refused with 415 and -32600', async () => {
    const res = await post(sendRequest('t', 'x'), 'text/plain');
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ id: null, error: { code: -32600 } });
  });

  test('application/json with a charset is accepted', async () => {
    const res = await post(sendRequest('charset', 'x'), 'application/json; charset=utf-8');
    expect(resultOf(res.body).id).toBe('charset');
  });

  test.each(['get', 'put', 'delete'] as const)('%s on the endpoint is 405 with Allow: POST', async (verb) => {
    const res = await request(app)[verb]('/');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body.error.code).toBe(-32600);
  });
});
