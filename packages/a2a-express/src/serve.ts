// Running an agent's Express app as a process: listen, log one line, stop gracefully.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { A2ARouter } from './router.js';
import { RedisTaskStore } from './redis-store.js';
import type { TaskStore } from './task-store.js';

export interface ServeOptions {
  /** Shown in the log lines, e.g. `echo agent`. */
  name: string;
  port: number;
  host: string;
  logger: Logger;
  /** Closed on shutdown (aborts running handlers). */
  router?: A2ARouter;
  /** A store given to the router, closed after it on shutdown (the router closes only its own). */
  store?: TaskStore;
  /** Extra fields for the listening line (configuration worth seeing at start-up). */
  details?: Record<string, unknown>;
  /** How long open connections (SSE streams) get to finish on shutdown, ms. Default 5,000. */
  shutdownGraceMs?: number;
}

/**
 * Listens, logs `"<name> listening"` with the URL once ready, and on SIGTERM/SIGINT stops
 * accepting connections, closes the router, and ends the process (cutting streams still open
 * after the grace period). A port that cannot be used is a fatal log line and exit code 1.
 */
export function serveAgent(app: Express, options: ServeOptions): Server {
  const { name, port, host, logger } = options;
  const server = app.listen(port, host, () => {
    const { port: actual } = server.address() as AddressInfo;
    const shown = host.includes(':') ? `[${host}]` : host;
    const tasks = describeStore(options.store ?? options.router?.store);
    logger.info({ url: `http://${shown}:${actual}/`, tasks, ...options.details }, `${name} listening`);
  });
  server.on('error', (error) => {
    logger.fatal({ err: error }, `${name} could not start`);
    process.exit(1);
  });
  const shutdown = (signal: string) => {
    logger.info({ signal }, `${name} stopping`);
    const released = (async () => {
      await options.router?.close();
      await options.store?.close();
    })().catch((error: unknown) => logger.warn({ err: error }, `${name}: error while stopping`));
    server.close(() => void released.then(() => process.exit(0)));
    setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? 5_000).unref();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return server;
}

/** Where the tasks live, for the start-up line (never the Redis URL: it may hold a password). */
function describeStore(store: TaskStore | undefined): string {
  if (store instanceof RedisTaskStore) return `shared in Redis under ${store.prefix} (lease ${store.leaseMs} ms)`;
  return store ? 'in a custom store' : 'in memory';
}
