// The fetch handler on Cloudflare Workers' runtime: workerd (the npm package carries the binary)
// runs a Worker made of a2a-express/fetch, bundled by Bun's bundler as a Worker's bundler would
// bundle it (test/fixtures/fetch-in-workerd/worker.mjs: the agent made in the module's global
// scope, the in-memory store). workerd forbids code generation from strings, which the request
// validators were once compiled with, and timers and random values in the global scope, where an
// agent is made. It listens on 127.0.0.1 on a port of its choosing, which it reports on a pipe;
// the agent is called over real HTTP: its cards, 0.1.0 `tasks/send`, 1.0 JSON-RPC `SendMessage`,
// a refused request's issues, and a stream.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The workerd binary itself (the package's bin is a Node script that runs it as a child). */
const WORKERD: string = createRequire(import.meta.url)('workerd').default;

const CONFIG = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "agent", worker = .agentWorker) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "agent") ],
);
const agentWorker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2026-01-01",
);
`;

// biome-ignore lint/suspicious/noExplicitAny: JSON the expectations read
type Json = Record<string, any>;

let outDir: string;
let workerd: ChildProcess | undefined;
/** What workerd printed (the agent's logs, and its own errors), shown when it does not start. */
let printed = '';
let base: string;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'a2a-workerd-'));
  await promisify(execFile)(
    join(root, 'node_modules/.bin/bun'),
    ['build', 'test/fixtures/fetch-in-workerd/worker.mjs', '--target=browser', '--format=esm', `--outfile=${join(outDir, 'worker.js')}`],
    { cwd: root },
  );
  await writeFile(join(outDir, 'config.capnp'), CONFIG);
  // Descriptor 3 is the control pipe: workerd writes there, as JSON lines, the port each socket listens on.
  const child = spawn(WORKERD, ['serve', 'config.capnp', '--control-fd=3'], { cwd: outDir, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  workerd = child;
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    let control = '';
    const timer = setTimeout(() => reject(new Error(`workerd did not listen within 20 s:\n${printed}`)), 20_000);
    child.once('exit', (code) => reject(new Error(`workerd exited (${code}):\n${printed}`)));
    child.stdio[3]!.on('data', (chunk: Buffer) => {
      control += chunk;
      for (const line of control.split('\n').slice(0, -1)) {
        const message = JSON.parse(line) as { event: string; socket: string; port: number };
        if (message.event === 'listen' && message.socket === 'http') {
          clearTimeout(timer);
          resolve(message.port);
        }
      }
    });
  });
  base = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  if (workerd && workerd.exitCode === null && workerd.signalCode === null) {
    const exited = once(workerd, 'exit');
    workerd.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(resolve, 5_000, false))),
    ]);
    clearTimeout(timer);
    if (!stopped) {
      workerd.kill('SIGKILL');
      await exited;
    }
  }
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

async function rpc(path: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

test('workerd serves the agent’s cards: 0.1.0’s, and 1.0’s with the URL it was reached at', async () => {
  const card01 = await fetch(`${base}/.well-known/agent.json`, { signal: AbortSignal.timeout(10_000) });
  expect(card01.status).toBe(200);
  expect(await card01.json()).toMatchObject({ name: 'Worker Echo', version: '1.0.0', url: `${base}/`, capabilities: { streaming: true } });
  const card10 = await fetch(`${base}/.well-known/agent-card.json`, {
    headers: { 'A2A-Version': '1.0' },
    signal: AbortSignal.timeout(10_000),
  });
  expect(card10.status).toBe(200);
  expect(card10.headers.get('ETag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  const body = (await card10.json()) as Json;
  expect(body).toMatchObject({ name: 'Worker Echo', description: 'Echoes text from a Worker', version: '1.0.0' });
  expect(body.supportedInterfaces).toEqual(
    expect.arrayContaining([expect.objectContaining({ protocolBinding: 'JSONRPC', url: `${base}/v1` })]),
  );
});

test('a 0.1.0 tasks/send is answered with the finished task; a refused one with the issues the schema names', async () => {
  const sent = await rpc('/', 'tasks/send', { id: 'task-01', message: { role: 'user', parts: [{ type: 'text', text: 'hello' }] } });
  expect(sent.status).toBe(200);
  expect(sent.body.result).toMatchObject({
    id: 'task-01',
    status: { state: 'completed' },
    artifacts: [
      {
        name: 'echo',
        parts: [
          { type: 'text', text: 'he' },
          { type: 'text', text: 'llo' },
        ],
      },
    ],
  });
  // The message of an `x-errorMessage` rule: the generated code keeps the schema beside each error.
  const both = { type: 'file', file: { bytes: 'aGk=', uri: 'https://files.example/f' } };
  const refused = await rpc('/', 'tasks/send', { id: 'task-02', message: { role: 'user', parts: [both] } });
  expect(refused.body.error).toMatchObject({
    code: -32602,
    data: [{ path: '/message/parts/0/file', message: 'must not have both bytes and uri', keyword: 'not' }],
  });
});

test('a 1.0 JSON-RPC SendMessage is answered with the task, its artifact whole', async () => {
  const message = { messageId: 'm-10', role: 'ROLE_USER', parts: [{ text: 'over 1.0' }] };
  const sent = await rpc('/v1', 'SendMessage', { message }, { 'A2A-Version': '1.0' });
  expect(sent.status).toBe(200);
  expect(sent.body.result.task).toMatchObject({
    status: { state: 'TASK_STATE_COMPLETED' },
    artifacts: [{ name: 'echo', parts: [{ text: 'ov' }, { text: 'er 1.0' }] }],
  });
  const refused = await rpc('/v1', 'SendMessage', { message: { ...message, role: 'ROLE_ROBOT' } }, { 'A2A-Version': '1.0' });
  expect(refused.body.error).toMatchObject({
    code: -32602,
    data: expect.arrayContaining([
      expect.objectContaining({ fieldViolations: [expect.objectContaining({ field: '/message/role', reason: 'enum' })] }),
    ]),
  });
});

test('a 1.0 SendStreamingMessage streams the task, its updates and the final status over SSE, to the end', async () => {
  const response = await fetch(`${base}/v1`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'm-stream', role: 'ROLE_USER', parts: [{ text: 'streamed' }] } },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const events = (await response.text())
    .split('\n\n')
    .filter((block) => block.includes('data:'))
    .map((block) => JSON.parse(block.slice(block.indexOf('data:') + 5)));
  expect(events.every((event) => event.jsonrpc === '2.0' && event.id === 7)).toBe(true);
  const results = events.map((event) => event.result);
  expect(Object.keys(results[0])).toEqual(['task']);
  expect(results.filter((result) => 'artifactUpdate' in result).map((result) => result.artifactUpdate.artifact.parts)).toEqual([
    [{ text: 'st' }],
    [{ text: 'reamed' }],
  ]);
  expect(results.at(-1).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
});
