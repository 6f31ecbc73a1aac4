// Starts this agent. Configuration by environment variables (all listed in the README):
//   PORT (default `agent.port` below: the conformance kit's default agent port), HOST (default
//   127.0.0.1; the container image sets 0.0.0.0), CONFORMANCE_RESUBSCRIBE_WAIT_MS (how long the
//   resubscribe scenario keeps its task working, default 4000), CONFORMANCE_REQUIRE_EXTENSION=1
//   (declare the kit's urn:a2a:tck:required-extension as required, for CORE-CAP-004), LOG_LEVEL (default info),
//   A2A_PUSH_ALLOWLIST, A2A_PUSH_SIGNING_KEY, A2A_PUSH_VERIFY_OWNERSHIP (push notifications, on),
//   A2A_REDIS_URL, A2A_REDIS_PREFIX, A2A_REDIS_LEASE_MS (tasks shared by replicas in Redis),
//   METRICS_PORT (Prometheus metrics on a port of their own), OTEL_* (traces; docs/observability.md).
import express from 'express';
import { pino } from 'pino';
import { a2aMetrics, serveAgent } from 'a2a-express';
import { integerFromEnv, grpcOptionsFromEnv, metricsPortFromEnv, pushNotificationOptionsFromEnv } from 'a2a-express/env';
import { postgresStoreFromEnv } from 'a2a-express/postgres';
import { taskStoreFromEnv } from 'a2a-express/redis';
import { conformanceRouter } from './agent.js';

const agent = { name: 'conformance-agent', port: 9999, redisPrefix: 'a2a:conformance:' } as const;

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: agent.name });
try {
  const resubscribeWaitMs = integerFromEnv('CONFORMANCE_RESUBSCRIBE_WAIT_MS', 4_000);
  // A2A_STORE=postgres with DATABASE_URL, or A2A_REDIS_URL, or (neither) in memory.
  const store = postgresStoreFromEnv(agent.name.replace(/\W/g, '_')) ?? taskStoreFromEnv(agent.redisPrefix);
  // The kit tests push configs when the card says it takes them: this agent does, always.
  const router = conformanceRouter({
    logger,
    resubscribeWaitMs,
    requireTckExtension: process.env.CONFORMANCE_REQUIRE_EXTENSION === '1',
    store,
    pushNotifications: pushNotificationOptionsFromEnv(),
    metrics: a2aMetrics({ processMetrics: true }),
  });
  const app = express().disable('x-powered-by').use(router);
  serveAgent(app, {
    name: agent.name,
    port: integerFromEnv('PORT', agent.port),
    host: process.env.HOST || '127.0.0.1',
    logger,
    router,
    store,
    metricsPort: metricsPortFromEnv(),
    grpc: grpcOptionsFromEnv(),
    details: { resubscribeWaitMs, authentication: 'none (open to every client)' },
  });
} catch (error) {
  logger.fatal({ err: error }, `${agent.name}: bad configuration`);
  process.exit(1);
}
