// What every runtime's sample below shares: the echo agent from the same environment as
// server.ts for what a client reaches (PORT, HOST, ECHO_DELAY_MS, LOG_LEVEL, push and auth), and
// its listening line. The production server (drain on SIGTERM with gRPC, metrics, stores) is
// ../server.ts, on Express.
import { pino } from 'pino';
import { authOptionsFromEnv, integerFromEnv, pushNotificationOptionsFromEnv } from 'a2a-express/env';
import type { A2ARouterOptions, TaskHandler } from 'a2a-express';
import { createEchoHandler, echoCard } from '../agent.js';

const auth = authOptionsFromEnv();
export const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: 'echo-agent' });
export const handler: TaskHandler = createEchoHandler({ chunkDelayMs: integerFromEnv('ECHO_DELAY_MS', 0) });
export const options: Omit<A2ARouterOptions, 'inspector'> = {
  card: echoCard,
  logger,
  auth,
  pushNotifications: pushNotificationOptionsFromEnv(),
};
export const port = integerFromEnv('PORT', 41241);
export const hostname = process.env.HOST || '127.0.0.1';

/** The listening line, as server.ts writes it: the URL, and plainly when the agent is open to anyone. */
export function listening(runtime: string, listenedPort: number): void {
  const authentication = auth ? auth.strategies.map((strategy) => strategy.scheme) : 'none (open to every client)';
  logger.info({ url: `http://${hostname}:${listenedPort}/`, authentication }, `echo-agent listening (${runtime})`);
}

/** On SIGTERM, new calls are refused and running turns get two seconds; then the process ends. */
export function stopOnSigterm(agent: { drain(options: { deadlineMs: number }): Promise<unknown> }, before?: () => void): void {
  process.once('SIGTERM', () => {
    before?.();
    void agent.drain({ deadlineMs: 2_000 }).finally(() => process.exit(0));
  });
}
