#!/usr/bin/env node
// pnpm bench:pg-drivers [--rounds N] [--seconds S]
//
// Why the PostgreSQL store is on `pg` (node-postgres) rather than `postgres` (postgres.js): the two
// drivers side by side on the statements the store's hot path sends, in one run on a database of
// the bench's own. Each driver: a pool of 10 connections, 32 callers at once, each call one
// prepared statement (a task written: an insert with a JSON value and a few scalars, returning a
// column; then read back by key). Paired rounds, the order alternating, medians: calls a second,
// and this process's CPU a call (both drivers run in it, one at a time).
import { startOwnPostgres } from 'a2a-testing';
import pg from 'pg';
import postgres from 'postgres';
import { median } from './median.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const rounds = Number(option('--rounds', '8'));
const seconds = Number(option('--seconds', '4'));
const CALLERS = 32;

const own = await startOwnPostgres({ fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' });
const setup = new pg.Client({ connectionString: own.url });
await setup.connect();
await setup.query('CREATE TABLE tasks (task_id text PRIMARY KEY, state text NOT NULL, rev integer NOT NULL, record json NOT NULL)');
await setup.end();

const record = (n) =>
  JSON.stringify({ task: { id: `t-${n}`, contextId: 'c', status: { state: 'working' } }, lastEventId: n % 7, bytes: 120 });
const WRITE =
  'INSERT INTO tasks (task_id, state, rev, record) VALUES ($1, $2, 1, $3) ON CONFLICT (task_id) DO UPDATE SET rev = tasks.rev + 1, record = $3 RETURNING rev';
const READ = 'SELECT record::text AS record, rev FROM tasks WHERE task_id = $1';

const nodePostgres = new pg.Pool({ connectionString: own.url, max: 10 });
const postgresJs = postgres(own.url, { max: 10, prepare: true, onnotice: () => undefined });
let written = 0;
const drivers = {
  pg: async (n) => {
    const id = `pg-${n}`;
    await nodePostgres.query({ name: 'write', text: WRITE, values: [id, 'working', record(n)] });
    const read = await nodePostgres.query({ name: 'read', text: READ, values: [id] });
    if (read.rows[0].rev !== 1) throw new Error('pg: a write was not read back');
  },
  postgres: async (n) => {
    const id = `js-${n}`;
    await postgresJs.unsafe(WRITE, [id, 'working', record(n)], { prepare: true });
    const read = await postgresJs.unsafe(READ, [id], { prepare: true });
    if (read[0].rev !== 1) throw new Error('postgres: a write was not read back');
  },
};

/** `seconds` of calls from CALLERS callers at once: calls a second, and CPU microseconds a call. */
async function load(call) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  let calls = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (performance.now() - started < seconds * 1000) {
        await call(++written);
        calls++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { rate: calls / ((performance.now() - started) / 1000), cpuPerCall: (used.user + used.system) / calls };
}

for (const call of Object.values(drivers)) await load(call);
const runs = { pg: [], postgres: [] };
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? ['pg', 'postgres'] : ['postgres', 'pg'];
  for (const name of order) runs[name].push(await load(drivers[name]));
}
const summary = Object.fromEntries(
  Object.entries(runs).map(([name, list]) => [
    name,
    {
      'calls/s (a write and a read)': Math.round(median(list.map((r) => r.rate))),
      'client CPU µs a call': Math.round(median(list.map((r) => r.cpuPerCall))),
      'calls/s vs pg': Number(median(list.map((r, i) => r.rate / runs.pg[i].rate)).toFixed(2)),
    },
  ]),
);
console.log(`${rounds} rounds of ${seconds} s, medians`);
console.table(summary);
await nodePostgres.end();
await postgresJs.end();
await own.dispose();
