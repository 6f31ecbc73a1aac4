// Starts this agent. Configuration by environment variables (all listed in the README):
//   PORT (default `agent.port` below: the conformance kit's default agent port), HOST (default
//   127.0.0.1; the container image sets 0.0.0.0), CONFORMANCE_RESUBSCRIBE_WAIT_MS (how long the
//   resubscribe scenario keeps its task working, default 4000), CONFORMANCE_REQUIRE_EXTENSION=1
//   (declare the kit's urn:a2a:tck:required-extension as required, for CORE-CAP-004), LOG_LEVEL (default info),
//   A2A_PUSH_ALLOWLIST, A2A_PUSH_SIGNING_KEY, A2A_PUSH_VERIFY_OWNERSHIP (push notifications, on),
//   A2A_STORE and the A2A_REDIS_* / DATABASE_URL and A2A_POSTGRES_* variables (tasks shared by
//   replicas), A2A_ON_INTERRUPTED, A2A_MAX_ATTEMPTS, A2A_MAX_TASK_BYTES, A2A_SHUTDOWN_GRACE_MS,
//   A2A_ROLE, A2A_MAX_CONCURRENT_TURNS (docs/sample-agents.md), A2A_GRPC_PORT, A2A_GRPC_ADDRESS,
//   METRICS_PORT (Prometheus metrics on a port of their own), OTEL_* (traces; docs/observability.md).
import express from 'express';
import { pino } from 'pino';
import { a2aMetrics, serveAgent } from 'a2a-express';
import { describeAuthentication, exitOnBadConfiguration, integerFromEnv, routerOptionsFromEnv, serveOptionsFromEnv } from 'a2a-express/env';
import { conformanceRouter } from './agent.js';

const agent = { name: 'conformance-agent', port: 9999, redisPrefix: 'a2a:conformance:' } as const;

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: agent.name });
try {
  const resubscribeWaitMs = integerFromEnv('CONFORMANCE_RESUBSCRIBE_WAIT_MS', 4_000);
  // The store (A2A_STORE=postgres with DATABASE_URL, or A2A_REDIS_URL, or neither: in memory),
  // push notifications (the kit tests push configs when the card says it takes them: this agent
  // does, always), resumed turns, limits and role.
  const fromEnv = await routerOptionsFromEnv(agent);
  const router = conformanceRouter({
    ...fromEnv,
    // The kit's calls carry no credentials: this agent is open whatever A2A_API_KEYS says.
    auth: undefined,
    logger,
    resubscribeWaitMs,
    requireTckExtension: process.env.CONFORMANCE_REQUIRE_EXTENSION === '1',
    metrics: a2aMetrics({ processMetrics: true }),
  });
  // A worker takes no A2A calls: its port serves its health and metrics alone (serveAgent adds them).
  const app = express().disable('x-powered-by');
  if (router.role !== 'worker') app.use(router);
  serveAgent(app, {
    ...serveOptionsFromEnv(agent),
    logger,
    router,
    store: fromEnv.store,
    details: { resubscribeWaitMs, authentication: describeAuthentication(undefined) },
  });
} catch (error) {
  exitOnBadConfiguration(logger, agent.name, error);
}
