// The fetch handler where only Web APIs are: a2a-express/fetch bundled for the browser (Bun's
// bundler, which refuses a Node builtin for that target) and run in headless Chromium, a runtime
// with no Node builtins, no `process`, no `Buffer`. In the page: an agent answers its cards and
// JSON-RPC calls, streams, signs its cards with a key Web Crypto made there, and delivers signed
// push notifications with fetch; Node checks from outside what it sent (the signatures against
// the keys the page's agent serves). Cloudflare Workers' runtime: fetch-handler-in-workerd.test.ts.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { createPushNotificationVerifier } from 'a2a-push-receiver';
import { verifyCardSignature } from 'a2a-client';
import { launchChromium } from 'a2a-testing/browser';
import { serverPool } from 'a2a-testing';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { serve, closeAll } = serverPool();
let browser: Browser;
let page: Page;
let outDir: string;
let bundle: string;
/** What the page's webhook was sent: the notifications, as a receiver reads them. */
const notifications: { headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
let webhookUrl: string;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'a2a-browser-bundle-'));
  await promisify(execFile)(
    join(root, 'node_modules/.bin/bun'),
    ['build', 'test/fixtures/fetch-in-browser/entry.mjs', '--target=browser', '--format=esm', `--outfile=${join(outDir, 'bundle.js')}`],
    { cwd: root },
  );
  bundle = await readFile(join(outDir, 'bundle.js'), 'utf8');
  const site = await serve((req, res) => {
    if (req.url === '/bundle.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle);
    else res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>agent</title>');
  });
  // A webhook on another origin: the page's fetch asks it first (CORS), as a browser does.
  const webhook = await serve((req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Headers', '*, Authorization');
    if (req.method !== 'POST') return void res.writeHead(204).end();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      notifications.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end();
    });
  });
  webhookUrl = `${webhook!.url}/hook`;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(site!.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await closeAll();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

test('the bundle carries none of Node’s modules: what is Node’s is asked of the runtime, not imported', () => {
  expect(bundle).not.toMatch(/\b(require|import)\s*\(?\s*["']node:/);
  // Node's push delivery names its builtins for process.getBuiltinModule, which a page has not.
  expect(bundle).toContain('getBuiltinModule');
});

test('in a page with no Node, the agent serves its card and answers, and streams, over JSON-RPC', async () => {
  const result = await page.evaluate(async () => {
    const bundlePath: string = '/bundle.js'; // the page's, which TypeScript does not know
    const kit = await import(bundlePath);
    const agent = kit.a2aFetchHandler(
      async function* () {
        yield kit.working('thinking');
        yield kit.artifact('hello ');
        yield kit.artifact('world', { append: true });
        yield kit.completed('done');
      },
      { card: { name: 'Page Agent', version: '1.0.0', url: 'https://agent.example/' } },
    );
    const card = await agent(new Request('https://agent.example/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } }));
    const post = (method: string, params: object, accept = 'application/json') =>
      agent(
        new Request('https://agent.example/v0.3', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: accept },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        }),
      );
    const message = { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hi' }] };
    const sent = await (await post('message/send', { message })).json();
    const streamed = await (
      await post('message/stream', { message: { ...message, messageId: crypto.randomUUID() } }, 'text/event-stream')
    ).text();
    await agent.close();
    return {
      runtime: {
        process: typeof (globalThis as { process?: unknown }).process,
        buffer: typeof (globalThis as { Buffer?: unknown }).Buffer,
      },
      card: { status: card.status, etag: card.headers.get('ETag'), body: await card.json() },
      sent,
      streamed,
    };
  });
  expect(result.runtime).toEqual({ process: 'undefined', buffer: 'undefined' });
  expect(result.card.status).toBe(200);
  expect(result.card.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  expect(result.card.body).toMatchObject({ name: 'Page Agent', version: '1.0.0' });
  expect(result.sent.result).toMatchObject({
    kind: 'task',
    status: { state: 'completed' },
    artifacts: [
      {
        parts: [
          { kind: 'text', text: 'hello ' },
          { kind: 'text', text: 'world' },
        ],
      },
    ],
  });
  expect(result.sent.result.history[0].messageId).toMatch(/^[0-9a-f-]{36}$/);
  const events = result.streamed
    .split('\n\n')
    .filter((block: string) => block.includes('data:'))
    .map((block: string) => JSON.parse(block.slice(block.indexOf('data:') + 5)).result);
  expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
});

test('in the page, cards are signed with a key Web Crypto made there; Node verifies them against the served keys', async () => {
  const { card, jwks } = await page.evaluate(async () => {
    const bundlePath: string = '/bundle.js'; // the page's, which TypeScript does not know
    const kit = await import(bundlePath);
    const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as {
      privateKey: Parameters<typeof crypto.subtle.exportKey>[1];
    };
    const privateKey = await crypto.subtle.exportKey('jwk', pair.privateKey);
    const agent = kit.a2aFetchHandler(async () => kit.completed('signed'), {
      card: { name: 'Signing Agent', version: '1.0.0', url: 'https://agent.example/' },
      cardSigning: { privateKey, kid: 'page-key' },
    });
    const get = async (path: string) =>
      (await agent(new Request(`https://agent.example${path}`, { headers: { 'A2A-Version': '1.0' } }))).json();
    const answer = { card: await get('/.well-known/agent-card.json'), jwks: await get('/.well-known/jwks.json') };
    await agent.close();
    return answer;
  });
  expect(jwks.keys).toEqual([expect.objectContaining({ kid: 'page-key', kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' })]);
  expect(jwks.keys[0]).not.toHaveProperty('d');
  expect(await verifyCardSignature(card, { keys: jwks })).toEqual({ signed: true, valid: true, kid: 'page-key' });
});

test('in the page, push notifications go out with fetch, signed with an RSA key Web Crypto made, in order', async () => {
  const jwks = await page.evaluate(async (url) => {
    const bundlePath: string = '/bundle.js'; // the page's, which TypeScript does not know
    const kit = await import(bundlePath);
    const agent = kit.a2aFetchHandler(
      async function* () {
        yield kit.working('step 1');
        yield kit.completed('done');
      },
      { card: { name: 'Pushing Agent', version: '1.0.0' }, pushNotifications: { allowlist: ['127.0.0.1'] } },
    );
    (globalThis as { pushingAgent?: unknown }).pushingAgent = agent;
    await agent(
      new Request('https://agent.example/', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tasks/send',
          params: {
            id: 'pushed',
            message: { role: 'user', parts: [{ type: 'text', text: 'go' }] },
            pushNotification: { url, token: 'tok' },
          },
        }),
      }),
    );
    return (await agent(new Request('https://agent.example/.well-known/jwks.json'))).json();
  }, webhookUrl);
  expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig' })]);
  for (let wait = 0; notifications.length < 3 && wait < 200; wait++) await new Promise((resolve) => setTimeout(resolve, 25));
  await page.evaluate(() => (globalThis as { pushingAgent?: { close(): Promise<void> } }).pushingAgent?.close());
  // The receiver reads the page agent's keys as a webhook does: from a JWKS URL.
  const keys = await serve((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(jwks)));
  const verifier = createPushNotificationVerifier({ jwksUrl: keys!.url, expectedToken: 'tok' });
  const states = [];
  for (const notification of notifications) states.push((await verifier.verify(notification)).payload.status.state);
  expect(states).toEqual(['working', 'working', 'completed']);
});
