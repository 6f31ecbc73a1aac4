import request from 'supertest';
import { collect, listen, openStream } from 'a2a-testing';
import { completed, failed, type TaskHandler } from '../src/index.js';
import { appWith, eventually, memoryLogger, request as rpcRequest, sendRequest, userText } from './helpers.js';

async function post(app: Parameters<typeof request>[0], body: unknown) {
  return request(app).post('/').set('Content-Type', 'application/json').send(JSON.stringify(body));
}

const calls = (lines: Record<string, unknown>[]) => lines.filter((l) => l.msg === 'a2a call');

describe('logging', () => {
  test('one structured line per call: method, task id, duration, outcome', async () => {
    const { logger, lines } = memoryLogger();
    const { app } = appWith(async () => completed(), { logger });
    await post(app, sendRequest('logged', 'x', {}, 'r1'));
    await post(app, rpcRequest('tasks/get', { id: 'missing' }, 'r2'));
    await post(app, rpcRequest('tasks/nope', {}, 'r3'));
    const logged = calls(lines());
    expect(logged).toHaveLength(3);
    expect(logged[0]).toMatchObject({ level: 30, component: 'a2a', method: 'tasks/send', rpcId: 'r1', taskId: 'logged', outcome: 'ok' });
    expect(typeof logged[0]!.durationMs).toBe('number');
    expect(logged[1]).toMatchObject({ method: 'tasks/get', taskId: 'missing', outcome: 'error', code: -32001 });
    expect(logged[2]).toMatchObject({ method: 'tasks/nope', outcome: 'error', code: -32601 });
  });

  test("each call's line names the task it is about, wherever its version's params name it (a config id is not a task id)", async () => {
    const { logger, lines } = memoryLogger();
    const { app } = appWith(async () => completed(), { logger, pushNotifications: { allowlist: ['127.0.0.1'] } });
    const task = (await post(app, sendRequest('named', 'x'))).body.result as { id: string; sessionId: string };
    const v1 = (method: string, params: unknown) =>
      request(app).post('/v1').set('a2a-version', '1.0').set('Content-Type', 'application/json').send(rpcRequest(method, params));
    const v03 = (method: string, params: unknown) =>
      request(app).post('/v0.3').set('Content-Type', 'application/json').send(rpcRequest(method, params));
    await v1('GetTaskPushNotificationConfig', { taskId: task.id, id: 'some-config' });
    await v1('DeleteTaskPushNotificationConfig', { taskId: task.id, id: 'some-config' });
    await v1('ListTaskPushNotificationConfigs', { taskId: task.id });
    await v1('SendMessage', { message: { messageId: 'm-1', role: 'ROLE_USER', taskId: task.id, parts: [{ text: 'again' }] } });
    await v03('message/send', {
      message: { kind: 'message', messageId: 'm-2', role: 'user', taskId: task.id, parts: [{ kind: 'text', text: 'again' }] },
    });
    await v03('tasks/pushNotificationConfig/set', { taskId: task.id, pushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } });
    const logged = calls(lines()).slice(1);
    expect(logged.map((line) => [line.method, line.taskId])).toEqual([
      ['GetTaskPushNotificationConfig', task.id],
      ['DeleteTaskPushNotificationConfig', task.id],
      ['ListTaskPushNotificationConfigs', task.id],
      ['SendMessage', task.id],
      ['message/send', task.id],
      ['tasks/pushNotificationConfig/set', task.id],
    ]);
  });

  test('a streaming call is logged once, when its stream ends, with the events it sent', async () => {
    const { logger, lines } = memoryLogger();
    const server = await listen(appWith(async () => completed('fine'), { logger }).app);
    await collect(await openStream(server.url, 'tasks/sendSubscribe', { id: 'streamed', message: userText('x') }));
    const line = await eventually(async () => calls(lines()).find((l) => l.method === 'tasks/sendSubscribe'));
    expect(line).toMatchObject({ taskId: 'streamed', outcome: 'ok', stream: 'ended', events: 2 });
    expect(calls(lines())).toHaveLength(1);
    await server.close();
  });

  test('an internal error is logged with its details, which never reach the client', async () => {
    const { logger, lines } = memoryLogger();
    const { app } = appWith(
      async () => {
        throw new Error('connection string postgres://u:p@db');
      },
      { logger },
    );
    const res = await post(app, sendRequest('err', 'x'));
    expect(JSON.stringify(res.body)).not.toContain('postgres://');
    const line = lines().find((l) => l.msg === 'handler failed') as { err: { message: string }; taskId: string };
    expect(line).toMatchObject({ level: 50, taskId: 'err' });
    expect(line.err.message).toContain('postgres://');
  });

  test('file bytes, push tokens and credentials are redacted from what a handler logs', async () => {
    const { logger, lines } = memoryLogger();
    const handler: TaskHandler = async (ctx) => {
      ctx.logger.info(
        {
          message: ctx.message,
          pushNotification: { url: 'https://hook', token: 'tok-123', authentication: { schemes: ['Bearer'], credentials: 'cred-456' } },
        },
        'received',
      );
      return completed();
    };
    const { app } = appWith(handler, { logger });
    const bytes = Buffer.from('top secret file contents').toString('base64');
    await post(
      app,
      rpcRequest('tasks/send', { id: 'files', message: { role: 'user', parts: [{ type: 'file', file: { name: 'a.txt', bytes } }] } }),
    );
    const all = JSON.stringify(lines());
    expect(all).not.toContain(bytes);
    expect(all).not.toContain('tok-123');
    expect(all).not.toContain('cred-456');
    const received = lines().find((l) => l.msg === 'received') as {
      message: { parts: { file: { bytes: string; name: string } }[] };
      taskId: string;
    };
    expect(received.taskId).toBe('files');
    expect(received.message.parts[0]!.file).toEqual({ name: 'a.txt', bytes: `[${bytes.length} base64 characters]` });
  });

  test("request headers logged by the host through the router's logger lose their secrets", async () => {
    const { logger, lines } = memoryLogger();
    const handler: TaskHandler = async (ctx) => {
      ctx.logger.info({ headers: { authorization: 'Bearer abc.def.ghi', 'x-api-key': 'k-1', accept: 'json' } }, 'headers');
      return failed();
    };
    await post(appWith(handler, { logger }).app, sendRequest('h', 'x'));
    const line = lines().find((l) => l.msg === 'headers') as { headers: Record<string, string> };
    expect(line.headers).toEqual({ authorization: '[redacted]', 'x-api-key': '[redacted]', accept: 'json' });
  });
});
