// Starts this agent. Configuration by environment variables (all listed in the README):
//   PORT (default `agent.port` below), HOST (default 127.0.0.1; the container image sets 0.0.0.0), LOG_LEVEL,
//   FRANKFURTER_URL (default the public API), RATES_TIMEOUT_MS (2500), RATES_CACHE_TTL_MS (600000),
//   LLM_PROVIDER, LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_TIMEOUT_MS (optional LLM understanding),
//   A2A_PUSH_* (push notifications), A2A_API_KEYS / A2A_JWKS_URL / A2A_JWT_* (auth),
//   A2A_STORE and the A2A_REDIS_* / DATABASE_URL and A2A_POSTGRES_* variables (tasks shared by
//   replicas), A2A_ON_INTERRUPTED, A2A_MAX_ATTEMPTS, A2A_MAX_TASK_BYTES, A2A_SHUTDOWN_GRACE_MS,
//   A2A_ROLE, A2A_MAX_CONCURRENT_TURNS (docs/sample-agents.md), A2A_GRPC_PORT, A2A_GRPC_ADDRESS,
//   METRICS_PORT (Prometheus metrics on a port of their own), OTEL_* (traces; docs/observability.md).
import express from 'express';
import { pino } from 'pino';
import { a2aMetrics, serveAgent } from 'a2a-express';
import { describeAuthentication, exitOnBadConfiguration, integerFromEnv, routerOptionsFromEnv, serveOptionsFromEnv } from 'a2a-express/env';
import { currencyRouter } from './agent.js';
import { describeLlm, llmOptionsFromEnv } from 'a2a-ai/llm-config';
import { DEFAULT_FRANKFURTER_URL, RateSource } from './rates.js';

// Who this agent is: its name in the logs, its port unless PORT is set, the Redis key prefix
// its replicas share. A new agent made from this one (create-a2a-agent) gets its own.
const agent = { name: 'currency-agent', port: 10000, redisPrefix: 'a2a:currency:' } as const;

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: agent.name });
try {
  const frankfurterUrl = process.env.FRANKFURTER_URL || DEFAULT_FRANKFURTER_URL;
  const rates = new RateSource({
    baseUrl: frankfurterUrl,
    timeoutMs: integerFromEnv('RATES_TIMEOUT_MS', 2_500),
    cacheTtlMs: integerFromEnv('RATES_CACHE_TTL_MS', 600_000),
    onLiveFailure: (reason) => logger.warn({ reason }, 'live rates unavailable; answering from the offline snapshot'),
  });
  const llm = llmOptionsFromEnv(process.env, integerFromEnv('LLM_TIMEOUT_MS', 10_000));
  // The store (A2A_STORE=postgres with DATABASE_URL, or A2A_REDIS_URL, or neither: in memory),
  // auth, push notifications, resumed turns, limits and role.
  const fromEnv = await routerOptionsFromEnv(agent);
  const router = currencyRouter({
    ...fromEnv,
    rates,
    ...(llm ? { llm } : {}),
    logger,
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
    details: {
      rates: frankfurterUrl,
      understanding: llm ? `LLM ${describeLlm(llm)} (built-in parser as fallback)` : 'built-in parser',
      authentication: describeAuthentication(fromEnv.auth),
    },
  });
} catch (error) {
  exitOnBadConfiguration(logger, agent.name, error);
}
