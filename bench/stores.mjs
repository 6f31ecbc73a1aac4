#!/usr/bin/env node
// pnpm bench:stores [--rounds N] [--seconds S] [--warm-up S] [--database-url postgres://…] [--json file]
//                   [--cost-against <checkout>] [--stream-chunks N] [--cost-chunks A,B]
//                   [--against <checkout> | --against resume] [--stores memory,redis,postgres,postgres-async]
//                   [--streams N]
//
// The three task stores in one run, each behind the same bench server (servers/a2a.mjs, a child
// process of its own): the in-memory store, Redis, and PostgreSQL (with its default durability,
// synchronous_commit on, and with synchronous_commit off, which is closer to what Redis's
// append-only file promises). Paired rounds, the order rotating each round, medians:
//   - request/response: tasks/send echo, autocannon, 32 connections, S seconds a server a round;
//   - one stream of 4,000 chunks (tasks/sendSubscribe), events/s, every event checked in order;
// then what PostgreSQL itself counts for one event (pg_stat_statements, and WAL bytes from
// pg_current_wal_lsn) over streams of 200 and of 4,000 chunks: written as the router writes a
// stream (a batch of chunks a transaction), and one chunk a change (the most a stream can cost,
// as for a handler slower than the database).
// PostgreSQL is a cluster of the bench's own (Debian's binaries, PostgreSQL's durability
// defaults, pg_stat_statements loaded) unless --database-url names one; Redis is REDIS_URL or
// 127.0.0.1:6379, and left out when it does not answer.
// --cost-against <checkout> measures only what one event costs PostgreSQL, one chunk a change, on
// this build's store and on the store of another build (a clone at another commit, installed and
// built), in the same run and on the same database.
// --against <checkout> sets each store of this build against the same store of another build (a
// clone at another commit, installed and built: its own bench/servers/a2a.mjs), two servers a
// store, in paired rounds (which side goes first alternates): request/response and the stream,
// this build's figure over the other's, the median of the rounds' ratios, and the middle half of
// them (each round's ratio in the JSON file's eachRound), the median over pairs of rounds, one in
// each order (both orders: the figure to read), and the CPU each side took a request
// and an event (the other's over this build's): --against with this checkout's own folder
// measures how far the machine moves a ratio with nothing changed. --against resume sets
// this build against itself with `onInterrupted: 'resume'` and a checkpoint with every chunk
// (BENCH_ON_INTERRUPTED, BENCH_CHECKPOINTS): what resume costs a turn that is never interrupted.
// Neither measures PostgreSQL's own counters.
import os from 'node:os';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deleteKeys, redisAnswers, startOwnPostgres } from 'a2a-testing';
import { PostgresTaskStore } from 'a2a-express/postgres';
import { RedisTaskStore } from 'a2a-express/redis';
import pg from 'pg';
import { loadWith, startBenchServer, versionStream } from './echo-agent.mjs';
import { median } from './median.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number(option('--rounds', '6'));
const seconds = Number(option('--seconds', '5'));
const warmUpSeconds = Number(option('--warm-up', '2'));
const costAgainst = option('--cost-against');
const against = option('--against');
const jsonFile = option(
  '--json',
  fileURLToPath(
    new URL(
      costAgainst ? 'results-stores-cost-ab.json' : against ? 'results-stores-ab.json' : 'results-stores-latest.json',
      import.meta.url,
    ),
  ),
);
// The stream measured, and the streams whose cost per event is compared (smaller for a smoke run).
const STREAM_CHUNKS = Number(option('--stream-chunks', '4000'));
const COST_CHUNKS = option('--cost-chunks', '200,4000').split(',').map(Number);
// --against: streams each side reads a round, the sides taking turns; a side's figure is of them
// all. One stream of 4,000 chunks lasts some 80 ms, short enough for another process's moment on
// the CPU to move it by a third.
const STREAMS_A_ROUND = Number(option('--streams', '1'));

const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const own = option('--database-url')
  ? undefined
  : await startOwnPostgres({
      fsync: 'on',
      synchronous_commit: 'on',
      full_page_writes: 'on',
      shared_preload_libraries: 'pg_stat_statements',
    });
const databaseUrl = option('--database-url') ?? own.url;
const admin = new pg.Client({ connectionString: databaseUrl });
await admin.connect();
const statementsCounted = await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').then(
  () => true,
  (error) => {
    console.error(`pg_stat_statements is not available (${error.message}): statements are not counted`);
    return false;
  },
);
const schema = `bench_${process.pid}`;
const redisPrefix = `a2a:bench-stores:${process.pid}:`;
const withRedis = await redisAnswers(redisUrl);
if (!withRedis) console.error(`Redis at ${redisUrl} does not answer: the Redis store is left out`);

const script = fileURLToPath(new URL('servers/a2a.mjs', import.meta.url));
const asyncCommit = `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c synchronous_commit=off')}`;
// --stores memory,redis,postgres,postgres-async: the stores measured (all by default).
const storesAsked = option('--stores', 'memory,redis,postgres,postgres-async').split(',');
const plans = [
  ['memory', 'in-memory', {}],
  ...(withRedis ? [['redis', 'Redis', { BENCH_REDIS_URL: redisUrl, BENCH_REDIS_PREFIX: redisPrefix }]] : []),
  ['postgres', 'PostgreSQL', { BENCH_POSTGRES_URL: databaseUrl, BENCH_POSTGRES_SCHEMA: schema }],
  ['postgres-async', 'PostgreSQL, synchronous_commit off', { BENCH_POSTGRES_URL: asyncCommit, BENCH_POSTGRES_SCHEMA: `${schema}_async` }],
]
  .filter(([key]) => storesAsked.includes(key))
  .map(([, name, env]) => [name, env]);
const servers = [];
if (against) {
  // Two servers a store: this build's and the other side's, each with its own keys and schema.
  const otherScript = against === 'resume' ? script : resolvePath(against, 'bench/servers/a2a.mjs');
  const otherEnv = against === 'resume' ? { BENCH_ON_INTERRUPTED: 'resume', BENCH_CHECKPOINTS: '1' } : {};
  const apart = (env, side) =>
    Object.fromEntries(
      Object.entries(env).map(([key, value]) => [
        key,
        /PREFIX$/.test(key) ? `${value}${side}:` : /SCHEMA$/.test(key) ? `${value}_${side}` : value,
      ]),
    );
  for (const [name, env] of plans) {
    servers.push({ name, side: 'this', ...(await startBenchServer(script, { env: apart(env, 'this') })) });
    servers.push({ name, side: 'other', ...(await startBenchServer(otherScript, { env: { ...apart(env, 'other'), ...otherEnv } })) });
  }
} else if (!costAgainst) for (const [name, env] of plans) servers.push({ name, ...(await startBenchServer(script, { env })) });
const stopAll = () => {
  for (const server of servers) server.child.kill();
};
process.on('exit', stopAll);

/** One stream of `chunks` chunks read to its end: data events per second; throws if any was lost or reordered. */
async function streamRate(server, chunks) {
  const started = performance.now();
  const { events, whole } = await versionStream({ version: '0.1.0', streamUrl: server.url, headers: {} }, chunks);
  if (!whole || events !== chunks + 2) throw new Error(`${server.name}: a stream of ${chunks} chunks lost or reordered events (${events})`);
  return events / ((performance.now() - started) / 1000);
}

// Warm-up: each server answers and streams before anything is measured.
for (const server of servers) {
  await loadWith(server, '0.1.0', warmUpSeconds);
  await streamRate(server, STREAM_CHUNKS);
}

if (against) {
  await pairedRounds();
  await finish();
  process.exit(0);
}

/**
 * CPU time the threads of a process have used, in ns, from Linux's schedstat: /proc/<pid>/stat
 * counts in 10 ms ticks, steps of a seventh of a 4,000-chunk stream. Undefined where it cannot be
 * read (another system, a process elsewhere).
 */
function cpuNanos(pid) {
  try {
    let used = 0;
    for (const thread of readdirSync(`/proc/${pid}/task`))
      used += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
    return used;
  } catch {
    return undefined;
  }
}

/** The process id of the Redis at `url`, as its INFO gives it (whose CPU a side's stream also uses). */
async function redisProcessId(url) {
  const store = new RedisTaskStore({ url, prefix: redisPrefix });
  try {
    return Number(/process_id:(\d+)/.exec(await store.redis.info('server'))?.[1]);
  } finally {
    await store.close();
  }
}

/**
 * --against: each store's two sides, round after round, the side that goes first alternating.
 * Beside the rates, the CPU each side took a request and an event: its server's, and for Redis
 * redis-server's too when it runs on this machine. Time another process takes from a side moves
 * its rate but not its CPU, so on a shared machine the CPU ratio shows a change the rates' noise hides.
 */
async function pairedRounds() {
  const sides = (name) => servers.filter((server) => server.name === name);
  const runs = Object.fromEntries(
    plans.map(([name]) => [
      name,
      Object.fromEntries(['this', 'other'].map((side) => [side, { rps: [], stream: [], rpsCpu: [], streamCpu: [] }])),
    ]),
  );
  const redisPid = withRedis ? await redisProcessId(redisUrl) : undefined;
  const cpuOf = (server) => {
    const own = cpuNanos(server.child.pid);
    const redis = server.name === 'Redis' && redisPid ? cpuNanos(redisPid) : 0;
    return own === undefined || redis === undefined ? Number.NaN : own + redis;
  };
  for (let round = 0; round < rounds; round++) {
    for (const [name] of plans) {
      const order = round % 2 === 0 ? sides(name) : sides(name).reverse();
      for (const server of order) {
        const before = cpuOf(server);
        const { requests } = await loadWith(server, '0.1.0', seconds);
        runs[name][server.side].rps.push(requests.average);
        runs[name][server.side].rpsCpu.push((cpuOf(server) - before) / requests.total);
      }
      const taken = new Map(order.map((server) => [server, { ms: 0, cpu: 0 }]));
      for (let stream = 0; stream < STREAMS_A_ROUND; stream++) {
        for (const server of order) {
          const before = cpuOf(server);
          const started = performance.now();
          await streamRate(server, STREAM_CHUNKS);
          taken.get(server).ms += performance.now() - started;
          taken.get(server).cpu += cpuOf(server) - before;
        }
      }
      const events = STREAMS_A_ROUND * (STREAM_CHUNKS + 2);
      for (const [server, { ms, cpu }] of taken) {
        runs[name][server.side].stream.push(events / (ms / 1000));
        runs[name][server.side].streamCpu.push(cpu / events);
      }
    }
    console.error(`round ${round + 1}/${rounds} done`);
  }
  const ratios = (mine, theirs) => mine.map((value, i) => value / theirs[i]);
  const ratio = (each) => Number(median(each).toFixed(2));
  // The middle half of the rounds' ratios (from the round a quarter up to the one three quarters
  // up, both measured values): how far one round strays on this machine, beside the median.
  const middleHalf = (each) => {
    const sorted = [...each].sort((a, b) => a - b);
    const at = (share) => sorted[Math.floor((sorted.length - 1) * share)].toFixed(2);
    return `${at(0.25)}–${at(0.75)}`;
  };
  // Rounds two by two, one with this side first and one with the other first: the median of their
  // ratios' geometric means. Which side goes first moved single rounds by up to a half on the shared
  // VM (a stream read right after the other side's ran faster; a PostgreSQL just given 3 s of the
  // other side's writes answered slower), so a median of single rounds sits in whichever order's
  // cluster its middle round falls: 0.93× in one run, 1.07× in the next.
  const bothOrders = (each) => {
    const pairs = [];
    for (let i = 0; i + 1 < each.length; i += 2) pairs.push(Math.sqrt(each[i] * each[i + 1]));
    return pairs.length === 0 ? null : Number(median(pairs).toFixed(2));
  };
  const otherName = against === 'resume' ? 'resume, a checkpoint a chunk' : 'the other build';
  const eachRound = {};
  const speed = Object.fromEntries(
    Object.entries(runs).map(([name, run]) => {
      const rps = ratios(run.this.rps, run.other.rps);
      const stream = ratios(run.this.stream, run.other.stream);
      // The other side's CPU over this one's: above 1, this side does the work for less.
      const rpsCpu = ratios(run.other.rpsCpu, run.this.rpsCpu);
      const streamCpu = ratios(run.other.streamCpu, run.this.streamCpu);
      eachRound[name] = { 'req/s ratio': rps, 'stream ratio': stream, 'CPU a request ratio': rpsCpu, 'CPU an event ratio': streamCpu };
      return [
        name,
        {
          'req/s': Math.round(median(run.this.rps)),
          [`req/s, ${otherName}`]: Math.round(median(run.other.rps)),
          'req/s ratio': ratio(rps),
          'req/s ratio, middle half': middleHalf(rps),
          'req/s ratio, both orders': bothOrders(rps),
          [`${STREAM_CHUNKS}-chunk stream, events/s`]: Math.round(median(run.this.stream)),
          [`events/s, ${otherName}`]: Math.round(median(run.other.stream)),
          'stream ratio': ratio(stream),
          'stream ratio, middle half': middleHalf(stream),
          'stream ratio, both orders': bothOrders(stream),
          'CPU a request ratio': Number.isNaN(rpsCpu[0]) ? null : ratio(rpsCpu),
          'CPU an event ratio': Number.isNaN(streamCpu[0]) ? null : ratio(streamCpu),
          'CPU an event, middle half': Number.isNaN(streamCpu[0]) ? null : middleHalf(streamCpu),
          'CPU an event, both orders': Number.isNaN(streamCpu[0]) ? null : bothOrders(streamCpu),
        },
      ];
    }),
  );
  const machine = `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  console.log(
    `${machine}; this build against ${against === 'resume' ? 'itself with resume on and a checkpoint with every chunk' : against}; ${rounds} paired rounds of ${seconds} s a server and ${STREAMS_A_ROUND} stream(s), medians (ratio: the median of the rounds' ratios, this build over the other; CPU ratio: the other's CPU a request or an event over this build's, the server's and redis-server's)`,
  );
  console.table(speed);
  writeFileSync(
    jsonFile,
    `${JSON.stringify({ date: new Date().toISOString(), machine, against, rounds, seconds, warmUpSeconds, speed, eachRound }, null, 2)}\n`,
  );
}

const runs = Object.fromEntries(servers.map((server) => [server.name, { rps: [], p99: [], stream: [] }]));
for (let round = 0; round < (costAgainst ? 0 : rounds); round++) {
  // Each round starts from another server, so that none always runs first or last.
  const order = servers.map((_, i) => servers[(i + round) % servers.length]);
  for (const server of order) {
    const result = await loadWith(server, '0.1.0', seconds);
    runs[server.name].rps.push(result.requests.average);
    runs[server.name].p99.push(result.latency.p99);
  }
  for (const server of order) runs[server.name].stream.push(await streamRate(server, STREAM_CHUNKS));
  console.error(`round ${round + 1}/${rounds} done`);
}
const baseline = runs['in-memory'];
// Ratios to the in-memory store when it was measured (--stores may leave it out).
const paired = (list, base) => (base ? Number(median(list.map((value, round) => value / base[round])).toFixed(2)) : null);
const speed = Object.fromEntries(
  Object.entries(costAgainst ? {} : runs).map(([name, run]) => [
    name,
    {
      'req/s': Math.round(median(run.rps)),
      'p99 ms': median(run.p99),
      'req/s vs in-memory': paired(run.rps, baseline?.rps),
      [`${STREAM_CHUNKS}-chunk stream, events/s`]: Math.round(median(run.stream)),
      'stream vs in-memory': paired(run.stream, baseline?.stream),
    },
  ]),
);

// What PostgreSQL counts for one event. Statements the bench itself sends to read the counters
// are left out by their text.
async function counters() {
  const wal = (await admin.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
  if (!statementsCounted) return { wal, statements: 0 };
  const counted = await admin.query(
    "SELECT coalesce(sum(calls), 0)::bigint AS calls FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%pg_current_wal_lsn%'",
  );
  return { wal, statements: Number(counted.rows[0].calls) };
}
async function costOf(events, run) {
  const before = await counters();
  await run();
  const after = await counters();
  const walBytes = Number((await admin.query('SELECT pg_wal_lsn_diff($1, $2)::bigint AS bytes', [after.wal, before.wal])).rows[0].bytes);
  return {
    'statements per event': statementsCounted ? Number(((after.statements - before.statements) / events).toFixed(2)) : null,
    'WAL bytes per event': Math.round(walBytes / events),
  };
}
const postgresServer = servers.find((server) => server.name === 'PostgreSQL');
const stores = { 'this build': PostgresTaskStore };
if (costAgainst) {
  const other = await import(pathToFileURL(resolvePath(costAgainst, 'packages/a2a-express/dist/postgres.js')).href);
  stores[`the build at ${costAgainst}`] = other.PostgresTaskStore;
}
const created = (taskId) => ({
  task: { id: taskId, contextId: `ctx-${taskId}`, status: { state: 'working', timestamp: new Date().toISOString() } },
  history: [{ role: 'user', parts: [{ type: 'text', text: 'stream' }] }],
  lastEventId: 0,
  turn: 1,
  updatedAt: Date.now(),
  bytes: 0,
});
const chunkChange = (taskId, n) => (current) => ({
  record: current ?? created(taskId),
  events: [{ id: taskId, artifact: { index: 0, append: n > 1, lastChunk: false, parts: [{ type: 'text', text: `chunk ${n}` }] } }],
});
const cost = {};
for (const chunks of COST_CHUNKS) {
  const figures = {};
  if (postgresServer) figures['as the router writes a stream'] = await costOf(chunks + 2, () => streamRate(postgresServer, chunks));
  for (const [build, Store] of Object.entries(stores)) {
    const direct = new Store({ connectionString: databaseUrl, schema: `${schema}_direct` });
    const taskId = `direct-${chunks}-${Object.keys(figures).length}`;
    await direct.update(taskId, (current) => ({ record: current ?? created(taskId), events: [] }));
    figures[costAgainst ? `one chunk a change, ${build}` : 'one chunk a change'] = await costOf(chunks, async () => {
      for (let n = 1; n <= chunks; n++) await direct.update(taskId, chunkChange(taskId, n));
    });
    await direct.close();
  }
  cost[`${chunks} chunks`] = figures;
}

const machine = `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const postgresVersion = (await admin.query('SHOW server_version')).rows[0].server_version;
const results = { date: new Date().toISOString(), machine, postgres: postgresVersion, rounds, seconds, warmUpSeconds, speed, cost };
console.log(`${machine}; PostgreSQL ${postgresVersion}; ${rounds} rounds of ${seconds} s a server, medians`);
if (!costAgainst) console.table(speed);
for (const [chunks, figures] of Object.entries(cost)) {
  console.log(`PostgreSQL's own figures, a stream of ${chunks}:`);
  console.table(figures);
}
writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);

await finish();

/** Stops the servers and removes what they stored. */
async function finish() {
  stopAll();
  const cleanup = new pg.Client({ connectionString: databaseUrl });
  await cleanup.connect();
  for (const base of [schema, `${schema}_async`, `${schema}_direct`])
    for (const name of [base, `${base}_this`, `${base}_other`])
      await cleanup.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(name)} CASCADE`);
  await cleanup.end();
  await admin.end();
  if (withRedis) await deleteKeys(redisUrl, redisPrefix);
  await own?.dispose();
}
