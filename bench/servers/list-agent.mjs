// A ListTasks subject: the router over a store filled with BENCH_TASKS tasks (in memory, or
// in Redis with BENCH_REDIS_URL and BENCH_REDIS_PREFIX), written straight into the store: one in
// a hundred failed, the others completed, spread over 100 contexts, none owned (no auth), each
// with a status a millisecond after the one before. BENCH_KIT names the a2a-express package to
// load (another checkout's, for an A/B); default this checkout's.
import express from 'express';
import { pino } from 'pino';
import { pathToFileURL } from 'node:url';

const kitDir = process.env.BENCH_KIT ?? new URL('../../packages/a2a-express', import.meta.url).pathname;
const kit = (path) => import(pathToFileURL(`${kitDir}/dist/${path}`).href);
const { a2aRouter, completed } = await kit('index.js');
const tasks = Number(process.env.BENCH_TASKS ?? 1000);
let store;
if (process.env.BENCH_REDIS_URL) {
  const { RedisTaskStore } = await kit('redis.js');
  store = new RedisTaskStore({ url: process.env.BENCH_REDIS_URL, prefix: process.env.BENCH_REDIS_PREFIX });
} else {
  const { InMemoryTaskStore } = await kit('store/index.js');
  store = new InMemoryTaskStore({ maxTasks: tasks + 1000, maxBytes: 2 * 1024 * 1024 * 1024, retentionMs: 24 * 60 * 60 * 1000 });
}

const start = Date.parse('2026-11-01T00:00:00.000Z');
const record = (i) => {
  const id = `task-${String(i).padStart(7, '0')}`;
  const state = i % 100 === 50 ? 'failed' : 'completed';
  const timestamp = new Date(start + i).toISOString();
  return {
    id,
    change: () => ({
      record: {
        task: { id, contextId: `context-${i % 100}`, status: { state: 'submitted', timestamp } },
        history: [{ role: 'user', parts: [{ type: 'text', text: `task ${i}` }] }],
        lastEventId: 0,
        turn: 1,
        updatedAt: Date.now(),
        bytes: 0,
      },
      events: [{ id, status: { state, timestamp }, final: true }],
    }),
  };
};
// Written a batch at a time: one after another would take minutes on Redis.
for (let i = 0; i < tasks; i += 200) {
  const batch = [];
  for (let j = i; j < Math.min(tasks, i + 200); j++) {
    const { id, change } = record(j);
    batch.push(store.update(id, change));
  }
  await Promise.all(batch);
}

const app = express();
const agent = async function* () {
  yield completed();
};
app.use(a2aRouter(agent, { card: { name: 'List', version: '1.0.0' }, logger: pino({ level: 'warn' }), store }));
const server = app.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('SIGTERM', () => process.exit(0));
