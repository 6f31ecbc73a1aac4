// Retries where they are safe, against a real agent (a2aRouter on loopback): a read asked again
// after its connection drops (a proxy in this file that cuts the connection a request arrives
// on) and after a 503 (the agent's own front answers it), as often as the bound says and no
// more; a SendMessage never, unless the caller opts in, and then with the same message and an
// Idempotency-Key equal to its messageId.
import net from 'node:net';
import express from 'express';
import { a2aRouter, completed } from 'a2a-express';
import { pino } from 'pino';
import { serverPool } from 'a2a-testing';
import { A2AClient03, A2AClient10, HttpError, NetworkError } from '../src/index.js';

const { serve, closeAll } = serverPool();
let agentUrl: string;
let closeRouter: () => Promise<void>;
/** How many of the next matching requests the agent's front answers 503, and what it saw. */
const unavailable = { reads: 0, sends: 0 };
const seen: { path: string; idempotencyKey: string | undefined; status: number }[] = [];

beforeAll(async () => {
  const router = a2aRouter(
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
