// Starts this agent. Configuration by environment variables (all listed in the README):
//   PORT (default `agent.port` below), HOST (default 127.0.0.1; the container image sets 0.0.0.0),
//   ECHO_DELAY_MS (pause between streamed chunks, default 0), LOG_LEVEL (default info),
//   A2A_PUSH_ALLOWLIST, A2A_PUSH_SIGNING_KEY, A2A_PUSH_VERIFY_OWNERSHIP (push notifications),
//   A2A_REDIS_URL, A2A_REDIS_PREFIX, A2A_REDIS_LEASE_MS (tasks shared by replicas in Redis),
//   A2A_STORE, DATABASE_URL, A2A_POSTGRES_SCHEMA, A2A_POSTGRES_LEASE_MS, A2A_PUSH_CONFIG_KEY (PostgreSQL),
//   A2A_ON_INTERRUPTED, A2A_MAX_ATTEMPTS (a turn whose replica died: resumed or failed; docs/replicas.md),
//   A2A_MAX_TASK_BYTES (the most one task holds, default 16 MiB),
//   A2A_SHUTDOWN_GRACE_MS (on SIGTERM, how long running turns get before they are failed or handed over),
//   A2A_ROLE, A2A_MAX_CONCURRENT_TURNS (front ends and workers on a shared store; docs/replicas.md),
//   A2A_API_KEYS, A2A_API_KEY_HEADER, A2A_JWKS_URL, A2A_JWT_ISSUER, A2A_JWT_AUDIENCE (auth),
//   METRICS_PORT (Prometheus metrics on a port of their own), OTEL_* (traces; docs/observability.md).
import express from 'express';
import { pino } from 'pino';
import { a2aMetrics, serveAgent } from 'a2a-express';
import { describeAuthentication, exitOnBadConfiguration, integerFromEnv, routerOptionsFromEnv, serveOptionsFromEnv } from 'a2a-express/env';
import { echoRouter } from './agent.js';

// Who this agent is: its name in the logs, its port unless PORT is set, the Redis key prefix
// its replicas share. A new agent made from this one (create-a2a-agent) gets its own.
const agent = { name: 'echo-agent', port: 41241, redisPrefix: 'a2a:echo:' } as const;

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: agent.name });
try {
  const chunkDelayMs = integerFromEnv('ECHO_DELAY_MS', 0);
  // The store (A2A_STORE=postgres with DATABASE_URL, or A2A_REDIS_URL, or neither: in memory),
  // auth, push notifications, resumed turns, limits and role (A2A_ROLE=front-end takes calls and
  // queues their turns, A2A_ROLE=worker runs them).
  const fromEnv = await routerOptionsFromEnv(agent);
  const router = echoRouter({ ...fromEnv, logger, chunkDelayMs, metrics: a2aMetrics({ processMetrics: true }) });
  // A worker takes no A2A calls: its port serves its health and metrics alone (serveAgent adds them).
  const app = express().disable('x-powered-by');
  if (router.role !== 'worker') app.use(router);
  serveAgent(app, {
    ...serveOptionsFromEnv(agent),
    logger,
    router,
    store: fromEnv.store,
    details: { chunkDelayMs, authentication: describeAuthentication(fromEnv.auth) },
  });
} catch (error) {
  exitOnBadConfiguration(logger, agent.name, error);
}
