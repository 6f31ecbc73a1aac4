// Starts the echo agent. Configuration by environment variables:
//   PORT (default 41241), HOST (default 127.0.0.1; the container image sets 0.0.0.0),
//   ECHO_DELAY_MS (pause between streamed chunks, default 0), LOG_LEVEL (default info),
//   A2A_PUSH_ALLOWLIST, A2A_PUSH_SIGNING_KEY, A2A_PUSH_VERIFY_OWNERSHIP (push notifications),
//   A2A_API_KEYS, A2A_API_KEY_HEADER, A2A_JWKS_URL, A2A_JWT_ISSUER, A2A_JWT_AUDIENCE (auth).
import type { AddressInfo } from 'node:net';
import express from 'express';
import { pino } from 'pino';
import { authOptionsFromEnv, pushNotificationOptionsFromEnv } from 'a2a-express';
import { echoRouter } from './agent.js';

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: 'echo-agent' });
const port = integerFromEnv('PORT', 41241);
const host = process.env.HOST || '127.0.0.1';
const chunkDelayMs = integerFromEnv('ECHO_DELAY_MS', 0);

const app = express();
app.disable('x-powered-by');
const auth = authOptionsFromEnv();
const router = echoRouter({ logger, chunkDelayMs, auth, pushNotifications: pushNotificationOptionsFromEnv() });
app.use(router);

const server = app.listen(port, host, () => {
  const { port: actual } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  // Say plainly when the agent is open to anyone.
  const authentication = auth ? auth.strategies.map((s) => s.scheme) : 'none (open to every client)';
  logger.info({ url: `http://${shown}:${actual}/`, chunkDelayMs, authentication }, 'echo agent listening');
});
server.on('error', (error) => {
  logger.fatal({ err: error }, 'echo agent could not start');
  process.exit(1);
});

function shutdown(signal: string): void {
  logger.info({ signal }, 'echo agent stopping');
  void router.close();
  server.close(() => process.exit(0));
  // Open SSE streams would hold close() forever: cut them after a grace period.
  setTimeout(() => server.closeAllConnections(), 5_000).unref();
}
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));

function integerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    logger.fatal(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
    process.exit(1);
  }
  return value;
}
