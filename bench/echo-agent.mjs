// What the bench's scripts share about the echo agent: how to start it as `pnpm start` runs it,
// the request each version sends it (run.mjs section 9, shipped-ab.mjs, dispatch.mjs), and for
// the A/B and profiling tools (shipped-ab.mjs, where-time-goes.mjs) how to start a bench server,
// pin it to a CPU and load it; and how section 9 and bench:shipped --streams read a stream.
// dispatch.mjs's children import this for `sends` alone: nothing here runs or loads at import.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';

/** CPU time (user and system) a process has used, in microseconds; Linux only. */
export function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** The header every A2A 1.0 call carries (both our endpoint and the SDK's refuse a call without it). */
export const VERSION_HEADERS_10 = { 'a2a-version': '1.0' };

/**
 * The send of each version, request number `n`, with `text`: a stream when `stream` is true (0.1.0
 * streams a text starting with "stream", as the bench server's handler reads it).
 */
export const sends = {
  '0.1.0': (n, text) => ({
    jsonrpc: '2.0',
    id: n,
    method: text.startsWith('stream') ? 'tasks/sendSubscribe' : 'tasks/send',
    params: { id: `v-${n}-${process.pid}`, message: { role: 'user', parts: [{ type: 'text', text }] } },
  }),
  0.3: (n, text, stream) => ({
    jsonrpc: '2.0',
    id: n,
    method: stream ? 'message/stream' : 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: `v-${n}`, parts: [{ kind: 'text', text }] } },
  }),
  '1.0 JSON-RPC': (n, text, stream) => ({
    jsonrpc: '2.0',
    id: n,
    method: stream ? 'SendStreamingMessage' : 'SendMessage',
    params: { message: { messageId: `v-${n}`, role: 'ROLE_USER', parts: [{ text }] } },
  }),
  '1.0 HTTP+JSON': (n, text) => ({ message: { messageId: `v-${n}`, role: 'ROLE_USER', parts: [{ text }] } }),
};

/** Where each of `sends`' versions is below the echo agent's mount. */
export const SEND_PATHS = { '0.1.0': '', 0.3: '/v0.3', '1.0 JSON-RPC': '/v1', '1.0 HTTP+JSON': '/v1/message:send' };

/**
 * Starts a checkout's echo agent as `pnpm start` runs it (`node dist/server.js`, logs at info to a
 * stdout that is read and discarded) on a free port; resolves once it says it listens.
 * `prefix` goes before node (`taskset -c 1`, say); `execArgv` after it (`--cpu-prof`, say);
 * `script` starts another form of the agent (bench/servers/echo-without.mjs), with `env` added.
 */
export function startEchoAgent(
  root,
  { prefix = [], execArgv = [], script = `${root}/apps/echo-agent/dist/server.js`, env = {}, runtime = process.execPath, cwd } = {},
) {
  const [command, ...argv] = [...prefix, runtime, ...execArgv, script];
  const child = spawn(command, argv, {
    cwd,
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk) => {
      text += chunk;
      const line = text.split('\n').find((l) => /"msg":"[^"]*listening/.test(l));
      if (!line) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      resolve({ child, url: JSON.parse(line).url.replace(/\/$/, '') });
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${root}: the echo agent exited with ${code}: ${text}`)));
  });
}

let cpu1Prefix;

/** What puts a process on CPU 1, where this machine has taskset (empty where it has not). */
export function onCpu1() {
  cpu1Prefix ??= spawnSync('taskset', ['-V']).status === 0 ? ['taskset', '-c', '1'] : [];
  return cpu1Prefix;
}

/**
 * Keeps this process (the load) on CPU 0, where this machine has taskset: otherwise the scheduler
 * moves it onto CPU 1 at times, and the agent measured then shares its CPU with its own load.
 */
export function loadOnCpu0() {
  if (onCpu1().length > 0) spawnSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
}

/**
 * Starts a bench server script (bench/servers/*.mjs, which reports its port to its parent), with
 * `env` added to this process's; resolves once it listens. It answers 0.1.0's tasks/send at its
 * root (`atRoot`).
 */
export function startBenchServer(script, { prefix = [], execArgv = [], env = {} } = {}) {
  const [command, ...argv] = [...prefix, process.execPath, ...execArgv, script];
  const child = spawn(command, argv, { env: { ...process.env, ...env, PORT: '0' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', ({ port }) => resolve({ child, url: `http://127.0.0.1:${port}`, atRoot: true }));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

let sent = 0;

/**
 * `seconds` of request/response load on a server started above, 32 connections, each request a
 * new task of `kind` (a name of `sends`); autocannon's result. Any failed request throws.
 */
export async function loadWith(server, kind, seconds) {
  const { default: autocannon } = await import('autocannon');
  const result = await autocannon({
    url: server.url + (server.atRoot ? '' : SEND_PATHS[kind]),
    connections: 32,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...VERSION_HEADERS_10 },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(sends[kind](++sent, 'hello, echo')) }),
      },
    ],
  });
  if (result.errors + result.non2xx > 0) throw new Error(`${kind}: ${result.errors + result.non2xx} requests failed`);
  return result;
}

/** Streams read so far by this process: their message ids are `v-stream-<n>`, apart from the sends'. */
let streamed = 0;

/**
 * Reads one SSE response to its end, handing each frame to `onFrame`. It scans from a position
 * and cuts the buffer once per chunk: cutting it after every frame made the reader quadratic in
 * the chunk size, and with a server that writes a tick's events in one chunk the reader, not the
 * server, set the pace.
 */
export function readFrames(options, body, onFrame) {
  return new Promise((resolve, reject) => {
    const req = http.request(options, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        buffer += chunk;
        let start = 0;
        let end;
        while ((end = buffer.indexOf('\n\n', start)) >= 0) {
          onFrame(buffer.slice(start, end));
          start = end + 2;
        }
        buffer = buffer.slice(start);
      });
      res.on('end', resolve);
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * One stream of `chunks` chunks, read to its end: its data events counted, its chunks checked in
 * order. `target` is `{ version, streamUrl, headers }`, `version` a name of `sends`; the server's
 * handler streams "stream N" as N chunks "chunk 1" to "chunk N" (bench/servers/a2a.mjs, sdk.mjs).
 */
export async function versionStream(target, chunks) {
  const url = new URL(target.streamUrl);
  const body = JSON.stringify(sends[target.version](`stream-${++streamed}`, `stream ${chunks}`, true));
  const options = {
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...target.headers },
  };
  let events = 0;
  let last = 0;
  let ordered = true;
  await readFrames(options, body, (frame) => {
    if (!frame.includes('data:')) return;
    events++;
    const n = /chunk (\d+)"/.exec(frame);
    if (!n) return;
    if (Number(n[1]) !== last + 1) ordered = false;
    last = Number(n[1]);
  });
  return { events, whole: ordered && last === chunks };
}

/** `count` streams of `chunks` chunks, `concurrency` at a time: data events per second (`rps`) and in all. */
export async function versionStreams(target, count, chunks, concurrency) {
  let whole = true;
  let events = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const one = await versionStream(target, chunks);
        events += one.events;
        whole &&= one.whole;
      }
    }),
  );
  return { rps: events / ((performance.now() - started) / 1000), whole, events };
}
