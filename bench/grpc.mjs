#!/usr/bin/env node
// pnpm bench:grpc [--rounds 6] [--seconds 3] [--in-flight 32] [--chunks 10000] [--calls 40000]
//                 [--only send|saturated|stream] [--against <clone>]
//
// A2A 1.0 over gRPC: the kit's server (bench/servers/a2a.mjs with BENCH_GRPC=1: a2aRouter's echo
// agent, served by a2a-express/grpc) against the official @a2a-js/sdk 1.x server's gRPC service
// (bench/servers/sdk10.mjs with BENCH_GRPC=1, the same work in its executor), each in a child
// process pinned to CPU 1 where taskset exists, the load from this process on the other:
//   - SendMessage: `--in-flight` calls at once for `--seconds`, each a new task; calls a second;
//   - SendStreamingMessage: one stream of `--chunks` artifact chunks; messages a second;
//   - SendMessage saturated: `--calls` calls from h2load (nghttp2's HTTP/2 load generator, in C),
//     64 at a time, which keeps a server busy where a grpc-js client on one core cannot. It sends
//     one request body again and again (each call still a new task on both servers); that body
//     is first sent once with grpc-js to each server and its answer checked, and every one of
//     h2load's calls must succeed. Skipped, with a note, where h2load is not installed.
// With --against, the baseline is another build's own bench server instead of the SDK (a clone of
// this repository, installed and built): this build's gRPC against an earlier one's.
// Paired rounds alternate which server goes first; each figure is the median of the rounds, and
// the ratio the median of the rounds' ratios. Beside the rate, the server's CPU time a call (or a
// message): on two cores a grpc-js client cannot keep a fast server busy, so where the rate is
// the client's limit, the CPU a call is what tells the servers' own costs apart. Every answer is checked (a completed task; every
// chunk, in order), so a server that drops or reorders cannot win.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  A2A_METHODS,
  Role,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskState,
} from 'a2a-types/v1.0/grpc';
import { cpuMicros, onCpu1 } from './echo-agent.mjs';
import { median } from './median.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const rounds = option('--rounds', 6);
const seconds = option('--seconds', 3);
const inFlight = option('--in-flight', 32);
const chunks = option('--chunks', 10_000);
// The SDK server takes minutes for each 10,000-chunk stream: --only runs one measure.
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const calls = option('--calls', 40_000);
const h2load = spawnSync('h2load', ['--version']).status === 0;

// The load is written and read as protobuf messages (no JSON form on this side): a grpc-js client
// on one core is the limit of what can be measured, so it does as little as a client can.
const METHODS = Object.fromEntries(A2A_METHODS.map((method) => [method.name, method]));
const rawMethod = (name, decode) => ({
  path: METHODS[name].path,
  requestStream: false,
  responseStream: METHODS[name].responseStream,
  requestSerialize: (bytes) => bytes,
  requestDeserialize: (bytes) => bytes,
  responseSerialize: (bytes) => bytes,
  responseDeserialize: decode,
});
const Client = grpc.makeGenericClientConstructor(
  {
    sendMessage: rawMethod('SendMessage', (bytes) => fromBinary(SendMessageResponseSchema, bytes)),
    sendStreamingMessage: rawMethod('SendStreamingMessage', (bytes) => fromBinary(StreamResponseSchema, bytes)),
  },
  'A2AService',
);
const metadata = () => {
  const m = new grpc.Metadata();
  m.set('a2a-version', '1.0');
  return m;
};
let sequence = 0;
const message = (text) =>
  Buffer.from(
    toBinary(
      SendMessageRequestSchema,
      create(SendMessageRequestSchema, {
        message: { messageId: `bench-${process.pid}-${++sequence}`, role: Role.USER, parts: [{ content: { case: 'text', value: text } }] },
      }),
    ),
  );

const against = args.includes('--against') ? args[args.indexOf('--against') + 1] : undefined;
const baselineName = against ? `build at ${against}` : 'SDK 1.x';

/** Starts a bench server: `script` is this folder's (relative) or another clone's (absolute). */
function startServer(script) {
  const path = script.startsWith('/') ? script : fileURLToPath(new URL(script, import.meta.url));
  const [command, ...argv] = [...onCpu1(), process.execPath, path];
  const child = spawn(command, argv, {
    env: { ...process.env, PORT: '0', BENCH_GRPC: '1' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', ({ grpcPort }) =>
      resolve({ child, grpcPort, client: new Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure()) }),
    );
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** SendMessage calls a second, `inFlight` at once for `seconds`; each must answer a completed task. */
async function sendRate({ client }) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const one = () =>
    new Promise((resolve, reject) =>
      client.sendMessage(message('hello, echo'), metadata(), (error, answer) => {
        if (error) return reject(error);
        if (answer.payload.case !== 'task' || answer.payload.value.status?.state !== TaskState.COMPLETED)
          return reject(new Error(`not a completed task: ${answer.payload.case} ${answer.payload.value?.status?.state}`));
        done++;
        resolve();
      }),
    );
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  return { rate: done / ((performance.now() - started) / 1000), count: done };
}

/** One stream of `chunks` chunks: messages a second; every chunk must arrive, in order. */
async function streamRate({ client }) {
  const started = performance.now();
  let received = 0;
  let next = 1;
  await new Promise((resolve, reject) => {
    const call = client.sendStreamingMessage(message(`stream ${chunks}`), metadata());
    call.on('data', (event) => {
      received++;
      if (event.payload.case !== 'artifactUpdate') return;
      const text = event.payload.value.artifact?.parts[0]?.content.value;
      if (text !== `chunk ${next}`) reject(new Error(`chunk ${next} expected, got ${text}`));
      next++;
    });
    call.on('error', reject);
    call.on('end', resolve);
  });
  if (next !== chunks + 1) throw new Error(`${next - 1} of ${chunks} chunks arrived`);
  return { rate: received / ((performance.now() - started) / 1000), count: received };
}

/** The one request h2load repeats, framed as gRPC frames a message (uncompressed, its length), in a file. */
const saturatedBody = (() => {
  const request = message('hello, echo');
  const frame = Buffer.alloc(5 + request.length);
  frame.writeUInt32BE(request.length, 1);
  request.copy(frame, 5);
  const file = join(tmpdir(), `a2a-bench-grpc-${process.pid}.bin`);
  writeFileSync(file, frame);
  return { request, file };
})();

/** `calls` SendMessage calls from h2load (on CPU 0 where taskset exists): calls a second; each must succeed. */
async function saturatedRate(server) {
  // The body h2load repeats, sent once with grpc-js: its answer must be a completed task.
  const answer = await new Promise((resolve, reject) =>
    server.client.makeUnaryRequest(
      METHODS.SendMessage.path,
      (bytes) => bytes,
      (bytes) => fromBinary(SendMessageResponseSchema, bytes),
      saturatedBody.request,
      metadata(),
      (error, value) => (error ? reject(error) : resolve(value)),
    ),
  );
  if (answer.payload.case !== 'task' || answer.payload.value.status?.state !== TaskState.COMPLETED)
    throw new Error('h2load body: no completed task');
  const prefix = onCpu1().length > 0 ? ['taskset', '-c', '0'] : [];
  const [command, ...argv] = [
    ...prefix,
    'h2load',
    ...['-n', String(calls), '-c', '4', '-m', '16', '-d', saturatedBody.file],
    ...['-H', 'content-type: application/grpc', '-H', 'te: trailers', '-H', 'a2a-version: 1.0'],
    `http://127.0.0.1:${server.grpcPort}${METHODS.SendMessage.path}`,
  ];
  const run = spawnSync(command, argv, { encoding: 'utf8' });
  const rate = Number(/finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(run.stdout)?.[1]);
  const succeeded = Number(/(\d+) succeeded/.exec(run.stdout)?.[1]);
  if (!(rate > 0) || succeeded !== calls) throw new Error(`h2load: ${succeeded} of ${calls} calls succeeded\n${run.stdout}${run.stderr}`);
  return { rate, count: calls };
}

/** A measure's rate, and the server's CPU time (µs) for each call or message it counted. */
async function measured(measure, server) {
  const before = cpuMicros(server.child.pid);
  const { rate, count } = await measure(server);
  return { rate, cpu: (cpuMicros(server.child.pid) - before) / count };
}

const ours = await startServer('./servers/a2a.mjs');
const sdk = await startServer(against ? `${against}/bench/servers/a2a.mjs` : './servers/sdk10.mjs');
try {
  const measures = [
    ['send', 'SendMessage', sendRate],
    ...(h2load ? [['saturated', 'SendMessage, h2load', saturatedRate]] : []),
    ['stream', `SendStreamingMessage (${chunks} chunks)`, streamRate],
  ].filter(([key]) => only === undefined || key === only);
  if (!h2load && (only === undefined || only === 'saturated')) {
    console.log('SendMessage, h2load: skipped (h2load, of nghttp2, is not installed: apt install nghttp2-client)');
  }
  for (const [, name, measure] of measures) {
    // Warm-up: a fresh server's first calls run while V8 compiles.
    await measure(ours);
    await measure(sdk);
    const figures = { ours: [], sdk: [], ratios: [], cpuRatios: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [ours, sdk] : [sdk, ours];
      const [first, second] = [await measured(measure, order[0]), await measured(measure, order[1])];
      const [a, b] = order[0] === ours ? [first, second] : [second, first];
      figures.ours.push(a);
      figures.sdk.push(b);
      figures.ratios.push(a.rate / b.rate);
      // > 1 where ours spends less CPU on each call than the SDK.
      figures.cpuRatios.push(b.cpu / a.cpu);
    }
    const [unit, each] = name.startsWith('SendMessage') ? ['calls/s', 'a call'] : ['messages/s', 'a message'];
    const middle = (side, field) => median(figures[side].map((figure) => figure[field]));
    const list = (ratios) => ratios.map((r) => r.toFixed(2)).join(', ');
    console.log(
      `${name.padEnd(40)} ours ${Math.round(middle('ours', 'rate'))} ${unit}, ${baselineName} ${Math.round(middle('sdk', 'rate'))} ${unit}: ` +
        `${median(figures.ratios).toFixed(2)}× (rounds ${list(figures.ratios)})\n${''.padEnd(40)} ` +
        `server CPU ${each}: ours ${middle('ours', 'cpu').toFixed(1)} µs, ${baselineName} ${middle('sdk', 'cpu').toFixed(1)} µs: ` +
        `${median(figures.cpuRatios).toFixed(2)}× less (rounds ${list(figures.cpuRatios)})`,
    );
  }
} finally {
  rmSync(saturatedBody.file, { force: true });
  for (const server of [ours, sdk]) {
    server.client.close();
    server.child.kill('SIGTERM');
  }
}
