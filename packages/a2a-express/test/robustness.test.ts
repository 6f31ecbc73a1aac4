import express from 'express';
import http from 'node:http';
import request from 'supertest';
import { listen, postJson, rpc, type RunningServer } from 'a2a-testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { a2aRouter, completed, textOf, type TaskHandler } from '../src/index.js';
import { appWith, resultOf, sendRequest, silent, testCard } from './helpers.js';

const echo: TaskHandler = async (ctx) => completed(textOf(ctx.message));

/** POSTs a body of `size` bytes with a raw socket, reporting what came back (or how it closed). */
function postHuge(url: string, size: number): Promise<{ status?: number; body: string; error?: string }> {
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': size } });
    let settled = false;
    const done = (value: { status?: number; body: string; error?: string }) => {
      if (!settled) {
        settled = true;
        resolve(value);
      }
    };
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => done({ status: res.statusCode, body }));
      res.on('error', () => done({ status: res.statusCode, body }));
    });
    req.on('error', (error) => done({ body: '', error: (error as NodeJS.ErrnoException).code ?? error.message }));
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('hostile and unusual input', () => {
  let server: RunningServer;
  beforeAll(async () => (server = await listen(appWith(echo).app)));
  afterAll(() => server.close());

  test('a 20 MB body is refused with 413 and -32600, and the server keeps serving', async () => {
    const outcome = await postHuge(server.url, 20 * 1024 * 1024);
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body)).toMatchObject({ id: null, error: { code: -32600 } });
    expect(
      resultOf(await rpc(server.url, 'tasks/send', { id: 'after-huge', message: { role: 'user', parts: [{ type: 'text', text: 'ok' }] } }))
        .status.state,
    ).toBe('completed');
  });

  test('deeply nested JSON is -32600 and does not crash the process', async () => {
    const depth = 100_000;
    const nested = `{"jsonrpc":"2.0","id":1,"method":"tasks/send","params":{"id":"deep","message":{"role":"user","parts":[{"type":"text","text":"x"}],"metadata":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}}}`;
    const res = await postJson(server.url, nested);
    expect(await res.json()).toMatchObject({ id: null, error: { code: -32600, data: { reason: 'JSON nested deeper than 100 levels' } } });
    expect((await rpc(server.url, 'tasks/get', { id: 'deep' })).error?.code).toBe(-32001);
  });

  test('nesting within the limit is accepted and kept intact', async () => {
    let value: unknown = 'leaf';
    for (let i = 0; i < 90; i++) value = { v: value };
    const res = await rpc(server.url, 'tasks/send', { id: 'nested-ok', message: { role: 'user', parts: [{ type: 'data', data: value }] } });
    expect(resultOf(res).status.state).toBe('completed');
    const task = resultOf(await rpc(server.url, 'tasks/get', { id: 'nested-ok', historyLength: 2 }));
    expect(task.history?.[0]?.parts[0]).toEqual({ type: 'data', data: value });
  });

  test('200 concurrent tasks/send calls each get their own correct answer', async () => {
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        rpc(
          server.url,
          'tasks/send',
          { id: `c-${i}`, message: { role: 'user', parts: [{ type: 'text', text: `message ${i}` }] } },
          { id: i },
        ),
      ),
    );
    responses.forEach((response, i) => {
      expect(response.id).toBe(i);
      const task = resultOf(response);
      expect(task.id).toBe(`c-${i}`);
      expect(task.status.message?.parts).toEqual([{ type: 'text', text: `message ${i}` }]);
    });
  });

  test('GET on the RPC endpoint is a 4xx', async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

describe('bodies the host app already read', () => {
  function hostApp(parser: express.RequestHandler) {
    const app = express();
    app.use(parser);
    app.use(a2aRouter(echo, { card: testCard, logger: silent }));
    return app;
  }

  test('works after express.json()', async () => {
    const res = await request(hostApp(express.json())).post('/').send(sendRequest('parsed', 'hello'));
    expect(resultOf(res.body).status.message?.parts).toEqual([{ type: 'text', text: 'hello' }]);
  });

  test('works after express.text({ type: "*/*" })', async () => {
    const res = await request(hostApp(express.text({ type: '*/*' })))
      .post('/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(sendRequest('as-text', 'hi there')));
    expect(resultOf(res.body).status.message?.parts).toEqual([{ type: 'text', text: 'hi there' }]);
  });

  test('req.body: the parsed request once the router read it; what the host left, when the host read it', async () => {
    // A host middleware that looks at req.body once the response is done (a request logger).
    const seen: unknown[] = [];
    const appWithLogger = (parser?: express.RequestHandler) => {
      const app = express();
      app.use((req, res, next) => {
        res.on('finish', () => seen.push(req.body));
        next();
      });
      if (parser) app.use(parser);
      app.use(a2aRouter(echo, { card: testCard, logger: silent }));
      return app;
    };
    const body = JSON.stringify(sendRequest('read-by-router', 'x'));
    await request(appWithLogger()).post('/').set('Content-Type', 'application/json').send(body);
    // Not the raw bytes: a small Buffer would pin an 8 KiB pool slab for as long as a stream is open.
    expect(seen[0]).toEqual(JSON.parse(body));
    await request(appWithLogger(express.text({ type: '*/*' })))
      .post('/')
      .set('Content-Type', 'application/json')
      .send(body);
    expect(seen[1]).toBe(body);
  });

  test('reports malformed JSON itself when the host read the body as text', async () => {
    const res = await request(hostApp(express.text({ type: '*/*' })))
      .post('/')
      .set('Content-Type', 'application/json')
      .send('{oops');
    expect(res.body).toMatchObject({ id: null, error: { code: -32700 } });
  });

  test("mounted under a path, next to the host's own routes", async () => {
    const app = express();
    app.get('/health', (_req, res) => void res.send('ok'));
    app.use('/a2a', a2aRouter(echo, { card: testCard, logger: silent }));
    expect((await request(app).get('/health')).text).toBe('ok');
    const res = await request(app)
      .post('/a2a')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(sendRequest('mounted', 'x')));
    expect(resultOf(res.body).id).toBe('mounted');
  });
});

describe('options', () => {
  test('bodyLimit is configurable', async () => {
    const { app } = appWith(echo, { bodyLimit: 200 });
    const res = await request(app)
      .post('/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(sendRequest('big', 'x'.repeat(500))));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe(-32600);
  });

  test('maxJsonDepth is configurable', async () => {
    const { app } = appWith(echo, { maxJsonDepth: 5 });
    const res = await request(app)
      .post('/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(sendRequest('d', 'x', { metadata: { a: { b: { c: {} } } } })));
    expect(res.body.error).toMatchObject({ code: -32600 });
  });

  test.each([
    ['sendWaitMs', 0],
    ['maxBatchSize', -1],
    ['heartbeatMs', 1.5],
  ])('an invalid %s is a TypeError when the router is made', (name, value) => {
    expect(() => a2aRouter(echo, { card: testCard, [name]: value })).toThrow(new RegExp(`options.${name}`));
  });

  test('a missing handler or card is a TypeError', () => {
    expect(() => a2aRouter(undefined as never, { card: testCard })).toThrow(TypeError);
    expect(() => a2aRouter(echo, {} as never)).toThrow(/options.card/);
  });

  test('close() aborts running handlers', async () => {
    let signal: AbortSignal | undefined;
    const { app, router } = appWith(
      async (ctx) => {
        signal = ctx.signal;
        await sleep(10_000, undefined, { signal: ctx.signal }).catch(() => undefined);
        return completed();
      },
      { sendWaitMs: 10 },
    );
    await request(app)
      .post('/')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(sendRequest('closing', 'x')));
    await router.close();
    expect(signal?.aborted).toBe(true);
  });
});
