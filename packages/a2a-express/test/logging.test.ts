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
