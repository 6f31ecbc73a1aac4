// The echo agent as apps/echo-agent/src/server.ts starts it, less what BENCH_WITHOUT names: a
// bench of what each thing users rely on costs a request (`pnpm bench:shipped --against
// without:call-logs`). Never a way to run an agent: every part left out here is one the kit keeps.
//   call-logs   the router logs at warn, so no line per call (the agent's own lines stay)
//   metrics     no a2aMetrics
//   push        push notifications off
//   retention   the store keeps 100 tasks rather than 10,000
import express from 'express';
import { pino } from 'pino';
import { a2aMetrics, serveAgent } from 'a2a-express';
import { pushNotificationOptionsFromEnv } from 'a2a-express/env';
import { InMemoryTaskStore } from 'a2a-express/store';
import { echoRouter } from '../../apps/echo-agent/dist/agent.js';

const PARTS = ['call-logs', 'metrics', 'push', 'retention'];
const without = new Set((process.env.BENCH_WITHOUT ?? '').split(',').filter(Boolean));
for (const part of without) if (!PARTS.includes(part)) throw new Error(`BENCH_WITHOUT: no part ${part} (${PARTS.join(', ')})`);

const logger = pino({ level: 'info', name: 'echo-agent' });
const store = new InMemoryTaskStore({ maxTasks: without.has('retention') ? 100 : 10_000 });
const router = echoRouter({
  logger: without.has('call-logs') ? pino({ level: 'warn', name: 'echo-agent' }) : logger,
  store,
  pushNotifications: without.has('push') ? undefined : pushNotificationOptionsFromEnv(),
  metrics: without.has('metrics') ? undefined : a2aMetrics({ processMetrics: true }),
});
const app = express().disable('x-powered-by').use(router);
serveAgent(app, { name: 'echo-agent', port: Number(process.env.PORT ?? 0), host: '127.0.0.1', logger, router, store });
