// The client in a web page: a2a-client's main entry bundled for the browser (Bun's bundler, which
// refuses a Node builtin for that target) and run in headless Chromium, a runtime with no Node
// builtins, no `process`, no `Buffer`. The page, on one origin, calls an agent on another (an
// a2aRouter with CORS on for the page's origin) with every version and HTTP binding: 0.1.0 and
// 0.3 over JSON-RPC, 1.0 over JSON-RPC and HTTP+JSON, a message sent and one streamed to its end
// each, through an interceptor of the page's that adds the agent's API key (so the agent answers
// only what came through it).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { a2aRouter, apiKey, artifact, completed, working } from 'a2a-express';
import { pino } from 'pino';
import { launchChromium } from 'a2a-testing/browser';
import { serverPool } from 'a2a-testing';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { serve, closeAll } = serverPool();
let browser: Browser;
let page: Page;
let outDir: string;
let bundle: string;
let agentUrl: string;
let closeRouter: () => Promise<void>;
/** The header each call reached the agent with, as its authorize hook saw it. */
const arrived: { protocol: string; binding: string; fromPage: string }[] = [];

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'a2a-client-bundle-'));
  await promisify(execFile)(
    join(root, 'node_modules/.bin/bun'),
    ['build', 'test/fixtures/client-in-browser/entry.mjs', '--target=browser', '--format=esm', `--outfile=${join(outDir, 'bundle.js')}`],
    { cwd: root },
  );
  bundle = await readFile(join(outDir, 'bundle.js'), 'utf8');
  const site = await serve((req, res) => {
    if (req.url === '/bundle.js') res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(bundle);
    else res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>orchestrator</title>');
  });
  const router = a2aRouter(
    async function* (ctx) {
      yield working('on it');
      yield artifact('echo: ');
      yield artifact(ctx.message.parts.map((p) => ('text' in p ? p.text : '')).join(''), { append: true });
      yield completed('done');
    },
    {
      card: { name: 'Called from a page', version: '1.0.0' },
      logger: pino({ level: 'silent' }),
      cors: { origins: [site!.url] },
      auth: {
        strategies: [apiKey({ keys: { 'page-key': 'the page' } })],
        authorize: ({ origin, headers }) => {
          arrived.push({ protocol: origin.protocol, binding: origin.binding, fromPage: String(headers['x-from-page']) });
          return true;
        },
      },
    },
  );
  closeRouter = () => router.close();
  // The agent on localhost, the page on 127.0.0.1: two origins, so every call is cross-origin.
  agentUrl = (await serve(express().use(router)))!.url.replace('127.0.0.1', 'localhost');
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(site!.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await closeRouter?.();
  await closeAll();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

test('the bundle carries none of Node’s modules, nor gRPC', () => {
  expect(bundle).not.toMatch(/\b(require|import)\s*\(?\s*["']node:/);
  // Named in an error's words (what to install for gRPC), never loaded.
  expect(bundle).not.toMatch(/\b(require|import)\s*\(?\s*["']@grpc\//);
  expect(bundle).toContain('A2AClient10');
});

test('in a page, the client reads the cards and sends and streams over 0.1.0, 0.3 and 1.0 (JSON-RPC and HTTP+JSON), each call through its interceptor', async () => {
  arrived.length = 0;
  const result = await page.evaluate(async (agent) => {
    const bundlePath: string = '/bundle.js'; // the page's, which TypeScript does not know
    const kit = await import(bundlePath);
    const seen: string[] = [];
    const interceptors = [
      {
        before(call: { method: string; binding: string; protocolVersion: string; headers: Record<string, string> }) {
          call.headers['x-api-key'] = 'page-key';
          call.headers['x-from-page'] = call.method;
          seen.push(`${call.protocolVersion} ${call.binding} ${call.method}`);
        },
      },
    ];
    const texts = (parts: { text?: string }[] = []) => parts.map((p) => p.text ?? '').join('');
    const out: Record<string, unknown> = {
      runtime: {
        process: typeof (globalThis as { process?: unknown }).process,
        buffer: typeof (globalThis as { Buffer?: unknown }).Buffer,
      },
    };

    const v01 = new kit.A2AClient(agent, { interceptors });
    const task01 = await v01.send({ id: crypto.randomUUID(), message: { role: 'user', parts: [{ type: 'text', text: 'hello 0.1' }] } });
    const events01: string[] = [];
    for await (const { event } of v01.sendSubscribe({
      id: crypto.randomUUID(),
      message: { role: 'user', parts: [{ type: 'text', text: 'stream 0.1' }] },
    }))
      events01.push('status' in event ? event.status.state : 'artifact');
    out['0.1.0'] = { state: task01.status.state, text: texts(task01.artifacts?.[0]?.parts), events: events01 };

    const v03 = new kit.A2AClient03(agent, { interceptors });
    const message03 = (text: string) => ({
      kind: 'message',
      messageId: crypto.randomUUID(),
      role: 'user',
      parts: [{ kind: 'text', text }],
    });
    const task03 = await v03.sendMessage({ message: message03('hello 0.3') });
    const events03: string[] = [];
    for await (const { event } of v03.streamMessage({ message: message03('stream 0.3') })) events03.push(event.kind);
    out['0.3'] = { state: task03.status.state, text: texts(task03.artifacts?.[0]?.parts), events: events03 };

    for (const binding of ['JSONRPC', 'HTTP+JSON']) {
      const v10 = new kit.A2AClient10(agent, { interceptors, preferredBinding: binding });
      const message10 = (text: string) => ({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] });
      const { task } = await v10.sendMessage({ message: message10(`hello 1.0 ${binding}`) });
      const events10: string[] = [];
      for await (const { event } of v10.streamMessage({ message: message10('stream 1.0') })) events10.push(Object.keys(event)[0]!);
      let refused = '';
      try {
        await new kit.A2AClient10(agent, { preferredBinding: binding }).getTask({ id: task.id });
      } catch (error) {
        refused = `${(error as Error).name}`;
      }
      out[`1.0 ${binding}`] = { state: task.status.state, text: texts(task.artifacts?.[0]?.parts), events: events10, refused };
    }
    out.seen = seen;
    return out;
  }, agentUrl);

  expect(result.runtime).toEqual({ process: 'undefined', buffer: 'undefined' });
  // Each stream read to its end: its chunks, and its last event the task's completion.
  const ended = (events: string[], chunk: string, last: string) => events.filter((e) => e === chunk).length === 2 && events.at(-1) === last;
  const v01 = result['0.1.0'] as { state: string; text: string; events: string[] };
  expect({ ...v01, events: ended(v01.events, 'artifact', 'completed') }).toEqual({
    state: 'completed',
    text: 'echo: hello 0.1',
    events: true,
  });
  const v03 = result['0.3'] as { state: string; text: string; events: string[] };
  expect(v03.events[0]).toBe('task');
  expect({ ...v03, events: ended(v03.events, 'artifact-update', 'status-update') }).toEqual({
    state: 'completed',
    text: 'echo: hello 0.3',
    events: true,
  });
  for (const binding of ['JSONRPC', 'HTTP+JSON']) {
    const v10 = result[`1.0 ${binding}`] as { state: string; text: string; events: string[]; refused: string };
    expect(v10.events[0]).toBe('task');
    expect({ ...v10, events: ended(v10.events, 'artifactUpdate', 'statusUpdate') }).toEqual({
      state: 'TASK_STATE_COMPLETED',
      text: `echo: hello 1.0 ${binding}`,
      events: true,
      // Without the interceptor, no key: the agent refuses the call.
      refused: expect.stringMatching(/^(JsonRpcError|HttpError)$/),
    });
  }
  expect(result.seen).toEqual([
    '0.1.0 JSONRPC tasks/send',
    '0.1.0 JSONRPC tasks/sendSubscribe',
    '0.3 HTTP agent card',
    '0.3 JSONRPC message/send',
    '0.3 JSONRPC message/stream',
    '1.0 HTTP agent card',
    '1.0 JSONRPC SendMessage',
    '1.0 JSONRPC SendStreamingMessage',
    '1.0 HTTP agent card',
    '1.0 HTTP+JSON SendMessage',
    '1.0 HTTP+JSON SendStreamingMessage',
  ]);
  // What the page's interceptor wrote is what the agent got, over every version and binding.
  expect(arrived.map((a) => `${a.protocol} ${a.binding} ${a.fromPage}`)).toEqual([
    '0.1.0 jsonrpc tasks/send',
    '0.1.0 jsonrpc tasks/sendSubscribe',
    '0.3 jsonrpc message/send',
    '0.3 jsonrpc message/stream',
    '1.0 jsonrpc SendMessage',
    '1.0 jsonrpc SendStreamingMessage',
    '1.0 rest SendMessage',
    '1.0 rest SendStreamingMessage',
  ]);
}, 30_000);
