// Starts this agent. Configuration by environment variables (all listed in the README):
//   PORT (default `agent.port` below), HOST (default 127.0.0.1; the container image sets 0.0.0.0), LOG_LEVEL,
//   ECHO_AGENT_URL (default http://127.0.0.1:41241), CURRENCY_AGENT_URL (default http://127.0.0.1:10000),
//   ECHO_AGENT_VERSION, CURRENCY_AGENT_VERSION (1.0, 0.3 or 0.1.0; default the newest each card offers),
//   AGENTS_API_KEY (what the host presents to agents that require a key),
//   LLM_PROVIDER, LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_TIMEOUT_MS (the model that routes; none: a scripted one),
//   A2A_PUSH_* (push notifications), A2A_API_KEYS / A2A_JWKS_URL / A2A_JWT_* (auth),
//   A2A_STORE and the A2A_REDIS_* / DATABASE_URL and A2A_POSTGRES_* variables (tasks shared by
//   replicas), A2A_ON_INTERRUPTED, A2A_MAX_ATTEMPTS, A2A_MAX_TASK_BYTES, A2A_SHUTDOWN_GRACE_MS,
//   A2A_ROLE, A2A_MAX_CONCURRENT_TURNS (docs/sample-agents.md), A2A_GRPC_PORT, A2A_GRPC_ADDRESS,
//   METRICS_PORT (Prometheus metrics on a port of their own), OTEL_* (traces; docs/observability.md).
import express from 'express';
import { pino } from 'pino';
import { a2aMetrics, serveAgent } from 'a2a-express';
import { describeAuthentication, exitOnBadConfiguration, integerFromEnv, routerOptionsFromEnv, serveOptionsFromEnv } from 'a2a-express/env';
import type { RemoteProtocol } from 'a2a-ai';
import { describeLlm, llmOptionsFromEnv } from 'a2a-ai/llm-config';
import { hostRouter, type KnownAgent } from './agent.js';

// Who this agent is: its name in the logs, its port unless PORT is set, the Redis key prefix
// its replicas share.
const agent = { name: 'host-agent', port: 10001, redisPrefix: 'a2a:host:' } as const;

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: agent.name });

/** An agent the host calls: its URL, and the version to speak if one is named. */
function knownAgent(prefix: string, defaultUrl: string): KnownAgent {
  const url = process.env[`${prefix}_URL`] || defaultUrl;
  const version = process.env[`${prefix}_VERSION`]?.trim();
  if (version && !['1.0', '0.3', '0.1.0'].includes(version))
    throw new Error(`${prefix}_VERSION must be 1.0, 0.3 or 0.1.0, not "${version}"`);
  const apiKey = process.env.AGENTS_API_KEY;
  return {
    url,
    ...(version ? { protocolVersion: version as RemoteProtocol } : {}),
    // For whichever scheme the agent's card names (an API key, or a bearer token).
    ...(apiKey ? { credentials: () => apiKey } : {}),
  };
}

try {
  const agents = {
    echo: knownAgent('ECHO_AGENT', 'http://127.0.0.1:41241'),
    currency: knownAgent('CURRENCY_AGENT', 'http://127.0.0.1:10000'),
  };
  const llm = llmOptionsFromEnv(process.env, integerFromEnv('LLM_TIMEOUT_MS', 30_000));
  // An LLM's provider package is loaded only when one is configured; without, the scripted model.
  const model = llm
    ? await (await import('a2a-ai/ai-sdk')).languageModelOf(llm)
    : (await import('./scripted-model.js')).scriptedRouterModel();
  // The store (A2A_STORE=postgres with DATABASE_URL, or A2A_REDIS_URL, or neither: in memory),
  // auth, push notifications, resumed turns, limits and role.
  const fromEnv = await routerOptionsFromEnv(agent);
  const router = hostRouter({
    ...fromEnv,
    agents,
    model,
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
      agents: Object.fromEntries(Object.entries(agents).map(([name, known]) => [name, known.url])),
      model: llm ? `LLM ${describeLlm(llm)}` : 'scripted (no LLM configured: calls every agent, answers with what they said)',
      authentication: describeAuthentication(fromEnv.auth),
    },
  });
} catch (error) {
  exitOnBadConfiguration(logger, agent.name, error);
}
