#!/usr/bin/env node
// pnpm bench:grpc [--rounds 6] [--seconds 3] [--in-flight 32] [--chunks 10000] [--only send|stream]
//
// A2A 1.0 over gRPC: the kit's server (bench/servers/a2a.mjs with BENCH_GRPC=1: a2aRouter's echo
// agent, served by a2a-express/grpc) against the official @a2a-js/sdk 1.x server's gRPC service
// (bench/servers/sdk10.mjs with BENCH_GRPC=1, the same work in its executor), each in a child
// process pinned to CPU 1 where taskset exists, the load from this process on the other:
//   - SendMessage: `--in-flight` calls at once for `--seconds`, each a new task; calls a second;
//   - SendStreamingMessage: one stream of `--chunks` artifact chunks; messages a second.
// Paired rounds alternate which server goes first; each figure is the median of the rounds, and
// the ratio the median of the rounds' ratios. Every answer is checked (a completed task; every
// chunk, in order), so a server that drops or reorders cannot win.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { grpcClientDefinition } from 'a2a-types/v1.0/grpc';
import { onCpu1 } from './echo-agent.mjs';
import { median } from './median.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const rounds = option('--rounds', 6);
const seconds = option('--seconds', 3);
const inFlight = option('--in-flight', 32);
const chunks = option('--chunks', 10_000);
// The SDK server takes minutes for each 10,000-chunk stream: --only runs one measure.
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;

const Client = grpc.makeGenericClientConstructor(grpcClientDefinition(), 'A2AService');
const metadata = () => {
  const m = new grpc.Metadata();
  m.set('a2a-version', '1.0');
  return m;
};
let sequence = 0;
const message = (text) => ({ message: { messageId: `bench-${process.pid}-${++sequence}`, role: 'ROLE_USER', parts: [{ text }] } });

function startServer(script) {
  const child = spawn(
    ...(() => {
      const [command, ...argv] = [...onCpu1(), process.execPath, fileURLToPath(new URL(script, import.meta.url))];
      return [command, argv];
    })(),
    { env: { ...process.env, PORT: '0', BENCH_GRPC: '1' }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  return new Promise((resolve, reject) => {
    child.once('message', ({ grpcPort }) =>
      resolve({ child, client: new Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure()) }),
    );
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** SendMessage calls a second, `inFlight` at once for `seconds`; each must answer a completed task. */
async function sendRate(client) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const one = () =>
    new Promise((resolve, reject) =>
      client.sendMessage(message('hello, echo'), metadata(), (error, answer) => {
        if (error) return reject(error);
        if (answer.task?.status?.state !== 'TASK_STATE_COMPLETED')
          return reject(new Error(`not completed: ${JSON.stringify(answer).slice(0, 200)}`));
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
  return done / ((performance.now() - started) / 1000);
}

/** One stream of `chunks` chunks: messages a second; every chunk must arrive, in order. */
async function streamRate(client) {
  const started = performance.now();
  let received = 0;
  let next = 1;
  await new Promise((resolve, reject) => {
    const call = client.sendStreamingMessage(message(`stream ${chunks}`), metadata());
    call.on('data', (event) => {
      received++;
      const text = event.artifactUpdate?.artifact?.parts?.[0]?.text;
      if (text === undefined) return;
      if (text !== `chunk ${next}`) reject(new Error(`chunk ${next} expected, got ${text}`));
      next++;
    });
    call.on('error', reject);
    call.on('end', resolve);
  });
  if (next !== chunks + 1) throw new Error(`${next - 1} of ${chunks} chunks arrived`);
  return received / ((performance.now() - started) / 1000);
}

const ours = await startServer('./servers/a2a.mjs');
const sdk = await startServer('./servers/sdk10.mjs');
try {
  const measures = [
    ['send', 'SendMessage', sendRate],
    ['stream', `SendStreamingMessage (${chunks} chunks)`, streamRate],
  ].filter(([key]) => only === undefined || key === only);
  for (const [, name, measure] of measures) {
    // Warm-up: a fresh server's first calls run while V8 compiles.
    await measure(ours.client);
    await measure(sdk.client);
    const figures = { ours: [], sdk: [], ratios: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [ours, sdk] : [sdk, ours];
      const [first, second] = [await measure(order[0].client), await measure(order[1].client)];
      const [a, b] = order[0] === ours ? [first, second] : [second, first];
      figures.ours.push(a);
      figures.sdk.push(b);
      figures.ratios.push(a / b);
    }
    const unit = name === 'SendMessage' ? 'calls/s' : 'messages/s';
    console.log(
      `${name.padEnd(40)} ours ${Math.round(median(figures.ours))} ${unit}, SDK 1.x ${Math.round(median(figures.sdk))} ${unit}: ` +
        `${median(figures.ratios).toFixed(2)}× (rounds ${figures.ratios.map((r) => r.toFixed(2)).join(', ')})`,
    );
  }
} finally {
  for (const server of [ours, sdk]) {
    server.client.close();
    server.child.kill('SIGTERM');
  }
}
