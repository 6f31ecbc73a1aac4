// CORS from a real browser: headless Chromium opens a page on one origin that calls an agent on
// another, as a browser client, a hosted inspector or a card registry does. The agent allows the
// page's origin (option `cors`): the page reads the card with its ETag, sends a message (a
// preflighted POST with A2A-Version), and reads a streamed answer to its end. A page of an origin
// not named can read none of it. The same on the Express router, the node:http listener and the
// fetch handler (on Hono), which share the edge.
import express from 'express';
import { serve as serveFetch } from '@hono/node-server';
import type { Browser } from 'playwright-core';
import { completed, artifact, working, type A2ARouterOptions, type TaskHandler } from 'a2a-express';
import { a2aRouter } from 'a2a-express';
import { a2aFetchHandler } from 'a2a-express/fetch';
import { a2aNodeHandler } from 'a2a-express/node';
import { launchChromium } from 'a2a-testing/browser';
import { serverPool } from 'a2a-testing';
import { pino } from 'pino';

const { serve, closeAll } = serverPool();
let browser: Browser;
/** A page's origin that the agents allow, and one they do not. */
let allowedPage: string;
let otherPage: string;
const closers: (() => Promise<void>)[] = [];

const handler: TaskHandler = async function* () {
  yield working('on it');
  for (const word of ['one', 'two', 'three']) yield artifact(`${word} `, { append: word !== 'one' });
  yield completed('done');
};

/** A page with nothing on it, on a loopback port of its own: its origin is what the test needs. */
const blankPage = () => serve((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>page</title>'));

beforeAll(async () => {
  browser = await launchChromium();
  const [allowed, other] = await Promise.all([blankPage(), blankPage()]);
  allowedPage = allowed!.url;
  otherPage = other!.url;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all(closers.map((close) => close()));
  await closeAll();
});

/** The agent with CORS for `allowedPage`, on each server; its URL on `localhost` (another origin than the pages' 127.0.0.1). */
const edges: [string, (options: A2ARouterOptions) => Promise<string>][] = [
  [
    'Express',
    async (options) => {
      const router = a2aRouter(handler, options);
      closers.push(() => router.close());
      return onLocalhost((await serve(express().use(router))).url);
    },
  ],
  [
    'node:http',
    async (options) => {
      const agent = a2aNodeHandler(handler, options);
      closers.push(() => agent.close());
      return onLocalhost((await serve(agent)).url);
    },
  ],
  [
    'fetch (Hono)',
    async (options) => {
      const agent = a2aFetchHandler(handler, options);
      const server = await new Promise<ReturnType<typeof serveFetch>>((resolve) => {
        const started = serveFetch({ fetch: (request) => agent(request), port: 0, hostname: '127.0.0.1' }, () => resolve(started));
      });
      closers.push(async () => {
        await agent.close();
        await new Promise((resolve) => server.close(resolve));
      });
      const { port } = server.address() as { port: number };
      return `http://localhost:${port}`;
    },
  ],
];

const onLocalhost = (url: string) => url.replace('127.0.0.1', 'localhost');

/** What a page of `origin` can do with the agent at `agentUrl`, as the page's own script reports it. */
async function fromPage(origin: string, agentUrl: string) {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(async (agent) => {
      const outcome = async <T>(run: () => Promise<T>) => {
        try {
          return { ok: true as const, value: await run() };
        } catch (error) {
          return { ok: false as const, error: String(error) };
        }
      };
      const card = await outcome(async () => {
        const response = await fetch(`${agent}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
        return { name: ((await response.json()) as { name: string }).name, etag: response.headers.get('ETag') };
      });
      const message = { role: 'ROLE_USER', messageId: crypto.randomUUID(), parts: [{ text: 'hello' }] };
      const send = await outcome(async () => {
        const response = await fetch(`${agent}/v1/message:send`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
          body: JSON.stringify({ message }),
        });
        return ((await response.json()) as { task: { status: { state: string } } }).task.status.state;
      });
      const stream = await outcome(async () => {
        const response = await fetch(`${agent}/v1/message:stream`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'text/event-stream' },
          body: JSON.stringify({ message: { ...message, messageId: crypto.randomUUID() } }),
        });
        const text = await response.text();
        return text.split('\n\n').filter((block) => block.startsWith('data: ')).length;
      });
      return { card, send, stream };
    }, agentUrl);
  } finally {
    await page.close();
  }
}

describe.each(edges)('CORS on %s, from a real Chromium page', (_edge, start) => {
  let agentUrl: string;
  beforeAll(async () => {
    agentUrl = await start({
      card: { name: 'Cross-origin', version: '1.0.0' },
      logger: pino({ level: 'silent' }),
      cors: { origins: [allowedPage] },
    });
  });

  test('a page of an allowed origin reads the card (its ETag exposed), sends a message after the preflight, and reads a stream to its end', async () => {
    const seen = await fromPage(allowedPage, agentUrl);
    expect(seen.card).toEqual({ ok: true, value: { name: 'Cross-origin', etag: expect.stringMatching(/^"/) } });
    expect(seen.send).toEqual({ ok: true, value: 'TASK_STATE_COMPLETED' });
    // The task, its working status, three chunks, its completion.
    expect(seen.stream).toEqual({ ok: true, value: 6 });
  }, 30_000);

  test('a page of any other origin can read nothing: the browser keeps every answer from it', async () => {
    const seen = await fromPage(otherPage, agentUrl);
    expect(seen.card.ok).toBe(false);
    expect(seen.send.ok).toBe(false);
    expect(seen.stream.ok).toBe(false);
  }, 30_000);

  test('the preflight: the origin, the verbs and the headers asked for are allowed, for a while; another origin is refused', async () => {
    const preflight = (origin: string) =>
      fetch(`${agentUrl}/v1/message:send`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,a2a-version' },
      });
    const allowed = await preflight(allowedPage);
    expect(allowed.status).toBe(204);
    expect(Object.fromEntries(allowed.headers)).toMatchObject({
      'access-control-allow-origin': allowedPage,
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': 'content-type,a2a-version',
      'access-control-max-age': '600',
      vary: 'Origin, Access-Control-Request-Headers',
    });
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const refused = await preflight(otherPage);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});

test('CORS is off by default, and never any origin with credentials', async () => {
  const router = a2aRouter(handler, { card: { name: 'Closed', version: '1.0.0' }, logger: pino({ level: 'silent' }) });
  closers.push(() => router.close());
  const { url } = await serve(express().use(router));
  const card = await fetch(`${url}/.well-known/agent-card.json`, { headers: { Origin: allowedPage } });
  expect(card.status).toBe(200);
  expect(card.headers.get('access-control-allow-origin')).toBeNull();
  expect(() => a2aRouter(handler, { card: { name: 'x', version: '1' }, cors: { origins: '*', credentials: true } })).toThrow(
    /cannot allow credentials from any origin/,
  );
});
