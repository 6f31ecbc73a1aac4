// Retries where they are safe, against a real agent (a2aRouter on loopback): a read asked again
// after its connection drops (a proxy in this file that cuts the connection a request arrives
// on) and after a 503 (the agent's own front answers it), as often as the bound says and no
// more; a SendMessage never, unless the caller opts in, and then with the same message and an
// Idempotency-Key equal to its messageId. Over gRPC the same on UNAVAILABLE: a card lists the
// agent's gRPC interface at a port where nothing listens until the client has seen a read fail.
import net from 'node:net';
import express from 'express';
import { a2aRouter, completed } from 'a2a-express';
import { pino } from 'pino';
import { serverPool } from 'a2a-testing';
import { A2AClient03, A2AClient10, HttpError, NetworkError } from '../src/index.js';
import { type GrpcCallStart, grpcTransport } from '../src/grpc.js';

const { serve, closeAll } = serverPool();
let agentUrl: string;
let closeRouter: () => Promise<void>;
let router: ReturnType<typeof a2aRouter>;
const grpcClosers: (() => Promise<void>)[] = [];
/** How many of the next matching requests the agent's front answers 503, and what it saw. */
const unavailable = { reads: 0, sends: 0 };
const seen: { path: string; idempotencyKey: string | undefined; status: number }[] = [];

beforeAll(async () => {
  router = a2aRouter(
    async function* () {
      yield completed('done');
    },
    { card: { name: 'Flaky', version: '1.0.0' }, logger: pino({ level: 'silent' }) },
  );
  closeRouter = () => router.close();
  const app = express();
  app.use((req, res, next) => {
    const isRead = req.method === 'GET' && /\/tasks\/[^/]+$/.test(req.path);
    const isSend = req.method === 'POST' && req.path.endsWith('/message:send');
    const refuse = (isRead && unavailable.reads > 0 && unavailable.reads--) || (isSend && unavailable.sends > 0 && unavailable.sends--);
    if (isRead || isSend)
      res.on('finish', () => seen.push({ path: req.path, idempotencyKey: req.get('idempotency-key'), status: res.statusCode }));
    if (refuse) {
      res.status(503).type('text').send('busy');
      return;
    }
    next();
  });
  agentUrl = (await serve(app.use(router)))!.url;
});
afterAll(async () => {
  for (const close of grpcClosers) await close();
  await closeRouter();
  await closeAll();
});

/**
 * A TCP proxy that cuts the connection the next `drops` requests arrive on (their first bytes
 * never reach the agent), whichever pooled connection they come over.
 */
async function cuttingProxy(target: string) {
  const state = { drops: 0, cut: 0 };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(new URL(target).port), '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
    upstream.pipe(client);
    client.on('data', (chunk) => {
      if (state.drops > 0) {
        state.drops--;
        state.cut++;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return { url, state, close };
}

const message10 = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });
const message03 = (text: string) => ({
  message: { kind: 'message' as const, messageId: crypto.randomUUID(), role: 'user' as const, parts: [{ kind: 'text' as const, text }] },
});
const fast = { backoffMs: 1 };

test('a read whose connection drops is asked again, at most `retries` times', async () => {
  const proxy = await cuttingProxy(agentUrl);
  try {
    const direct = new A2AClient03(agentUrl);
    const card = await direct.getCard();
    const task = (await direct.sendMessage(message03('hi'))) as { id: string };
    const client = A2AClient03.fromCard({ ...card, url: card.url.replace(agentUrl, proxy.url) }, { retry: fast });

    proxy.state.drops = 1;
    await expect(client.getTask({ id: task.id })).resolves.toMatchObject({ id: task.id });
    expect(proxy.state.cut).toBe(1);

    // The card too.
    proxy.state.drops = 2;
    await expect(new A2AClient10(proxy.url, { retry: fast }).getCard()).resolves.toHaveProperty('name', 'Flaky');
    expect(proxy.state.cut).toBe(3);

    // Bounded: a connection that always drops fails after the first try and two retries.
    proxy.state.drops = 100;
    await expect(client.getTask({ id: task.id })).rejects.toBeInstanceOf(NetworkError);
    expect(proxy.state.cut).toBe(3 + 3);

    // Off: one try.
    proxy.state.drops = 1;
    const noRetries = A2AClient03.fromCard({ ...card, url: card.url.replace(agentUrl, proxy.url) }, { retry: false });
    await expect(noRetries.getTask({ id: task.id })).rejects.toBeInstanceOf(NetworkError);
    expect(proxy.state.cut).toBe(7);
  } finally {
    await proxy.close();
  }
});

test('a read answered 503 is asked again, as often as the bound says', async () => {
  const client = new A2AClient10(agentUrl, { preferredBinding: 'HTTP+JSON', retry: { retries: 3, ...fast } });
  const sent = await client.sendMessage(message10('hi'));
  const id = 'task' in sent ? sent.task!.id : '';
  seen.length = 0;
  unavailable.reads = 2;
  await expect(client.getTask({ id })).resolves.toHaveProperty('id', id);
  expect(seen.map((s) => s.status)).toEqual([503, 503, 200]);

  seen.length = 0;
  unavailable.reads = 10;
  const error = await client.getTask({ id }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HttpError);
  expect((error as HttpError).status).toBe(503);
  expect(seen.map((s) => s.status)).toEqual([503, 503, 503, 503]);
  unavailable.reads = 0;
});

test('a SendMessage answered 503 is not sent again unless asked; asked, it goes again with the same messageId as its Idempotency-Key', async () => {
  const plain = new A2AClient10(agentUrl, { preferredBinding: 'HTTP+JSON', retry: fast });
  seen.length = 0;
  unavailable.sends = 1;
  await expect(plain.sendMessage(message10('once'))).rejects.toMatchObject({ status: 503 });
  expect(seen).toEqual([{ path: expect.stringMatching(/message:send$/), idempotencyKey: undefined, status: 503 }]);

  const optedIn = new A2AClient10(agentUrl, { preferredBinding: 'HTTP+JSON', retry: { sendMessage: true, ...fast } });
  seen.length = 0;
  unavailable.sends = 1;
  const request = message10('again');
  await expect(optedIn.sendMessage(request)).resolves.toHaveProperty('task');
  expect(seen.map((s) => [s.status, s.idempotencyKey])).toEqual([
    [503, request.message.messageId],
    [200, request.message.messageId],
  ]);
});

test('a caller who aborts while the client waits to retry is answered at once, with the abort, and nothing more is sent', async () => {
  const client = new A2AClient10(agentUrl, {
    preferredBinding: 'HTTP+JSON',
    retry: { retries: 3, backoffMs: 600_000, maxBackoffMs: 600_000 },
  });
  const sent = await client.sendMessage(message10('hi'));
  const id = 'task' in sent ? sent.task!.id : '';
  seen.length = 0;
  unavailable.reads = 10;
  const caller = new AbortController();
  const read = client.getTask({ id }, { signal: caller.signal }).catch((e: unknown) => e);
  // The first answer (503) is in: the client now waits ten minutes before it asks again.
  for (let poll = 0; poll < 200 && seen.length === 0; poll++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(seen.map((s) => s.status)).toEqual([503]);
  caller.abort(new Error('the caller gave up'));
  expect(await read).toEqual(new Error('the caller gave up'));
  expect(seen).toHaveLength(1);
  unavailable.reads = 0;
});

// ---- gRPC: UNAVAILABLE ------------------------------------------------------------------------

/** A loopback port nothing listens on (one the system gave and took back). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A card of the agent's that lists its gRPC interface at `port` only. */
async function cardListingGrpcAt(port: number): Promise<string> {
  const card = (await (await fetch(`${agentUrl}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as Record<
    string,
    unknown
  >;
  card.supportedInterfaces = [{ url: `127.0.0.1:${port}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }];
  return (await serve(express().get('/.well-known/agent-card.json', (_req, res) => res.json(card))))!.url;
}

/** A task of the agent's, made over HTTP+JSON. */
async function aTask(): Promise<string> {
  const sent = await new A2AClient10(agentUrl, { preferredBinding: 'HTTP+JSON' }).sendMessage(message10('hi'));
  return 'task' in sent ? sent.task!.id : '';
}

test('over gRPC, a read answered UNAVAILABLE is asked again, at most `retries` times; off, once', async () => {
  const stub = await cardListingGrpcAt(await freePort());
  const id = await aTask();
  const starts: GrpcCallStart[] = [];
  const client = new A2AClient10(stub, {
    preferredBinding: 'GRPC',
    grpc: grpcTransport({ observe: (call) => void starts.push(call) }),
    retry: { retries: 2, ...fast },
  });
  try {
    const error = await client.getTask({ id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(starts.map((call) => call.path)).toEqual(Array(3).fill('/lf.a2a.v1.A2AService/GetTask'));
  } finally {
    client.close();
  }
  starts.length = 0;
  const once = new A2AClient10(stub, {
    preferredBinding: 'GRPC',
    grpc: grpcTransport({ observe: (call) => void starts.push(call) }),
    retry: false,
  });
  try {
    await expect(once.getTask({ id })).rejects.toBeInstanceOf(NetworkError);
    expect(starts).toHaveLength(1);
  } finally {
    once.close();
  }
});

test('over gRPC, a read that failed UNAVAILABLE before the agent listened succeeds on a retry once it does', async () => {
  const port = await freePort();
  const stub = await cardListingGrpcAt(port);
  const id = await aTask();
  const { serveGrpc } = await import('a2a-express/grpc');
  const outcomes: string[] = [];
  let serving: Promise<unknown> | undefined;
  const client = new A2AClient10(stub, {
    preferredBinding: 'GRPC',
    grpc: grpcTransport({
      observe: () => ({
        end: (status) => {
          outcomes.push(status.name);
          // The first failure seen: the agent's gRPC server starts on the port the card lists.
          if (status.name === 'UNAVAILABLE' && !serving) {
            serving = serveGrpc(router, { port, host: '127.0.0.1', agentUrl }).then((server) =>
              grpcClosers.push(() => server.close({ graceMs: 100 })),
            );
          }
        },
      }),
    }),
    // grpc-js waits about a second before it dials again after a refused connection: the bound
    // leaves room for that (attempts at 0, 0.25, 0.75, 1.75 and 3.75 s).
    retry: { retries: 4, backoffMs: 250, maxBackoffMs: 2_000 },
  });
  try {
    await expect(client.getTask({ id })).resolves.toHaveProperty('id', id);
    expect(outcomes[0]).toBe('UNAVAILABLE');
    expect(outcomes.at(-1)).toBe('OK');
  } finally {
    client.close();
    await serving;
  }
});

test('over gRPC, a SendMessage answered UNAVAILABLE is not sent again unless asked; asked, it goes again with its messageId as idempotency-key', async () => {
  const stub = await cardListingGrpcAt(await freePort());
  const starts: GrpcCallStart[] = [];
  const transport = grpcTransport({ observe: (call) => void starts.push(call) });
  const plain = new A2AClient10(stub, { preferredBinding: 'GRPC', grpc: transport, retry: fast });
  try {
    await expect(plain.sendMessage(message10('once'))).rejects.toBeInstanceOf(NetworkError);
    expect(starts).toHaveLength(1);
    expect(starts[0]!.metadata['idempotency-key']).toBeUndefined();
  } finally {
    plain.close();
  }
  starts.length = 0;
  const optedIn = new A2AClient10(stub, { preferredBinding: 'GRPC', grpc: transport, retry: { sendMessage: true, retries: 2, ...fast } });
  const request = message10('again');
  try {
    await expect(optedIn.sendMessage(request)).rejects.toBeInstanceOf(NetworkError);
    expect(starts.map((call) => call.metadata['idempotency-key'])).toEqual(Array(3).fill(request.message.messageId));
  } finally {
    optedIn.close();
  }
});
