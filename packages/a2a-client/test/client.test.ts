import express from 'express';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { droppingProxy, serverPool, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { isStatusUpdateEvent, type TaskArtifactUpdateEvent, type TextPart } from 'a2a-types';
import {
  A2AClient,
  HttpError,
  InvalidResponseError,
  JsonRpcError,
  NetworkError,
  TimeoutError,
  readSse,
  type Departure,
  type StreamEvent,
} from '../src/index.js';

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

const user = (text: string) => ({ role: 'user' as const, parts: [{ type: 'text' as const, text }] });
const textOfChunks = (events: StreamEvent[]) =>
  events
    .flatMap((e) => ('artifact' in e.event ? (e.event as TaskArtifactUpdateEvent).artifact.parts : []))
    .map((p) => (p as TextPart).text)
    .join('');

/** A closed loopback port: connection refused at once. */
async function closedPort(): Promise<string> {
  const server = await serve((_req, res) => res.end());
  await server.close();
  return server.url;
}

describe('A2AClient against the echo agent', () => {
  test('reads and caches the card', async () => {
    const client = new A2AClient(fast.url);
    const card = await client.getCard();
    expect(card).toMatchObject({ name: 'Echo Agent', capabilities: { streaming: true } });
    expect(await client.getCard()).toBe(card);
  });

  test('send, get with history, and every error as a typed JsonRpcError', async () => {
    const client = new A2AClient(fast.url);
    const task = await client.send({ id: 'c-send', message: user('hello client') });
    expect(task.status.state).toBe('completed');
    const got = await client.get({ id: 'c-send', historyLength: 1 });
    expect(got.history).toHaveLength(1);
    await expect(client.get({ id: 'missing' })).rejects.toMatchObject({
      name: 'JsonRpcError',
      code: -32001,
      message: 'Task not found',
      data: { taskId: 'missing' },
    });
    const invalid = await client.send({ id: 'x', message: { role: 'user', parts: [] } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(JsonRpcError);
    expect((invalid as JsonRpcError).code).toBe(-32602);
    expect((invalid as JsonRpcError).meaning).toBe('Invalid method parameters');
  });

  test('sendSubscribe streams typed events, ending on the final one, chunks assembled', async () => {
    const events: StreamEvent[] = [];
    for await (const e of new A2AClient(fast.url).sendSubscribe({ id: 'c-stream', message: user('one two three four five six') }))
      events.push(e);
    expect(textOfChunks(events)).toBe('one two three four five six');
    const last = events.at(-1)!.event;
    expect(isStatusUpdateEvent(last) && last.final && last.status.state).toBe('completed');
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
  });

  test('a dropped stream is resumed with Last-Event-ID: the missed events arrive, none twice', async () => {
    // A TCP proxy in front of the agent, whose connections the test cuts.
    const proxy = await droppingProxy(slow.url);
    const client = new A2AClient(proxy.url);
    const events: StreamEvent[] = [];
    let dropped = false;
    for await (const e of client.sendSubscribe({ id: 'c-resume', message: user('alpha beta gamma delta epsilon zeta eta theta iota') })) {
      events.push(e);
      if (events.length === 3 && !dropped) {
        dropped = true;
        proxy.dropAll();
      }
    }
    await proxy.close();
    expect(dropped).toBe(true);
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
    expect(textOfChunks(events)).toBe('alpha beta gamma delta epsilon zeta eta theta iota');
    expect(events.at(-1)!.event).toMatchObject({ status: { state: 'completed' }, final: true });
  });

  test('resubscribe from a Last-Event-ID, and cancel of a running task', async () => {
    const client = new A2AClient(slow.url);
    const stream = client.sendSubscribe({ id: 'c-cancel', message: user('a b c d e f g h i j k l') });
    const first = await stream.next();
    await stream.return(undefined);
    const canceled = await client.cancel({ id: 'c-cancel' });
    expect(canceled.status.state).toBe('canceled');
    const rest: StreamEvent[] = [];
    for await (const e of client.resubscribe({ id: 'c-cancel' }, { lastEventId: first.value!.id })) rest.push(e);
    expect(Number(rest[0]!.id)).toBe(Number(first.value!.id) + 1);
    expect(rest.at(-1)!.event).toMatchObject({ status: { state: 'canceled' }, final: true });
    await expect(client.cancel({ id: 'c-cancel' })).rejects.toMatchObject({ code: -32002 });
  });

  test('push notification config: set and get (token masked)', async () => {
    const client = new A2AClient(fast.url);
    await client.send({ id: 'c-push', message: user('x') });
    const hook = await serve(express().post('/hook', (_req, res) => void res.end()));
    const set = await client.setPushNotification({ id: 'c-push', pushNotificationConfig: { url: `${hook.url}/hook`, token: 'secret' } });
    expect(set?.pushNotificationConfig).toEqual({ url: `${hook.url}/hook`, token: '********' });
    expect(await client.getPushNotification({ id: 'c-push' })).toEqual(set);
    // Removed: a null answer; then get says none is set.
    expect(await client.setPushNotification({ id: 'c-push', pushNotificationConfig: null })).toBeNull();
    await expect(client.getPushNotification({ id: 'c-push' })).rejects.toMatchObject({
      code: -32001,
      message: 'Push notification config not found',
    });
  });

  test('custom headers per client and per call; an AbortSignal cancels a call', async () => {
    const seen: (string | undefined)[] = [];
    const echoHeaders = await serve(
      express().post('/', (req, res) => {
        seen.push(`${req.get('x-client')}/${req.get('x-call')}`);
        res.json({ jsonrpc: '2.0', id: JSON.parse('1'), result: null });
      }),
    );
    const client = new A2AClient(echoHeaders.url, { headers: { 'X-Client': 'c' }, validateResponses: false });
    await client.get({ id: 't' }, { headers: { 'X-Call': 'k' } }).catch(() => undefined);
    expect(seen).toEqual(['c/k']);
    const abort = new AbortController();
    abort.abort();
    await expect(new A2AClient(fast.url).get({ id: 't' }, { signal: abort.signal })).rejects.toThrow();
  });
});

test('the README example runs as written', async () => {
  const lines: unknown[][] = [];
  const log = (...args: unknown[]) => void lines.push(args);
  const agent = new A2AClient(fast.url);
  const ask = (text: string) => ({ id: crypto.randomUUID(), message: { role: 'user' as const, parts: [{ type: 'text' as const, text }] } });
  log((await agent.getCard()).skills.map((s) => s.name));
  const task = await agent.send(ask('How much is 100 USD in EUR?'));
  log(task.status.state, task.artifacts?.[0]?.parts);
  for await (const { event } of agent.sendSubscribe(ask('EUR→JPY rate')))
    log('status' in event ? event.status.state : event.artifact.parts);
  try {
    await agent.get({ id: 'nope' });
  } catch (e) {
    if (e instanceof JsonRpcError) log(e.code, e.meaning);
  }
  expect(lines[0]).toEqual([['Echo']]);
  expect(lines[1]![0]).toBe('completed');
  expect(lines.at(-2)).toEqual(['completed']);
  expect(lines.at(-1)).toEqual([-32001, 'Task not found']);
});

describe('A2AClient against broken servers: a clear error, no hang', () => {
  const rpcReply = (reply: (req: express.Request, res: express.Response) => void) =>
    serve(
      express()
        .post('/', express.json(), reply)
        .get('/.well-known/agent.json', (_req, res) => void res.send('<html>not a card</html>')),
    );

  test('an unreachable server is a NetworkError; a server that does not answer, a TimeoutError', async () => {
    await expect(new A2AClient(await closedPort()).get({ id: 't' })).rejects.toBeInstanceOf(NetworkError);
    const silent = await serve(() => undefined);
    await expect(new A2AClient(silent.url, { timeoutMs: 200 }).get({ id: 't' })).rejects.toBeInstanceOf(TimeoutError);
  });

  test('not an A2A server: no card → HttpError; an invalid card → InvalidResponseError with the issues', async () => {
    const plain = await serve(express());
    await expect(new A2AClient(plain.url).getCard()).rejects.toMatchObject({ name: 'HttpError', status: 404 });
    const badCard = await serve(express().get('/.well-known/agent.json', (_req, res) => void res.json({ name: 'x' })));
    await expect(new A2AClient(badCard.url).getCard()).rejects.toMatchObject({
      name: 'InvalidResponseError',
      message: expect.stringMatching(/invalid agent card: .*must have required property/),
    });
  });

  test("validateResponses: 'warn' returns an answer that departs from the schema and reports every departure; 'strict' (the default) refuses it", async () => {
    const untyped = await rpcReply(
      (req, res) =>
        void res.json({
          jsonrpc: '2.0',
          id: req.body.id,
          result: {
            id: req.body.params.id,
            status: { state: 'canceled', message: { role: 'agent', parts: [{ text: 'bye' }] } },
            artifacts: [{ parts: [] }],
          },
        }),
    );
    const departures: Departure[] = [];
    const task = await new A2AClient(untyped.url, { validateResponses: 'warn', onDeparture: (d) => departures.push(d) }).cancel({
      id: 'w1',
    });
    expect(task.status.state).toBe('canceled');
    expect(departures).toEqual([
      {
        what: 'tasks/cancel result',
        issues: [
          expect.objectContaining({ path: '/status/message/parts/0', message: "must have required property 'type'" }),
          expect.objectContaining({ path: '/artifacts/0/parts', message: 'must NOT have fewer than 1 items' }),
        ],
      },
    ]);
    await expect(new A2AClient(untyped.url).cancel({ id: 'w1' })).rejects.toBeInstanceOf(InvalidResponseError);
    expect((await new A2AClient(untyped.url, { validateResponses: 'off' }).cancel({ id: 'w1' })).id).toBe('w1');
    expect(() => new A2AClient(untyped.url, { validateResponses: 'loose' as never })).toThrow(TypeError);
  });

  test('a JSON-RPC error whose data holds another one: both are there (inner)', async () => {
    const wrapped = await rpcReply(
      (req, res) =>
        void res.json({
          jsonrpc: '2.0',
          id: req.body.id,
          error: { code: -32603, message: 'Internal error', data: { code: -32001, message: 'Task not found: x', data: { taskId: 'x' } } },
        }),
    );
    const error = await new A2AClient(wrapped.url).get({ id: 'x' }).catch((e: unknown) => e as JsonRpcError);
    expect(error).toMatchObject({
      code: -32603,
      inner: { code: -32001, message: 'Task not found: x', data: { taskId: 'x' }, meaning: 'Task not found' },
    });
    const plain = await rpcReply(
      (req, res) =>
        void res.json({ jsonrpc: '2.0', id: req.body.id, error: { code: -32001, message: 'Task not found', data: { taskId: 'x' } } }),
    );
    expect(await new A2AClient(plain.url).get({ id: 'x' }).catch((e: JsonRpcError) => e.inner)).toBeUndefined();
  });

  test('the wrong content type', async () => {
    const server = await rpcReply((_req, res) => void res.type('text/html').send('<html>hi</html>'));
    const refused = new A2AClient(server.url).get({ id: 't' });
    await expect(refused).rejects.toMatchObject({
      name: 'NotAnAgentError',
      message: expect.stringMatching(/expected application\/json, got text\/html/),
    });
    await expect(refused).rejects.toBeInstanceOf(InvalidResponseError);
  });

  test('a response for another request id', async () => {
    const server = await rpcReply(
      (req, res) =>
        void res.json({ jsonrpc: '2.0', id: 'someone-else', result: { id: req.body.params.id, status: { state: 'completed' } } }),
    );
    await expect(new A2AClient(server.url).get({ id: 't' })).rejects.toMatchObject({
      name: 'InvalidResponseError',
      message: expect.stringMatching(/does not match request id/),
    });
  });

  test('a result that is not a Task is reported, unless validation is off', async () => {
    const server = await rpcReply((req, res) => void res.json({ jsonrpc: '2.0', id: req.body.id, result: { id: 5 } }));
    await expect(new A2AClient(server.url).get({ id: 't' })).rejects.toBeInstanceOf(InvalidResponseError);
    await expect(new A2AClient(server.url, { validateResponses: false }).get({ id: 't' })).resolves.toEqual({ id: 5 });
  });

  test('invalid JSON in an SSE event, and a stream with the wrong content type', async () => {
    const badEvent = await rpcReply((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata: {"jsonrpc":"2.0", oops\n\n');
    });
    const read = async (url: string) => {
      for await (const e of new A2AClient(url).sendSubscribe({ id: 't', message: user('x') })) void e;
    };
    await expect(read(badEvent.url)).rejects.toMatchObject({ name: 'InvalidResponseError', message: 'a stream event is not valid JSON' });
    const wrongType = await rpcReply((_req, res) => void res.type('text/plain').send('data: hi\n\n'));
    await expect(read(wrongType.url)).rejects.toMatchObject({
      name: 'InvalidResponseError',
      message: expect.stringMatching(/expected text\/event-stream/),
    });
  });

  test('a stream refused with a JSON-RPC error', async () => {
    const server = await rpcReply(
      (req, res) => void res.json({ jsonrpc: '2.0', id: req.body.id, error: { code: -32006, message: 'Streaming is not supported' } }),
    );
    const read = async () => {
      for await (const e of new A2AClient(server.url).sendSubscribe({ id: 't', message: user('x') })) void e;
    };
    await expect(read()).rejects.toMatchObject({ name: 'JsonRpcError', code: -32006 });
  });

  test('an HTTP error without JSON-RPC is an HttpError', async () => {
    const server = await serve(express().post('/', (_req, res) => void res.status(502).type('text/plain').send('bad gateway')));
    await expect(new A2AClient(server.url).get({ id: 't' })).rejects.toBeInstanceOf(HttpError);
  });
});

describe('readSse', () => {
  async function* chunks(...parts: string[]) {
    for (const part of parts) yield new TextEncoder().encode(part);
  }
  test('multi-line data, comments, ids, CRLF and CR, chunks split anywhere', async () => {
    const events = [];
    for await (const e of readSse(
      chunks('\uFEFF: hello\r\nid: 7\r\nevent: message\r\ndata: a', '\r\ndata: b\r', '\n\r\ndata: c\rid: 8\r\r', 'data:no-space\n\n'),
    ))
      events.push(e);
    expect(events).toEqual([
      { id: '7', event: 'message', data: 'a\nb' },
      { id: '8', event: undefined, data: 'c' },
      { id: '8', event: undefined, data: 'no-space' },
    ]);
  });
});
