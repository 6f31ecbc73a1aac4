// The echo agent as `pnpm start` runs it, this checkout against another, request/response on each
// version: paired rounds that alternate which side goes first, each side's agent started for the
// round, warmed up (`--warm-up`, 2 s; streams: three rounds' worth), measured and stopped before the other's
// starts; 32 connections, and beside req/s the CPU time the agent's process used per request
// (read from /proc), which moves less than req/s on a shared machine. Where `taskset` exists the
// agent runs on CPU 1 and the load on CPU 0, so that the agent's GC threads do not borrow the
// load generator's core.
//
//   node bench/shipped-ab.mjs --against <other checkout, installed and built>
//        [--versions 0.1.0,0.3,1.0,1.0-rest] [--rounds 10] [--seconds 2] [--warm-up 2]
//   node bench/shipped-ab.mjs --against bench/servers/bare.mjs --versions 0.1.0
//   node bench/shipped-ab.mjs --against without:call-logs --versions 0.1.0
//   node bench/shipped-ab.mjs --against <other checkout> --streams 100 [--streams-count 1000]
//   node bench/shipped-ab.mjs --against this --edge node|hono|bun|deno [--versions ...]
// `--edge` measures this checkout's echo agent on another server (apps/echo-agent/src/runtimes/:
// node:http, or the fetch handler on Hono, Bun or Deno, the runtimes from node_modules) against `--against` (`this`: this checkout's Express server, as shipped).
// `--against` may also name a bench server (a .mjs file that reports its port to its parent),
// answering 0.1.0's tasks/send at `/`: bare Express (servers/bare.mjs), the kit's HTTP endpoint
// alone (servers/endpoint-only.mjs), Node's http module alone (servers/node-http.mjs). Set beside
// the agent, they say where a request's time goes. `--against without:call-logs,retention` runs
// this checkout's agent less those parts (servers/echo-without.mjs): what each costs a request.
// `--streams N` compares streams instead, as section 9 measures them: each checkout's stream
// server (bench/servers/a2a.mjs: the kit's router, its in-memory store, logs at info), streams of
// N chunks read 50 at a time, data events a second and the CPU time used per event; against
// bench/servers/sdk.mjs or sdk10.mjs, the SDK server fresh beside ours, both pinned (section 9
// streams after its request/response rounds, on servers not pinned); against bench/servers/bare.mjs,
// the floor under a 0.3 stream on Express (the same events written, no task kept, nothing checked).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  cpuMicros,
  loadOnCpu0,
  loadWith,
  onCpu1,
  startBenchServer,
  startEchoAgent,
  VERSION_HEADERS_10,
  versionStreams,
} from './echo-agent.mjs';
import { median } from './median.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const against = option('--against');
const againstServer = against?.endsWith('.mjs');
// `without:<parts>`: this checkout's echo agent less those parts (bench/servers/echo-without.mjs).
const without = against?.startsWith('without:') ? against.slice('without:'.length) : undefined;
const edge = option('--edge');
const here = fileURLToPath(new URL('..', import.meta.url));
const againstThis = against === 'this';
if (edge !== undefined && !['node', 'hono', 'bun', 'deno'].includes(edge)) {
  console.error('--edge takes node, hono, bun or deno');
  process.exit(2);
}
if (
  !against ||
  (without === undefined && !againstThis && !existsSync(againstServer ? against : `${against}/apps/echo-agent/dist/server.js`))
) {
  console.error(
    '--against takes the folder of another checkout of the kit (installed and built), a bench server script, or without:<parts>',
  );
  process.exit(2);
}
const streamChunks = args.includes('--streams') ? Number(option('--streams')) : undefined;
const streamsPerRound = Number(option('--streams-count', 1000));
/**
 * The bench servers --streams may be set against, by script name, and where each version's stream
 * goes on them: the SDK servers, and bare Express's floor under a 0.3 stream (the events written,
 * nothing else done). The kit's own (a checkout's bench/servers/a2a.mjs) are STREAM_PATHS.
 */
const BENCH_SERVER_STREAM_PATHS = {
  'sdk.mjs': { 0.3: '' },
  'sdk10.mjs': { 0.3: '/a2a/jsonrpc', '1.0': '/a2a/jsonrpc', '1.0-rest': '/a2a/rest/message:stream' },
  'bare.mjs': { 0.3: '/stream-0.3' },
};
const benchServerStreamPaths = againstServer ? BENCH_SERVER_STREAM_PATHS[against.split('/').at(-1)] : undefined;
if (
  streamChunks !== undefined &&
  (!(streamChunks >= 1) || (againstServer && !benchServerStreamPaths) || without !== undefined || edge !== undefined)
) {
  console.error(
    '--streams takes a number of chunks, and --against another checkout, an SDK server (bench/servers/sdk.mjs, sdk10.mjs) or bench/servers/bare.mjs',
  );
  process.exit(2);
}
const versions = option('--versions', '0.1.0,0.3,1.0,1.0-rest').split(',');
const rounds = Number(option('--rounds', 10));
const seconds = Number(option('--seconds', 2));
const warmUpSeconds = Number(option('--warm-up', 2));
const pinned = onCpu1().length > 0;
loadOnCpu0();

/** This checkout's echo agent on `edge`: its script, and the runtime that runs it. */
function edgeServer(name) {
  const require = createRequire(`${here}/package.json`);
  const app = `${here}/apps/echo-agent`;
  if (name === 'node') return { script: `${app}/dist/runtimes/node.js` };
  if (name === 'hono') return { script: `${app}/dist/runtimes/hono.js` };
  if (name === 'bun')
    return { script: `${app}/dist/runtimes/bun.js`, runtime: `${dirname(require.resolve('bun/package.json'))}/bin/bun.exe` };
  const fromDeno = createRequire(require.resolve('deno/package.json'));
  const denoDir = dirname(fromDeno.resolve(`@deno/${process.platform}-${process.arch}-glibc/package.json`));
  return {
    script: `${app}/dist/runtimes/deno.js`,
    runtime: `${denoDir}/deno`,
    execArgv: ['run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', '--allow-sys', '--unstable-no-legacy-abort'],
  };
}

/** This tool's names for the versions, and the names `sends` gives them. */
const VERSIONS = { '0.1.0': '0.1.0', 0.3: '0.3', '1.0': '1.0 JSON-RPC', '1.0-rest': '1.0 HTTP+JSON' };

/** Where each version's stream goes on the kit's stream server. */
const STREAM_PATHS = { '0.1.0': '', 0.3: '/v0.3', '1.0': '/v1', '1.0-rest': '/v1/message:stream' };

/**
 * How many rounds' worth of streams warm a stream server up. A fresh one spends the first few
 * thousand streams getting its JIT and its heap's generations into shape (its CPU an event falls
 * from about twice its settled figure), and builds differ more there than once settled.
 */
const STREAM_WARM_UP_ROUNDS = 3;

async function load(agent, version, duration) {
  if (streamChunks !== undefined)
    return loadStreams(agent, version, duration === 'warm-up' ? STREAM_WARM_UP_ROUNDS * streamsPerRound : streamsPerRound);
  const before = cpuMicros(agent.child.pid);
  const result = await loadWith(agent, VERSIONS[version], duration);
  return { rps: result.requests.average, cpu: (cpuMicros(agent.child.pid) - before) / result.requests.total };
}

/** `count` streams of `streamChunks` chunks, 50 at a time: events/s (as `rps`) and CPU a data event. */
async function loadStreams(server, version, count) {
  const paths = server.benchServer ? benchServerStreamPaths : STREAM_PATHS;
  if (!(version in paths)) throw new Error(`${against} streams no version ${version} (${Object.keys(paths).join(', ')})`);
  const target = {
    version: VERSIONS[version],
    streamUrl: server.url + paths[version],
    headers: version.startsWith('1.0') ? VERSION_HEADERS_10 : {},
  };
  const before = cpuMicros(server.child.pid);
  const { rps, whole, events } = await versionStreams(target, count, streamChunks, 50);
  if (!whole) throw new Error(`${server.url}: a ${version} stream lost or reordered chunks`);
  return { rps, cpu: (cpuMicros(server.child.pid) - before) / events };
}

const started = new Set();
// Whatever happens, the agents do not outlive the bench.
process.on('exit', () => {
  for (const { child } of started) child.kill();
});
// An event costs a few µs: one decimal there; a request costs hundreds.
const cpuFigure = (micros) => micros.toFixed(streamChunks === undefined ? 0 : 1);
const streamServer = (root) => startBenchServer(`${root}/bench/servers/a2a.mjs`, { prefix: onCpu1() });
/**
 * One side's agent (or stream server), started afresh. Each round starts its own, one at a time:
 * one process's JIT and heap layout can make it a few per cent faster or slower than another of
 * the same build for as long as it runs (one pair for the whole bench: A/A 0.95x to 1.09x CPU a
 * request), and a server started beside another, left idle while that one was loaded, then
 * measured up to a fifth more CPU an event.
 */
async function startSide(side) {
  let server;
  if (side === 'ours' && edge !== undefined) server = await startEchoAgent(here, { prefix: onCpu1(), ...edgeServer(edge) });
  else if (side === 'ours')
    server = streamChunks !== undefined ? await streamServer(here) : await startEchoAgent(here, { prefix: onCpu1() });
  else if (streamChunks !== undefined)
    server = benchServerStreamPaths
      ? { ...(await startBenchServer(against, { prefix: onCpu1() })), benchServer: true }
      : await streamServer(against);
  else if (againstServer) server = await startBenchServer(against, { prefix: onCpu1() });
  else if (without !== undefined)
    server = await startEchoAgent(here, {
      prefix: onCpu1(),
      script: `${here}/bench/servers/echo-without.mjs`,
      env: { BENCH_WITHOUT: without },
    });
  else server = await startEchoAgent(againstThis ? here : against, { prefix: onCpu1() });
  started.add(server);
  return server;
}

async function stop(server) {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
  started.delete(server);
}

const what = streamChunks === undefined ? 'the echo agent as shipped' : `${streamsPerRound} streams of ${streamChunks} chunks a round`;
const roundLength = streamChunks === undefined ? ` of ${seconds} s after ${warmUpSeconds} s of warm-up` : '';
const ours = edge === undefined ? here : `${here} on ${edge}`;
console.log(
  `${what}, ${ours} against ${againstThis ? 'its Express server' : against}; ${rounds} paired rounds${roundLength}${pinned ? ', servers on CPU 1' : ''}`,
);
const unit = streamChunks === undefined ? ['req/s', 'a request'] : ['events/s', 'an event'];
for (const version of versions) {
  const a = [];
  const b = [];
  for (let round = 0; round < rounds; round++) {
    // Each side goes first in every other round: started, warmed up, measured and stopped.
    for (const [side, figures] of round % 2 === 0
      ? [
          ['ours', a],
          ['theirs', b],
        ]
      : [
          ['theirs', b],
          ['ours', a],
        ]) {
      const server = await startSide(side);
      await load(server, version, streamChunks === undefined ? warmUpSeconds : 'warm-up');
      figures.push(await load(server, version, seconds));
      await stop(server);
    }
  }
  const rpsRatio = median(a.map((x, i) => x.rps / b[i].rps));
  const cpuRatio = median(a.map((x, i) => x.cpu / b[i].cpu));
  console.log(
    `${version.padEnd(9)} ${median(a.map((x) => x.rps)).toFixed(0)} ${unit[0]}, ${cpuFigure(median(a.map((x) => x.cpu)))} µs of CPU ${unit[1]}; ` +
      `against ${median(b.map((x) => x.rps)).toFixed(0)} ${unit[0]}, ${cpuFigure(median(b.map((x) => x.cpu)))} µs: ` +
      `${rpsRatio.toFixed(2)}× ${unit[0]}, ${cpuRatio.toFixed(2)}× CPU`,
  );
}
