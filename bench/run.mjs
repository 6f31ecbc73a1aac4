#!/usr/bin/env node
// pnpm bench [--quick] [--json file] [--only rr,streaming,memory,validation,redis,v10,ab,telemetry,versions]
//            [--against <checkout>] [--as-shipped] [--profile]
//
// Measures, in one run and one process tree, a2aRouter against its baselines:
//   1. request/response: tasks/send echo vs bare Express (express.json) and the @a2a-js/sdk server,
//      and the same router's A2A 0.3 endpoint (message/send) beside both;
//   2. streaming: events/s of one 10,000-chunk stream and of 200 concurrent 100-chunk streams,
//      vs a bare loop writing the same SSE frames, with every event checked (none lost or reordered);
//   3. memory: RSS and heap after 50,000 and 100,000 tasks through the default in-memory store,
//      and per idle SSE stream with 1,000 open;
//   4. validation: AJV cost of one tasks/send params check;
//   5. Redis: tasks/send echo on a replica with the RedisTaskStore vs the in-memory store, the
//      latency of tasks/resubscribe (Last-Event-ID) on replica B of a task run on replica A, the
//      streaming workloads of section 2 on both stores, and what one event costs Redis (bytes
//      received, script CPU, from its INFO counters) at chunk 100 and at chunk 10,000;
//   6. A2A 1.0: SendMessage and one 10,000-chunk SendStreamingMessage against the official
//      @a2a-js/sdk 1.x server, with the router's 0.1.0 and 0.3 paths beside them, paired rounds;
//   7. A/B, with --against <checkout>: this build against another build of the kit (a clone at
//      another commit, installed and built), request/response and streaming, over 0.1.0 and over
//      0.3, paired rounds.
//   8. Tracing and monitoring, with --against <checkout> (the build before them): this build with
//      metrics off, with metrics on and no tracing SDK, and with metrics on and tracing on (the
//      OpenTelemetry SDK, every call sampled, a batch exporter to a collector stand-in in a
//      process of its own), each against that build, request/response and streaming, rounds
//      rotating among the four.
//   9. Every version against the official SDK servers: bare Express, the router's 0.1.0, 0.3 and
//      1.0 (JSON-RPC and HTTP+JSON), the SDK 0.3.14 server and the SDK 1.3 server (its 1.0 over
//      both bindings, and its 0.3), request/response and streams of 100 and 10,000 chunks.
//      --as-shipped answers request/response with the echo agent as `pnpm start` runs it, and
//      gives the SDK servers an executor that does what it does (BENCH_ECHO_AS_SHIPPED);
//      --profile writes each server's CPU profile, and a summary of it, to bench/profiles/.
// Servers run as child processes (so the load generator does not share their event loop);
// rounds alternate between the servers so that drift of the machine hits all of them alike.
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { validateTaskSendParams } from 'a2a-types';
import { deleteKeys, redisAnswers } from 'a2a-testing';
import { RedisTaskStore } from 'a2a-express/redis';
import { a2aMetrics } from 'a2a-express';
import { Redis } from 'ioredis';
import { readFrames, sends, startEchoAgent, VERSION_HEADERS_10, versionStream, versionStreams } from './echo-agent.mjs';
import { median } from './median.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const jsonFile = args.includes('--json') ? args[args.indexOf('--json') + 1] || 'bench-results.json' : undefined;
// --only runs some sections, to iterate on one part; the figures recorded come from full runs.
const only = args.includes('--only') ? (args[args.indexOf('--only') + 1] ?? '').split(',') : undefined;
const SECTIONS = ['rr', 'streaming', 'memory', 'validation', 'redis', 'v10', 'ab', 'telemetry', 'versions'];
// Section 9: --as-shipped answers request/response with the echo agent as `pnpm start` runs it;
// --profile runs its servers under --cpu-prof, profiles and their summaries in bench/profiles/.
const asShipped = args.includes('--as-shipped');
const profiling = args.includes('--profile');
// --against names a checkout of the kit at another commit, installed and built: section 7.
const against = args.includes('--against') ? args[args.indexOf('--against') + 1] : undefined;
if ((args.includes('--against') && !against) || ((only?.includes('ab') || only?.includes('telemetry')) && !against)) {
  console.error('--against takes the folder of another checkout of the kit (installed and built)');
  process.exit(2);
}
const unknown = only?.filter((section) => !SECTIONS.includes(section));
if (unknown?.length) {
  console.error(`--only takes sections among ${SECTIONS.join(', ')}; unknown: ${unknown.join(', ') || '(none given)'}`);
  process.exit(2);
}
const runs = (section) => !only || only.includes(section);
const config = quick
  ? {
      duration: 3,
      warmUp: 2,
      rounds: 1,
      connections: 50,
      bigStream: 10_000,
      streams: 200,
      streamChunks: 100,
      streamWarmUp: 10,
      streamRounds: 9,
      tasks: [10_000, 20_000],
      idleStreams: 1_000,
      telemetryRounds: 2,
      versionConnections: 32,
      versionStreams: 50,
      versionStreamConcurrency: 25,
      versionStreamRounds: 1,
      versionBigRounds: 1,
    }
  : {
      duration: 10,
      warmUp: 5,
      rounds: 5,
      connections: 50,
      bigStream: 10_000,
      streams: 200,
      streamChunks: 100,
      streamWarmUp: 10,
      streamRounds: 21,
      tasks: [50_000, 100_000],
      idleStreams: 1_000,
      // The cost looked for is a few per cent, on a machine whose rounds vary by more: more rounds.
      telemetryRounds: 9,
      // Section 9, as its issue measures: 32 connections, five rounds at least.
      versionConnections: 32,
      versionStreams: 200,
      versionStreamConcurrency: 50,
      versionStreamRounds: 5,
      versionBigRounds: 5,
    };

const here = new URL('.', import.meta.url);
const children = [];
async function start(name, env = {}, script = new URL(`servers/${name}.mjs`, here), execArgv = []) {
  const child = fork(script, [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    execArgv: ['--expose-gc', ...execArgv],
    env: { ...process.env, ...env },
  });
  children.push(child);
  const { port } = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${name} server exited with ${code}`)));
  });
  return { name, url: `http://127.0.0.1:${port}`, child };
}
process.on('exit', () => {
  for (const child of children) child.kill();
});

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function post(url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

// ---------------------------------------------------------------------------------------------
// 1. Request/response

let counter = 0;
function sendBody(kind) {
  const n = ++counter;
  // The SDK 1.x server and a2aRouter's 1.0 endpoint take the same 1.0 request.
  if (kind === 'sdk10' || kind === 'a2a10') {
    return {
      jsonrpc: '2.0',
      id: n,
      method: 'SendMessage',
      params: { message: { messageId: `m-${n}`, role: 'ROLE_USER', parts: [{ text: 'hello, echo' }] } },
    };
  }
  // The SDK server and a2aRouter's 0.3 endpoint take the same 0.3 request.
  if (kind === 'sdk' || kind === 'a2a03') {
    return {
      jsonrpc: '2.0',
      id: n,
      method: 'message/send',
      params: { message: { kind: 'message', role: 'user', messageId: `m-${n}`, parts: [{ kind: 'text', text: 'hello, echo' }] } },
    };
  }
  return {
    jsonrpc: '2.0',
    id: n,
    method: 'tasks/send',
    params: { id: `t-${n}-${process.pid}`, message: { role: 'user', parts: [{ type: 'text', text: 'hello, echo' }] } },
  };
}

async function load(server, kind, duration) {
  const result = await autocannon({
    url: server.url,
    connections: config.connections,
    duration,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...versionHeaders(kind) },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(sendBody(kind)) }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    requests: result.requests.total,
  };
}

/** A2A 1.0 calls say their version (both servers refuse a call without it). */
const versionHeaders = (kind) => (kind === 'sdk10' || kind === 'a2a10' ? { 'a2a-version': '1.0' } : {});

async function requestResponse(servers) {
  const [bare, sdk, ours] = servers;
  // The same a2aRouter process, at its 0.3 endpoint: message/send beside its own tasks/send.
  const ours03 = { name: 'a2a 0.3', url: `${ours.url}/v0.3` };
  const check = async (server, kind) => {
    const { status, text } = await post(server.url, sendBody(kind));
    const body = JSON.parse(text);
    if (status !== 200 || !body.result) throw new Error(`${server.name} did not answer a send: ${text.slice(0, 200)}`);
  };
  await check(bare, 'bare');
  await check(sdk, 'sdk');
  await check(ours, 'a2a');
  await check(ours03, 'a2a03');
  const plan = [
    [bare, 'bare'],
    [sdk, 'sdk'],
    [ours, 'a2a'],
    [ours03, 'a2a03'],
  ];
  for (const [server, kind] of plan) await load(server, kind, config.warmUp);
  const runs = { bare: [], sdk: [], a2a: [], a2a03: [] };
  for (let round = 0; round < config.rounds; round++) {
    // Alternate the order each round, so no server always runs first or last.
    const order = round % 2 === 0 ? plan : [...plan].reverse();
    for (const [server, kind] of order) runs[kind].push(await load(server, kind, config.duration));
  }
  return {
    bare: loadSummary(runs.bare),
    sdk: loadSummary(runs.sdk),
    a2a: loadSummary(runs.a2a),
    a2a03: loadSummary(runs.a2a03),
    ratios: {
      sdkToBare: pairedRatio(runs.sdk, runs.bare),
      a2aToBare: pairedRatio(runs.a2a, runs.bare),
      a2aToSdk: pairedRatio(runs.a2a, runs.sdk),
      a2a03ToBare: pairedRatio(runs.a2a03, runs.bare),
      a2a03ToSdk: pairedRatio(runs.a2a03, runs.sdk),
      a2a03ToA2a: pairedRatio(runs.a2a03, runs.a2a),
    },
  };
}

/** Medians over the rounds of one server's loads. */
function loadSummary(rounds) {
  return {
    rps: median(rounds.map((x) => x.rps)),
    p50: median(rounds.map((x) => x.p50)),
    p99: median(rounds.map((x) => x.p99)),
    errors: rounds.reduce((s, x) => s + x.errors, 0),
  };
}

/**
 * req/s of one server over another's, as the median of each round's ratio: the servers of a
 * round ran one after the other, on the machine as it was then.
 */
function pairedRatio(rounds, baseline) {
  return median(rounds.map((x, round) => x.rps / baseline[round].rps));
}

// ---------------------------------------------------------------------------------------------
// 2. Streaming

/** Reads one SSE response, checking ids are 1, 2, 3, … (the bare loop) or strictly increasing. */
async function readStream(options, body) {
  let events = 0;
  let lastId = 0;
  let ordered = true;
  await readFrames(options, body, (frame) => {
    const id = /^id: (\d+)/m.exec(frame);
    if (!id) return;
    events++;
    if (Number(id[1]) <= lastId) ordered = false;
    lastId = Number(id[1]);
  });
  return { events, ordered };
}

/** One stream of `chunks` chunks from the echo server: tasks/sendSubscribe, or with `protocol` '0.3' message/stream. */
function ourStream(server, id, chunks, protocol = '0.1.0') {
  const url = new URL(server.url);
  const text = `stream ${chunks}`;
  const body = JSON.stringify(
    protocol === '0.3'
      ? {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/stream',
          params: { message: { kind: 'message', messageId: id, role: 'user', parts: [{ kind: 'text', text }] } },
        }
      : {
          jsonrpc: '2.0',
          id: 1,
          method: 'tasks/sendSubscribe',
          params: { id, message: { role: 'user', parts: [{ type: 'text', text }] } },
        },
  );
  // With event ids, as the bare loop writes them: the same bytes per event, and the order checked.
  return readStream(
    {
      host: url.hostname,
      port: url.port,
      path: protocol === '0.3' ? '/v0.3' : '/',
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'sse-event-ids' },
    },
    body,
  );
}

function bareStream(server, chunks) {
  const url = new URL(server.url);
  return readStream({ host: url.hostname, port: url.port, path: `/sse?n=${chunks}`, method: 'GET' });
}

async function timed(run) {
  const started = performance.now();
  const results = await run();
  const seconds = (performance.now() - started) / 1000;
  return { results, seconds };
}

async function streaming(bare, ours) {
  let n = 0;
  const measure = async (label, run, expectedPerStream) => {
    const { results, seconds } = await timed(run);
    const list = Array.isArray(results) ? results : [results];
    const events = list.reduce((s, r) => s + r.events, 0);
    const complete = list.every((r) => r.ordered && r.events === expectedPerStream);
    return { label, events, eventsPerSecond: events / seconds, complete };
  };
  // Ours sends a working status first and a completed status last: chunks + 2 events.
  // Both sides measured back to back, in an order that alternates between rounds.
  const pair = async (measureOurs, measureBare, bareFirst) => {
    if (bareFirst) {
      const bareResult = await measureBare();
      return { ours: await measureOurs(), bare: bareResult };
    }
    const oursResult = await measureOurs();
    return { ours: oursResult, bare: await measureBare() };
  };
  const one = (bareFirst = false) =>
    pair(
      () => measure('a2a', () => ourStream(ours, `big-${++n}`, config.bigStream), config.bigStream + 2),
      () => measure('bare', () => bareStream(bare, config.bigStream), config.bigStream),
      bareFirst,
    );
  const many = (bareFirst = false) =>
    pair(
      () =>
        measure(
          'a2a',
          () => Promise.all(Array.from({ length: config.streams }, () => ourStream(ours, `many-${++n}`, config.streamChunks))),
          config.streamChunks + 2,
        ),
      () =>
        measure(
          'bare',
          () => Promise.all(Array.from({ length: config.streams }, () => bareStream(bare, config.streamChunks))),
          config.streamChunks,
        ),
      bareFirst,
    );
  // A stream takes well under a second, so many rounds are cheap. The warm-up is long because
  // the JIT needs several streams to settle on both sides (in early rounds a2aRouter's rate
  // climbed 2-3× while the bare loop's settled within one), and the measure is the steady state.
  for (let round = 0; round < config.streamWarmUp; round++) {
    await one();
    await many();
  }
  const rounds = { one: [], many: [] };
  for (let round = 0; round < config.streamRounds; round++) {
    rounds.one.push(await one(round % 2 === 1));
    rounds.many.push(await many(round % 2 === 1));
  }
  // The ratio is the median of each round's ratio: the two sides of a round ran back to back,
  // on the machine as it was then.
  const summarize = (list) => ({
    a2a: median(list.map((r) => r.ours.eventsPerSecond)),
    bare: median(list.map((r) => r.bare.eventsPerSecond)),
    ratio: median(list.map((r) => r.ours.eventsPerSecond / r.bare.eventsPerSecond)),
    complete: list.every((r) => r.ours.complete && r.bare.complete),
  });
  return { oneBigStream: summarize(rounds.one), concurrentStreams: summarize(rounds.many) };
}

/**
 * Events/s of two servers on the same workloads, one stream of `bigStream` chunks and `streams`
 * streams of `streamChunks` at once, in paired rounds after a warm-up, alternating which server
 * goes first. Every stream is checked whole and in order. `a`, `b`: medians; `ratio`: the median
 * of each round's a / b.
 */
async function pairedStreamRates(a, b, label, protocol = '0.1.0') {
  let n = 0;
  const eventsPerSecond = async (server, streams, chunks) => {
    const { results, seconds } = await timed(() =>
      Promise.all(Array.from({ length: streams }, () => ourStream(server, `${label}-${++n}-${process.pid}`, chunks, protocol))),
    );
    if (!results.every((r) => r.ordered && r.events === chunks + 2)) throw new Error(`${server.name}: a stream lost or reordered events`);
    return results.reduce((sum, r) => sum + r.events, 0) / seconds;
  };
  const workloads = { one: [1, config.bigStream], many: [config.streams, config.streamChunks] };
  const rounds = { one: [], many: [] };
  for (let round = 0; round < config.streamWarmUp + config.streamRounds; round++) {
    for (const [name, [streams, chunks]] of Object.entries(workloads)) {
      const first = round % 2 === 0 ? a : b;
      const second = first === a ? b : a;
      const x = await eventsPerSecond(first, streams, chunks);
      const y = await eventsPerSecond(second, streams, chunks);
      if (round >= config.streamWarmUp) rounds[name].push(first === a ? { a: x, b: y } : { a: y, b: x });
    }
  }
  const summary = (list) => ({
    a: median(list.map((r) => r.a)),
    b: median(list.map((r) => r.b)),
    ratio: median(list.map((r) => r.a / r.b)),
  });
  return { oneBigStream: summary(rounds.one), concurrentStreams: summary(rounds.many) };
}

// ---------------------------------------------------------------------------------------------
// 6. A2A 1.0 against the SDK 1.x server

/**
 * One 1.0 SendStreamingMessage of `chunks` chunks (JSON-RPC, at `url`), read to its end as
 * section 9 reads its streams: `data:` frames counted, the chunks checked whole and in order
 * (neither server sends event ids unless asked).
 */
async function stream10(url, chunks) {
  const { events, whole } = await versionStream({ version: '1.0 JSON-RPC', streamUrl: url, headers: VERSION_HEADERS_10 }, chunks);
  return { events, ordered: whole };
}

async function protocol10(sdk10, ours) {
  const targets = {
    sdk10: { name: '@a2a-js/sdk 1.x', url: `${sdk10.url}/a2a/jsonrpc` },
    a2a10: { name: 'a2aRouter 1.0', url: `${ours.url}/v1` },
    a2a: ours,
    a2a03: { name: 'a2aRouter 0.3', url: `${ours.url}/v0.3` },
  };
  for (const [kind, server] of Object.entries(targets)) {
    const { status, text } = await post(server.url, sendBody(kind), versionHeaders(kind));
    if (status !== 200 || !JSON.parse(text).result) throw new Error(`${server.name} did not answer a send: ${text.slice(0, 200)}`);
  }
  const plan = Object.entries(targets);
  for (const [kind, server] of plan) await load(server, kind, config.warmUp);
  const sends = { sdk10: [], a2a10: [], a2a: [], a2a03: [] };
  for (let round = 0; round < config.rounds; round++) {
    const order = round % 2 === 0 ? plan : [...plan].reverse();
    for (const [kind, server] of order) sends[kind].push(await load(server, kind, config.duration));
  }
  // One stream of bigStream chunks on each, the order alternating. The SDK's server takes time
  // that grows with the square of a stream's length (about 100 s for 10,000 chunks on the
  // machine of BENCHMARKS.md), so this section warms up on two 1,000-chunk streams each and
  // measures a few rounds, not section 2's twenty-one.
  const streamOf = {
    sdk10: (chunks) => stream10(targets.sdk10.url, chunks),
    a2a10: (chunks) => stream10(targets.a2a10.url, chunks),
    a2a: (chunks) => ourStream(ours, `v10-${++counter}`, chunks),
    a2a03: (chunks) => ourStream(ours, `v10-${++counter}`, chunks, '0.3'),
  };
  const streams = { sdk10: [], a2a10: [], a2a: [], a2a03: [] };
  let complete = true;
  const kinds = Object.keys(streamOf);
  const warmUp = 2;
  const rounds = quick ? 1 : 3;
  for (let round = 0; round < warmUp + rounds; round++) {
    const chunks = round < warmUp ? 1_000 : config.bigStream;
    for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
      const { results, seconds } = await timed(() => streamOf[kind](chunks));
      if (!(results.ordered && results.events === chunks + 2)) complete = false;
      if (round >= warmUp) streams[kind].push({ rps: results.events / seconds });
    }
  }
  const eventsPerSecond = (kind) => median(streams[kind].map((x) => x.rps));
  return {
    send: Object.fromEntries(
      Object.keys(sends).map((kind) => [kind, { ...loadSummary(sends[kind]), toSdk: pairedRatio(sends[kind], sends.sdk10) }]),
    ),
    oneBigStream: Object.fromEntries(
      kinds.map((kind) => [kind, { eventsPerSecond: eventsPerSecond(kind), toSdk: pairedRatio(streams[kind], streams.sdk10) }]),
    ),
    complete,
  };
}

// ---------------------------------------------------------------------------------------------
// 3. Memory

async function memoryOf(server) {
  return new Promise((resolve, reject) => {
    http
      .get(`${server.url}/__bench/memory`, { agent }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(JSON.parse(text)));
      })
      .on('error', reject);
  });
}

async function sendMany(server, count) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const { status } = await post(server.url, sendBody('a2a'));
      if (status !== 200) throw new Error(`send failed with ${status}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

/**
 * Each part on servers of its own, started for it: what earlier work left behind (freed memory
 * the allocator keeps for a while, or hands back midway) would otherwise show in the RSS.
 */
async function memory() {
  const [first, second] = config.tasks;
  const tasksServer = await start('a2a');
  await sendMany(tasksServer, first);
  const atFirst = await memoryOf(tasksServer);
  await sendMany(tasksServer, second - first);
  const atSecond = await memoryOf(tasksServer);

  // Idle streams: resubscriptions to one task that waits, kept open; and, for comparison, the
  // same number of bare idle SSE responses (Node's own cost of an open HTTP response).
  const [ours, bare] = await Promise.all([start('a2a'), start('bare')]);
  await startHeldTask(ours);
  const resubscribe = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: 'held' } });
  const ourIdle = await idleStreams(ours, { path: '/', method: 'POST', headers: { 'content-type': 'application/json' } }, resubscribe);
  const bareIdle = await idleStreams(bare, { path: '/idle', method: 'GET' });
  return {
    tasks: {
      [first]: atFirst,
      [second]: atSecond,
      rssChange: atSecond.rss / atFirst.rss - 1,
      heapChange: atSecond.heapUsed / atFirst.heapUsed - 1,
    },
    idleStream: ourIdle,
    bareIdleStream: bareIdle,
  };
}

/**
 * Starts the task that idle streams resubscribe to, one that runs until canceled. By
 * tasks/sendSubscribe, left after its first event: tasks/send would wait `sendWaitMs` (30 s)
 * for a turn that does not end.
 */
function startHeldTask(server) {
  const url = new URL(server.url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tasks/sendSubscribe',
    params: { id: 'held', message: { role: 'user', parts: [{ type: 'text', text: 'hold' }] } },
  });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: '/', method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.once('data', () => {
          resolve();
          req.destroy();
        });
      },
    );
    req.on('error', reject); // after resolve(), the destroy's own error changes nothing
    req.end(body);
  });
}

/** Memory per open idle stream: the server's growth with `idleStreams` streams open. */
async function idleStreams(server, request, body) {
  const url = new URL(server.url);
  const streamAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const openStreams = async (count) => {
    const open = [];
    await Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise((resolve, reject) => {
            const req = http.request({ host: url.hostname, port: url.port, agent: streamAgent, ...request }, (res) => {
              open.push(req);
              res.once('data', () => resolve());
            });
            req.on('error', reject);
            req.end(body);
          }),
      ),
    );
    return open;
  };
  // A first batch, opened and closed, so that what the first streams allocate once (compiled
  // code, pools) is not counted per stream.
  for (const req of await openStreams(config.idleStreams / 10)) req.destroy();
  const before = await memoryOf(server);
  const open = await openStreams(config.idleStreams);
  const after = await memoryOf(server);
  for (const req of open) req.destroy();
  return { rssBytes: (after.rss - before.rss) / config.idleStreams, heapBytes: (after.heapUsed - before.heapUsed) / config.idleStreams };
}

// ---------------------------------------------------------------------------------------------
// 4. Validation

function validation() {
  const params = {
    id: 'task-1',
    sessionId: 's-1',
    message: { role: 'user', parts: [{ type: 'text', text: 'How much is 100 USD in EUR?' }] },
    historyLength: 0,
  };
  const iterations = quick ? 100_000 : 500_000;
  for (let i = 0; i < 10_000; i++) validateTaskSendParams(params);
  const started = performance.now();
  for (let i = 0; i < iterations; i++) if (!validateTaskSendParams(params)) throw new Error('valid params refused');
  return { microsecondsPerCall: ((performance.now() - started) * 1000) / iterations };
}

// ---------------------------------------------------------------------------------------------
// 5. Redis

const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Milliseconds from sending tasks/resubscribe to reading its final event. */
async function resubscribeLatency(server, taskId, lastEventId) {
  const url = new URL(server.url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } });
  const started = performance.now();
  const { events } = await readStream(
    {
      host: url.hostname,
      port: url.port,
      path: '/',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'last-event-id': String(lastEventId) },
    },
    body,
  );
  if (events < 1) throw new Error(`resubscribe on ${server.name} sent no event`);
  return performance.now() - started;
}

/** What Redis has received (bytes, from all clients) and the CPU its update script has used (µs), from INFO. */
async function redisCounters(redis) {
  const [stats, commands] = await Promise.all([redis.info('stats'), redis.info('commandstats')]);
  return {
    bytes: Number(/total_net_input_bytes:(\d+)/.exec(stats)[1]),
    scriptMicros: Number(/cmdstat_evalsha:[^\n]*usec=(\d+)/.exec(commands)?.[1] ?? 0),
  };
}

/**
 * Bytes Redis receives, and script CPU it spends, per event at chunk 100 and at chunk 10,000 of
 * one answer, written one chunk per write (as for a handler slower than Redis: the most writes
 * per event), through the store itself so that the windows end exactly at those chunks.
 */
async function redisCostPerEvent(prefix) {
  const store = new RedisTaskStore({ url: redisUrl, prefix });
  const window = 50;
  const taskId = `cost-${process.pid}`;
  const append = (n) => (current) => ({
    record: current ?? {
      task: { id: taskId, sessionId: 's', status: { state: 'working', timestamp: new Date().toISOString() } },
      history: [{ role: 'user', parts: [{ type: 'text', text: `stream ${config.bigStream}` }] }],
      lastEventId: 0,
      turn: 1,
      updatedAt: Date.now(),
    },
    events: [{ id: taskId, artifact: { index: 0, append: n > 1, parts: [{ type: 'text', text: `chunk ${n}` }] } }],
  });
  const at = {};
  try {
    let before;
    for (let n = 1; n <= config.bigStream; n++) {
      if (n === 100 - window + 1 || n === config.bigStream - window + 1) before = await redisCounters(store.redis);
      await store.update(taskId, append(n));
      if (n === 100 || n === config.bigStream) {
        const after = await redisCounters(store.redis);
        at[n] = { bytes: (after.bytes - before.bytes) / window, scriptMicros: (after.scriptMicros - before.scriptMicros) / window };
      }
    }
  } finally {
    await store.close();
  }
  return { window, at };
}

/** Bytes Redis receives per event over one whole streamed answer, written as the router writes it (in batches). */
async function redisBytesPerStreamedEvent(server, counterConnection) {
  const before = await redisCounters(counterConnection);
  const { events } = await ourStream(server, `bytes-${process.pid}`, config.bigStream);
  const after = await redisCounters(counterConnection);
  return { bytes: (after.bytes - before.bytes) / events, scriptMicros: (after.scriptMicros - before.scriptMicros) / events };
}

async function redisStore(ours) {
  const prefix = `a2a-bench:${process.pid}:`;
  const env = { BENCH_REDIS_URL: redisUrl, BENCH_REDIS_PREFIX: prefix };
  const [replicaA, replicaB] = await Promise.all([start('a2a', env), start('a2a', env)]);
  replicaA.name = 'redis replica A';
  replicaB.name = 'redis replica B';
  try {
    for (const server of [ours, replicaA]) await load(server, 'a2a', config.warmUp);
    const runs = { memory: [], redis: [] };
    for (let round = 0; round < config.rounds; round++) {
      const order =
        round % 2 === 0
          ? [
              [ours, 'memory'],
              [replicaA, 'redis'],
            ]
          : [
              [replicaA, 'redis'],
              [ours, 'memory'],
            ];
      for (const [server, kind] of order) runs[kind].push(await load(server, 'a2a', config.duration));
    }

    // A finished 10-chunk task; a client that saw its first 2 events reconnects.
    const samples = quick ? 100 : 500;
    const latency = { sameProcess: [], acrossReplicas: [] };
    for (let i = 0; i < samples; i++) {
      for (const [runOn, resumeOn, kind] of [
        [ours, ours, 'sameProcess'],
        [replicaA, replicaB, 'acrossReplicas'],
      ]) {
        const taskId = `resub-${i}-${process.pid}`;
        const { text } = await post(runOn.url, {
          jsonrpc: '2.0',
          id: i,
          method: 'tasks/send',
          params: { id: taskId, message: { role: 'user', parts: [{ type: 'text', text: 'stream 10' }] } },
        });
        if (!JSON.parse(text).result) throw new Error(`${runOn.name}: ${text.slice(0, 200)}`);
        latency[kind].push(await resubscribeLatency(resumeOn, taskId, 2));
      }
    }
    // Streaming: the same workloads as section 2, the in-memory store against the Redis store.
    const streams = await pairedStreamRates(replicaA, ours, 'redis-stream');
    const cost = await redisCostPerEvent(`${prefix}cost:`);
    const counterConnection = new Redis(redisUrl);
    const streamed = await redisBytesPerStreamedEvent(replicaA, counterConnection).finally(() => counterConnection.disconnect());

    const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
    const latencySummary = (values) => ({ p50: percentile(values, 0.5), p99: percentile(values, 0.99) });
    return {
      send: { memory: loadSummary(runs.memory), redis: loadSummary(runs.redis), ratio: pairedRatio(runs.redis, runs.memory) },
      resubscribe: { samples, sameProcess: latencySummary(latency.sameProcess), acrossReplicas: latencySummary(latency.acrossReplicas) },
      streaming: streams,
      costPerEvent: { ...cost, streamed },
    };
  } finally {
    await deleteKeys(redisUrl, prefix);
  }
}

// ---------------------------------------------------------------------------------------------
// 6. A/B: this build against another checkout's

/**
 * The same echo server from two builds, in paired rounds that alternate which goes first: each
 * round's ratio is this build's figure over the other's, and the result is their median.
 */
async function abCompare(ours, theirs) {
  const at03 = (server) => ({ ...server, url: `${server.url}/v0.3` });
  /** Paired rounds of request/response, `kind` 'a2a' (0.1.0 tasks/send) or 'a2a03' (0.3 message/send). */
  const sends = async (kind) => {
    const [a, b] = kind === 'a2a03' ? [at03(ours), at03(theirs)] : [ours, theirs];
    for (const server of [a, b]) await load(server, kind, config.warmUp);
    const rounds = { ours: [], theirs: [] };
    for (let round = 0; round < config.rounds; round++) {
      const order = round % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours'];
      for (const side of order) rounds[side].push(await load(side === 'ours' ? a : b, kind, config.duration));
    }
    return { ours: loadSummary(rounds.ours), theirs: loadSummary(rounds.theirs), ratio: pairedRatio(rounds.ours, rounds.theirs) };
  };
  const streamSummary = ({ a, b, ratio }) => ({ ours: a, theirs: b, ratio });
  const send = await sends('a2a');
  const streams = await pairedStreamRates(ours, theirs, 'ab');
  const send03 = await sends('a2a03');
  const streams03 = await pairedStreamRates(ours, theirs, 'ab03', '0.3');
  return {
    against,
    send,
    oneBigStream: streamSummary(streams.oneBigStream),
    concurrentStreams: streamSummary(streams.concurrentStreams),
    send03,
    oneBigStream03: streamSummary(streams03.oneBigStream),
    concurrentStreams03: streamSummary(streams03.concurrentStreams),
  };
}

// ---------------------------------------------------------------------------------------------
// 8. Tracing and monitoring

/** What the collector stand-in (servers/collector.mjs) has received so far. */
function collectorCounts(collector) {
  return new Promise((resolve) => {
    collector.child.once('message', resolve);
    collector.child.send('counts');
  });
}

/**
 * Waits until the collector has received nothing new for longer than the batch processor's
 * schedule (5 s): the traced server's last, partial batch is out too.
 */
async function exportsSettled(collector) {
  let last = await collectorCounts(collector);
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const now = await collectorCounts(collector);
    if (now.bytes === last.bytes) return now;
    last = now;
  }
  return last;
}

/**
 * The build before tracing and monitoring, and this build with metrics off, with metrics on, and
 * with metrics and tracing on: tasks/send rounds rotating among the four (after a traced round,
 * its exports are let finish before the next one starts), each side's ratio to `before` the
 * median of its rounds' ratios; then each side's streams against `before`'s, paired as in
 * section 2.
 */
async function telemetryCompare(sides, collector) {
  const names = Object.keys(sides);
  const settle = async (name) => {
    if (name === 'traced') await exportsSettled(collector);
  };
  for (const name of names) {
    await load(sides[name], 'a2a', config.warmUp);
    await settle(name);
  }
  // Counted from here: the rounds' spans alone.
  const spansBefore = (await collectorCounts(collector)).spans;
  const rounds = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < config.telemetryRounds; round++) {
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const name of order) {
      rounds[name].push(await load(sides[name], 'a2a', config.duration));
      await settle(name);
    }
  }
  const send = Object.fromEntries(
    names.map((name) => [
      name,
      {
        ...loadSummary(rounds[name]),
        ratio: pairedRatio(rounds[name], rounds.before),
        // Each round's ratio, to show the spread the median is taken over.
        roundRatios: rounds[name].map((x, round) => Number((x.rps / rounds.before[round].rps).toFixed(3))),
      },
    ]),
  );
  // Each traced tasks/send makes two spans (the call, its turn); a batch processor whose queue is
  // full drops spans, which would make tracing look cheaper than it is.
  const tracedCalls = rounds.traced.reduce((total, round) => total + round.requests, 0);
  const exportedSpans = (await exportsSettled(collector)).spans;
  const streams = {};
  for (const name of names.filter((n) => n !== 'before')) {
    streams[name] = await pairedStreamRates(sides[name], sides.before, `t-${name}`);
    await settle(name);
  }
  return { send, streams, spans: { made: 2 * tracedCalls, exported: exportedSpans - spansBefore }, recordingCost: metricsRecordingCost() };
}

/**
 * CPU time the metrics take per tasks/send, in this process, free of the machine's drift: one
 * call's counter and histogram, and its turn's histogram, recorded a million times.
 */
function metricsRecordingCost() {
  const metrics = a2aMetrics();
  const calls = 1_000_000;
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    metrics.callEnded('0.1.0', 'jsonrpc', 'tasks/send', undefined, 0.003);
    metrics.turnEnded('completed', 0.002);
  }
  return { microsecondsPerCall: ((performance.now() - started) * 1000) / calls };
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// 9. Every version against the official SDK servers (0.3.14, and 1.3: its 1.0 and its 0.3)

/**
 * Where each server takes each version: a URL for request/response and one for streams (an
 * HTTP+JSON stream has a route of its own), and the headers the version needs.
 */
function versionTargets({ bare, sdk03, sdk13, ours, oursStreams }) {
  const target = (name, version, url, streamUrl, headers = {}) => ({ name, version, url, streamUrl, headers });
  return {
    bare: target('bare Express', '0.1.0', bare.url, undefined),
    ours01: target('a2aRouter 0.1.0', '0.1.0', ours.url, oursStreams.url),
    ours03: target('a2aRouter 0.3', '0.3', `${ours.url}/v0.3`, `${oursStreams.url}/v0.3`),
    ours10: target('a2aRouter 1.0 JSON-RPC', '1.0 JSON-RPC', `${ours.url}/v1`, `${oursStreams.url}/v1`, VERSION_HEADERS_10),
    ours10rest: target(
      'a2aRouter 1.0 HTTP+JSON',
      '1.0 HTTP+JSON',
      `${ours.url}/v1/message:send`,
      `${oursStreams.url}/v1/message:stream`,
      VERSION_HEADERS_10,
    ),
    sdk03: target('SDK 0.3.14, 0.3', '0.3', sdk03.url, sdk03.url),
    sdk13as03: target('SDK 1.3, its 0.3', '0.3', `${sdk13.url}/a2a/jsonrpc`, `${sdk13.url}/a2a/jsonrpc`),
    sdk13: target('SDK 1.3, 1.0 JSON-RPC', '1.0 JSON-RPC', `${sdk13.url}/a2a/jsonrpc`, `${sdk13.url}/a2a/jsonrpc`, VERSION_HEADERS_10),
    sdk13rest: target(
      'SDK 1.3, 1.0 HTTP+JSON',
      '1.0 HTTP+JSON',
      `${sdk13.url}/a2a/rest/message:send`,
      `${sdk13.url}/a2a/rest/message:stream`,
      VERSION_HEADERS_10,
    ),
  };
}

/** Which of ours each SDK target is measured against. */
const VERSION_PAIRS = [
  ['ours03', 'sdk03'],
  ['ours03', 'sdk13as03'],
  ['ours10', 'sdk13'],
  ['ours10rest', 'sdk13rest'],
];

async function loadVersion(target, duration) {
  const result = await autocannon({
    url: target.url,
    connections: config.versionConnections,
    duration,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...target.headers },
        setupRequest: (req) => ({ ...req, body: JSON.stringify(sends[target.version](++counter, 'hello, echo')) }),
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function versions(servers) {
  const targets = versionTargets(servers);
  for (const [key, target] of Object.entries(targets)) {
    const { status, text } = await post(target.url, sends[target.version](++counter, 'hello, echo'), target.headers);
    const answer = JSON.parse(text);
    if (status !== 200 || !(answer.result || answer.task))
      throw new Error(`${target.name} (${key}) did not answer a send: ${text.slice(0, 200)}`);
  }
  const keys = Object.keys(targets);
  const rotate = (list, round) => list.map((_, i) => list[(i + round) % list.length]);
  for (const key of keys) await loadVersion(targets[key], config.warmUp);
  const send = Object.fromEntries(keys.map((key) => [key, []]));
  for (let round = 0; round < config.rounds; round++) {
    // Rotate the order each round, so that no server always runs first or last.
    for (const key of rotate(keys, round)) send[key].push(await loadVersion(targets[key], config.duration));
  }
  const streamKeys = keys.filter((key) => targets[key].streamUrl);
  const many = Object.fromEntries(streamKeys.map((key) => [key, []]));
  const one = Object.fromEntries(streamKeys.map((key) => [key, []]));
  let complete = true;
  for (const key of streamKeys) await versionStreams(targets[key], 20, config.streamChunks, 10);
  for (let round = 0; round < config.versionStreamRounds; round++) {
    for (const key of rotate(streamKeys, round)) {
      const result = await versionStreams(targets[key], config.versionStreams, config.streamChunks, config.versionStreamConcurrency);
      complete &&= result.whole;
      many[key].push(result);
    }
  }
  // A server whose one long stream takes longer than 10 s (the SDKs' take time that grows with
  // the square of its length) is measured once: its ratio is far from the goal either way.
  const slow = new Set();
  for (let round = 0; round < config.versionBigRounds; round++) {
    for (const key of rotate(streamKeys, round)) {
      if (slow.has(key)) continue;
      const started = performance.now();
      const result = await versionStream(targets[key], config.bigStream);
      complete &&= result.whole;
      const seconds = (performance.now() - started) / 1000;
      if (seconds > 10) slow.add(key);
      one[key].push({ rps: result.events / seconds });
    }
  }
  // Paired rounds need both sides: a slow server's one measure stands for every round.
  for (const key of slow) while (one[key].length < config.versionBigRounds) one[key].push(one[key][0]);
  const summary = (runsOf, baseline) => ({ ...loadSummary(runsOf), ...(baseline ? { ratio: pairedRatio(runsOf, baseline) } : {}) });
  return {
    names: Object.fromEntries(keys.map((key) => [key, targets[key].name])),
    send: Object.fromEntries(keys.map((key) => [key, summary(send[key], send.bare)])),
    pairs: VERSION_PAIRS.map(([a, b]) => ({
      ours: a,
      sdk: b,
      send: pairedRatio(send[a], send[b]),
      streams100: pairedRatio(many[a], many[b]),
      stream10k: pairedRatio(one[a], one[b]),
    })),
    streams100: Object.fromEntries(streamKeys.map((key) => [key, median(many[key].map((x) => x.rps))])),
    stream10k: Object.fromEntries(streamKeys.map((key) => [key, median(one[key].map((x) => x.rps))])),
    complete,
  };
}

/** The echo agent as `pnpm start` runs it, optionally under --cpu-prof. */
async function startShipped(execArgv = []) {
  const agent = await startEchoAgent(fileURLToPath(new URL('..', here)), { execArgv });
  children.push(agent.child);
  return { name: 'echo agent (as shipped)', ...agent };
}

/** Ends a server and waits for it to exit (its --cpu-prof profile is written on the way out). */
function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * The functions that took the most CPU of a profile (self time, as a share of the time the
 * process was busy: a server waits while the others take their turns), for a text beside it.
 */
function profileSummary(file, top = 30) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  const intervals = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url
      ? `${url.replace(/^.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, '').replace(/^.*\/(packages|apps)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + (intervals[i] ?? 0));
  }
  self.delete('(idle)');
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([key, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)} %  ${key}`)
    .join('\n');
}

const fmt = (n, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const times = (value) => `${value.toFixed(2)}×`;

const machine = {
  date: new Date().toISOString().slice(0, 10),
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model,
  node: process.version,
  mode: quick ? 'quick' : 'full',
};
console.log(
  `a2a-express-kit bench — ${machine.mode} run, ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, ${machine.date}\n`,
);

// Validation alone is measured in this process: the three servers start only for the other sections.
const needsServers = !only || only.some((section) => section !== 'validation');
const [bare, sdk, ours] = needsServers ? await Promise.all([start('bare'), start('sdk'), start('a2a')]) : [];
let rr, st, mem, val, redis;
if (runs('rr')) {
  rr = await requestResponse([bare, sdk, ours]);
  console.log(
    '1. Request/response (echo: tasks/send, or message/send for 0.3; autocannon, %d connections, median of %d × %ds)',
    config.connections,
    config.rounds,
    config.duration,
  );
  console.table({
    'bare Express': { 'req/s': fmt(rr.bare.rps), 'p50 ms': rr.bare.p50, 'p99 ms': rr.bare.p99, errors: rr.bare.errors, 'vs bare': '1.00×' },
    '@a2a-js/sdk 0.3': {
      'req/s': fmt(rr.sdk.rps),
      'p50 ms': rr.sdk.p50,
      'p99 ms': rr.sdk.p99,
      errors: rr.sdk.errors,
      'vs bare': times(rr.ratios.sdkToBare),
    },
    'a2aRouter tasks/send': {
      'req/s': fmt(rr.a2a.rps),
      'p50 ms': rr.a2a.p50,
      'p99 ms': rr.a2a.p99,
      errors: rr.a2a.errors,
      'vs bare': times(rr.ratios.a2aToBare),
      'vs sdk': times(rr.ratios.a2aToSdk),
    },
    'a2aRouter 0.3 message/send': {
      'req/s': fmt(rr.a2a03.rps),
      'p50 ms': rr.a2a03.p50,
      'p99 ms': rr.a2a03.p99,
      errors: rr.a2a03.errors,
      'vs bare': times(rr.ratios.a2a03ToBare),
      'vs sdk': times(rr.ratios.a2a03ToSdk),
      'vs tasks/send': times(rr.ratios.a2a03ToA2a),
    },
  });
}

if (runs('streaming')) {
  st = await streaming(bare, ours);
  console.log('2. Streaming (events/s, median of %d rounds after %d of warm-up)', config.streamRounds, config.streamWarmUp);
  console.table({
    [`one stream of ${fmt(config.bigStream)} chunks`]: {
      a2aRouter: fmt(st.oneBigStream.a2a),
      'bare SSE loop': fmt(st.oneBigStream.bare),
      ratio: times(st.oneBigStream.ratio),
      'all events, in order': st.oneBigStream.complete,
    },
    [`${config.streams} streams × ${config.streamChunks} chunks`]: {
      a2aRouter: fmt(st.concurrentStreams.a2a),
      'bare SSE loop': fmt(st.concurrentStreams.bare),
      ratio: times(st.concurrentStreams.ratio),
      'all events, in order': st.concurrentStreams.complete,
    },
  });
}

if (runs('memory')) {
  mem = await memory();
  const [first, second] = config.tasks;
  console.log('3. Memory (server process, after a full GC)');
  console.table({
    [`after ${fmt(first)} tasks`]: {
      'RSS MB': fmt(mem.tasks[first].rss / 2 ** 20, 1),
      'heap MB': fmt(mem.tasks[first].heapUsed / 2 ** 20, 1),
    },
    [`after ${fmt(second)} tasks`]: {
      'RSS MB': fmt(mem.tasks[second].rss / 2 ** 20, 1),
      'heap MB': fmt(mem.tasks[second].heapUsed / 2 ** 20, 1),
    },
    change: { 'RSS MB': `${(mem.tasks.rssChange * 100).toFixed(1)}%`, 'heap MB': `${(mem.tasks.heapChange * 100).toFixed(1)}%` },
    [`per idle stream (${fmt(config.idleStreams)} open)`]: {
      'RSS MB': `${fmt(mem.idleStream.rssBytes / 1024, 1)} KB`,
      'heap MB': `${fmt(mem.idleStream.heapBytes / 1024, 1)} KB`,
    },
    '  bare Node SSE response, for comparison': {
      'RSS MB': `${fmt(mem.bareIdleStream.rssBytes / 1024, 1)} KB`,
      'heap MB': `${fmt(mem.bareIdleStream.heapBytes / 1024, 1)} KB`,
    },
  });
}

if (runs('validation')) {
  val = validation();
  console.log('4. Validation: %s µs per tasks/send params check (AJV, compiled once)\n', val.microsecondsPerCall.toFixed(2));
}

if (!runs('redis')) {
  // not asked for
} else if (await redisAnswers(redisUrl)) {
  // Fresh servers on both sides, so the in-memory one carries nothing from earlier sections.
  redis = await redisStore(await start('a2a'));
  console.log(
    '5. Redis store (%s): tasks/send echo, median of %d × %ds; resubscribe with Last-Event-ID to a final event, %d samples',
    redisUrl,
    config.rounds,
    config.duration,
    redis.resubscribe.samples,
  );
  console.table({
    'in-memory store': {
      'req/s': fmt(redis.send.memory.rps),
      'p50 ms': redis.send.memory.p50,
      'p99 ms': redis.send.memory.p99,
      errors: redis.send.memory.errors,
      'vs memory': '1.00×',
    },
    RedisTaskStore: {
      'req/s': fmt(redis.send.redis.rps),
      'p50 ms': redis.send.redis.p50,
      'p99 ms': redis.send.redis.p99,
      errors: redis.send.redis.errors,
      'vs memory': times(redis.send.ratio),
    },
  });
  console.table({
    'resubscribe, in-memory, same process': {
      'p50 ms': fmt(redis.resubscribe.sameProcess.p50, 2),
      'p99 ms': fmt(redis.resubscribe.sameProcess.p99, 2),
    },
    'resubscribe on B of a task run on A (Redis)': {
      'p50 ms': fmt(redis.resubscribe.acrossReplicas.p50, 2),
      'p99 ms': fmt(redis.resubscribe.acrossReplicas.p99, 2),
    },
  });
  const { streaming: rs, costPerEvent: cost } = redis;
  console.log('   Streaming, events/s (median of %d paired rounds after %d of warm-up)', config.streamRounds, config.streamWarmUp);
  console.table({
    [`one stream of ${fmt(config.bigStream)} chunks`]: {
      'in-memory store': fmt(rs.oneBigStream.b),
      RedisTaskStore: fmt(rs.oneBigStream.a),
      'vs memory': times(rs.oneBigStream.ratio),
    },
    [`${config.streams} streams × ${config.streamChunks} chunks`]: {
      'in-memory store': fmt(rs.concurrentStreams.b),
      RedisTaskStore: fmt(rs.concurrentStreams.a),
      'vs memory': times(rs.concurrentStreams.ratio),
    },
  });
  console.log("   What one event costs Redis (INFO: total_net_input_bytes, the update script's usec)");
  console.table({
    [`chunk 100, one chunk per write (mean of chunks ${100 - cost.window + 1}-100)`]: {
      'bytes received': fmt(cost.at[100].bytes),
      'script µs': fmt(cost.at[100].scriptMicros, 1),
    },
    [`chunk ${fmt(config.bigStream)}, one chunk per write (mean of the last ${cost.window})`]: {
      'bytes received': fmt(cost.at[config.bigStream].bytes),
      'script µs': fmt(cost.at[config.bigStream].scriptMicros, 1),
    },
    [`a streamed ${fmt(config.bigStream)}-chunk answer, batched by the router (mean)`]: {
      'bytes received': fmt(cost.streamed.bytes),
      'script µs': fmt(cost.streamed.scriptMicros, 1),
    },
  });
} else {
  console.log(`5. Redis store: skipped, no Redis answers at ${redisUrl} (set REDIS_URL)\n`);
}

let v10;
if (runs('v10')) {
  const sdk10 = await start('sdk10');
  v10 = await protocol10(sdk10, ours);
  const names = {
    sdk10: '@a2a-js/sdk 1.x SendMessage',
    a2a10: 'a2aRouter 1.0 SendMessage',
    a2a: 'a2aRouter 0.1.0 tasks/send',
    a2a03: 'a2aRouter 0.3 message/send',
  };
  console.log(
    '6. A2A 1.0 against the official @a2a-js/sdk 1.x server (JSON-RPC; median of %d × %ds, and of %d streams after 2 of 1,000 chunks)',
    config.rounds,
    config.duration,
    quick ? 1 : 3,
  );
  console.table(
    Object.fromEntries(
      Object.entries(names).map(([kind, name]) => [
        name,
        {
          'req/s': fmt(v10.send[kind].rps),
          'p50 ms': v10.send[kind].p50,
          'p99 ms': v10.send[kind].p99,
          errors: v10.send[kind].errors,
          'vs sdk': times(v10.send[kind].toSdk),
          [`one ${fmt(config.bigStream)}-chunk stream, events/s`]: fmt(v10.oneBigStream[kind].eventsPerSecond),
          'stream vs sdk': times(v10.oneBigStream[kind].toSdk),
        },
      ]),
    ),
  );
  console.log(`   every stream whole and in order: ${v10.complete}`);
}

let ab;
if (against && runs('ab')) {
  const theirsScript = pathToFileURL(join(resolvePath(against), 'bench/servers/a2a.mjs'));
  const [abOurs, abTheirs] = await Promise.all([start('a2a'), start('a2a', {}, theirsScript)]);
  abTheirs.name = `a2a (${against})`;
  ab = await abCompare(abOurs, abTheirs);
  console.log('7. A/B: this build against %s (median of paired rounds; > 1× means this build is faster)', against);
  console.table({
    'tasks/send echo, req/s': { 'this build': fmt(ab.send.ours.rps), [against]: fmt(ab.send.theirs.rps), ratio: times(ab.send.ratio) },
    [`one stream of ${fmt(config.bigStream)} chunks, events/s`]: {
      'this build': fmt(ab.oneBigStream.ours),
      [against]: fmt(ab.oneBigStream.theirs),
      ratio: times(ab.oneBigStream.ratio),
    },
    [`${config.streams} streams × ${config.streamChunks} chunks, events/s`]: {
      'this build': fmt(ab.concurrentStreams.ours),
      [against]: fmt(ab.concurrentStreams.theirs),
      ratio: times(ab.concurrentStreams.ratio),
    },
    '0.3 message/send echo, req/s': {
      'this build': fmt(ab.send03.ours.rps),
      [against]: fmt(ab.send03.theirs.rps),
      ratio: times(ab.send03.ratio),
    },
    [`0.3: one stream of ${fmt(config.bigStream)} chunks, events/s`]: {
      'this build': fmt(ab.oneBigStream03.ours),
      [against]: fmt(ab.oneBigStream03.theirs),
      ratio: times(ab.oneBigStream03.ratio),
    },
    [`0.3: ${config.streams} streams × ${config.streamChunks} chunks, events/s`]: {
      'this build': fmt(ab.concurrentStreams03.ours),
      [against]: fmt(ab.concurrentStreams03.theirs),
      ratio: times(ab.concurrentStreams03.ratio),
    },
  });
}

let telemetry;
if (against && runs('telemetry')) {
  const collector = await start('collector');
  collector.child = children.at(-1);
  const beforeScript = pathToFileURL(join(resolvePath(against), 'bench/servers/a2a.mjs'));
  const [before, metricsOff, metricsOn, traced] = await Promise.all([
    start('a2a', {}, beforeScript),
    start('a2a'),
    start('a2a', { BENCH_METRICS: '1' }),
    start('a2a', { BENCH_METRICS: '1', BENCH_OTLP_URL: collector.url }),
  ]);
  before.name = `a2a (${against})`;
  telemetry = await telemetryCompare({ before, metricsOff, metricsOn, traced }, collector);
  telemetry.exported = await collectorCounts(collector);
  const { send, streams, spans, recordingCost } = telemetry;
  console.log(
    '8. Tracing and monitoring against %s (median of rounds; 1.00× is no cost; the traced server exported %d batches, %d MB)',
    against,
    telemetry.exported.requests,
    Math.round(telemetry.exported.bytes / 1e6),
  );
  const row = (pick) => ({
    [against]: fmt(pick('before').value),
    'this build, metrics off': `${fmt(pick('metricsOff').value)} (${times(pick('metricsOff').ratio)})`,
    'metrics on': `${fmt(pick('metricsOn').value)} (${times(pick('metricsOn').ratio)})`,
    'metrics + tracing': `${fmt(pick('traced').value)} (${times(pick('traced').ratio)})`,
  });

  const streamPick = (workload) => (name) =>
    name === 'before'
      ? { value: streams.metricsOff[workload].b }
      : { value: streams[name][workload].a, ratio: streams[name][workload].ratio };
  console.table({
    'tasks/send echo, req/s': row((name) => ({ value: send[name].rps, ratio: send[name].ratio })),
    [`one stream of ${fmt(config.bigStream)} chunks, events/s`]: row(streamPick('oneBigStream')),
    [`${config.streams} streams × ${config.streamChunks} chunks, events/s`]: row(streamPick('concurrentStreams')),
  });
  console.log(
    '   tasks/send, each round over "before": metrics on %s; metrics + tracing %s',
    send.metricsOn.roundRatios.join(' '),
    send.traced.roundRatios.join(' '),
  );
  console.log(
    '   spans of the traced tasks/send rounds: %s made, %s exported (%s%; a full queue drops spans)',
    fmt(spans.made),
    fmt(spans.exported),
    ((100 * spans.exported) / spans.made).toFixed(1),
  );
  const perCall = recordingCost.microsecondsPerCall;
  console.log(
    '   recording one tasks/send in the metrics: %s µs of CPU, %s% of one core at the metrics-on rate above',
    perCall.toFixed(2),
    ((perCall * send.metricsOn.rps) / 1e4).toFixed(2),
  );
}

let ver;
if (runs('versions')) {
  const profileDir = fileURLToPath(new URL('profiles/', here));
  if (profiling) mkdirSync(profileDir, { recursive: true });
  const profile = (name) => (profiling ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}.cpuprofile`] : []);
  // As shipped, the SDK servers' executors do what the echo agent does with a message.
  const echoEnv = asShipped ? { BENCH_ECHO_AS_SHIPPED: '1' } : {};
  const [sdk03, sdk13, oursStreams] = await Promise.all([
    start('sdk', echoEnv, undefined, profile('sdk-0.3.14')),
    start('sdk10', echoEnv, undefined, profile('sdk-1.3')),
    start('a2a', {}, undefined, profile(asShipped ? 'a2a-bench-server-streams' : 'a2a-bench-server')),
  ]);
  const oursRr = asShipped ? await startShipped(profile('echo-agent-as-shipped')) : oursStreams;
  ver = await versions({ bare, sdk03, sdk13, ours: oursRr, oursStreams });
  ver.asShipped = asShipped;
  console.log(
    '9. Every version against the official SDK servers (%s; request/response: median of %d × %ds, %d connections; streams: median of %d rounds)',
    asShipped ? 'ours as shipped: the echo agent as `pnpm start` runs it, logs at info' : 'ours: the bench server, logs at info',
    config.rounds,
    config.duration,
    config.versionConnections,
    config.versionStreamRounds,
  );
  console.table(
    Object.fromEntries(
      Object.entries(ver.send).map(([key, x]) => [
        ver.names[key],
        {
          'req/s': fmt(x.rps),
          'p50 ms': x.p50,
          'p99 ms': x.p99,
          errors: x.errors,
          'vs bare Express': times(x.ratio),
          [`${config.versionStreams} × ${config.streamChunks}-chunk streams, events/s`]: ver.streams100[key]
            ? fmt(ver.streams100[key])
            : '',
          [`one ${fmt(config.bigStream)}-chunk stream, events/s`]: ver.stream10k[key] ? fmt(ver.stream10k[key]) : '',
        },
      ]),
    ),
  );
  const goal = (value, target) => `${times(value)} ${value >= target ? '(goal met)' : `(goal ${target}×)`}`;
  console.table(
    Object.fromEntries(
      ver.pairs.map((pair) => [
        `${ver.names[pair.ours]} vs ${ver.names[pair.sdk]}`,
        {
          'request/response': goal(pair.send, 1.5),
          [`${config.streamChunks}-chunk streams`]: goal(pair.streams100, 1.5),
          [`${fmt(config.bigStream)}-chunk stream`]: goal(pair.stream10k, 1.5),
        },
      ]),
    ),
  );
  console.log(`   0.1.0 vs bare Express: ${goal(ver.send.ours01.ratio, 0.85)}; every stream whole and in order: ${ver.complete}`);
  if (profiling) {
    for (const server of [sdk03, sdk13, oursStreams, ...(asShipped ? [oursRr] : [])]) await stopChild(server.child);
    for (const name of [
      'sdk-0.3.14',
      'sdk-1.3',
      asShipped ? 'a2a-bench-server-streams' : 'a2a-bench-server',
      ...(asShipped ? ['echo-agent-as-shipped'] : []),
    ]) {
      const file = join(profileDir, `${name}.cpuprofile`);
      writeFileSync(join(profileDir, `${name}.txt`), `${profileSummary(file)}\n`);
    }
    console.log(`   profiles (self time, top 30) in ${profileDir}`);
  }
}

if (jsonFile) {
  writeFileSync(
    jsonFile,
    JSON.stringify(
      {
        machine,
        config,
        requestResponse: rr,
        streaming: st,
        memory: mem,
        validation: val,
        redis,
        protocol10: v10,
        ab,
        telemetry,
        versions: ver,
      },
      null,
      2,
    ),
  );
  console.log(`results written to ${jsonFile}`);
}
process.exit(0);
