#!/usr/bin/env node
// pnpm bench:list [--tasks 1000,100000] [--rounds 5] [--calls 200] [--against <checkout>] [--stores memory,redis]
//
// What one A2A 1.0 ListTasks call costs with few tasks and with many: for each store, a server
// per task count (bench/servers/list-agent.mjs, the store filled before it listens), all running
// at once, and paired rounds that take turns among them. Each round makes `calls` calls of each
// query one after another on one connection; a figure is the median of the rounds' medians, in
// microseconds a call. The queries: a status filter matching one task in a hundred (pageSize 1),
// the first page of everything (pageSize 50), and a context's first page (pageSize 50).
// --against names another checkout of the kit, installed and built: its a2a-express serves the
// same stores beside this one's, so the table shows both.
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { resolve as resolvePath } from 'node:path';
import { deleteKeys, redisAnswers } from 'a2a-testing';
import { median } from './median.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const counts = option('--tasks', '1000,100000').split(',').map(Number);
const rounds = Number(option('--rounds', '5'));
const calls = Number(option('--calls', '200'));
const against = option('--against');
const storeNames = option('--stores', 'memory,redis').split(',');
if (counts.some((n) => !Number.isInteger(n) || n < 1) || !(rounds >= 1) || !(calls >= 1)) {
  console.error('--tasks takes whole numbers (1000,100000), --rounds and --calls a whole number');
  process.exit(2);
}
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const QUERIES = {
  'status=FAILED, pageSize 1': '/v1/tasks?status=TASK_STATE_FAILED&pageSize=1',
  'first page, pageSize 50': '/v1/tasks?pageSize=50',
  'one context, pageSize 50': '/v1/tasks?contextId=context-7&pageSize=50',
};

const builds = [{ name: 'this build' }, ...(against ? [{ name: against, kit: resolvePath(against, 'packages/a2a-express') }] : [])];
const stores = [];
for (const name of storeNames) {
  if (name === 'redis' && !(await redisAnswers(REDIS_URL))) {
    console.error(`no Redis at ${REDIS_URL}: the Redis store is left out`);
    continue;
  }
  if (name === 'memory' || name === 'redis') stores.push(name);
}

const children = [];
const prefixes = [];
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});

/** Starts a list agent; resolves with its port once its store is filled and it listens. */
function startListAgent(store, tasks, build) {
  const prefix = `a2a-bench:list:${process.pid}:${prefixes.length}:`;
  if (store === 'redis') prefixes.push(prefix);
  const env = {
    ...process.env,
    BENCH_TASKS: String(tasks),
    ...(store === 'redis' ? { BENCH_REDIS_URL: REDIS_URL, BENCH_REDIS_PREFIX: prefix } : {}),
    ...(build.kit ? { BENCH_KIT: build.kit } : {}),
  };
  const child = fork(new URL('servers/list-agent.mjs', import.meta.url), [], {
    env,
    execArgv: ['--max-old-space-size=8192'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('message', ({ port }) => resolve(port));
    child.once('exit', (code) => reject(new Error(`the list agent (${store}, ${tasks} tasks) exited with ${code}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(port, path) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent, headers: { 'a2a-version': '1.0' } }, (res) => {
        let size = 0;
        res.on('data', (chunk) => (size += chunk.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(size) : reject(new Error(`${path}: HTTP ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

/** Median microseconds of `calls` calls of `path`, one after another. */
async function timeCalls(port, path) {
  const times = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await get(port, path);
    times.push((performance.now() - started) * 1000);
  }
  return median(times);
}

const subjects = [];
for (const store of stores) {
  for (const build of builds) {
    for (const tasks of counts) {
      const filling = performance.now();
      const port = await startListAgent(store, tasks, build);
      console.error(`${store}, ${tasks} tasks, ${build.name}: filled in ${((performance.now() - filling) / 1000).toFixed(1)} s`);
      subjects.push({ store, build: build.name, tasks, port, figures: Object.fromEntries(Object.keys(QUERIES).map((q) => [q, []])) });
    }
  }
}
// Warm-up: the first calls compile the paths (and the in-memory store builds its indexes).
for (const subject of subjects) for (const path of Object.values(QUERIES)) for (let i = 0; i < 20; i++) await get(subject.port, path);
for (let round = 0; round < rounds; round++) {
  // Each round takes the subjects in another order, so that drift hits them alike.
  const order = subjects.map((_, i) => subjects[(i + round) % subjects.length]);
  for (const subject of order) {
    for (const [query, path] of Object.entries(QUERIES)) subject.figures[query].push(await timeCalls(subject.port, path));
  }
}

console.log(
  '10. ListTasks (A2A 1.0 HTTP+JSON, one call at a time on one connection): µs a call, median of %d rounds of %d calls; %s, %d CPUs, Node %s',
  rounds,
  calls,
  os.cpus()[0]?.model ?? 'unknown CPU',
  os.cpus().length,
  process.version,
);
const rows = {};
for (const subject of subjects) {
  const label = `${subject.store}, ${subject.tasks.toLocaleString('en')} tasks${against ? `, ${subject.build}` : ''}`;
  rows[label] = Object.fromEntries(Object.entries(subject.figures).map(([query, figures]) => [query, Math.round(median(figures))]));
}
console.table(rows);
for (const store of stores) {
  for (const build of builds) {
    const few = subjects.find((s) => s.store === store && s.build === build.name && s.tasks === counts[0]);
    const many = subjects.find((s) => s.store === store && s.build === build.name && s.tasks === counts.at(-1));
    if (!few || !many || few === many) continue;
    const ratios = Object.keys(QUERIES).map((q) => `${q}: ${(median(many.figures[q]) / median(few.figures[q])).toFixed(2)}×`);
    console.log(`${store}${against ? ` (${build.name})` : ''}, ${counts.at(-1)} against ${counts[0]} tasks: ${ratios.join('; ')}`);
  }
}
for (const child of children) child.kill('SIGTERM');
agent.destroy();
for (const prefix of prefixes) await deleteKeys(REDIS_URL, prefix);
process.exit(0);
