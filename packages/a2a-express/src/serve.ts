// Running an agent's Express app as a process: listen, log one line, stop gracefully.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { A2ARouter } from './router.js';
import { RedisTaskStore } from './redis-store.js';
import { InMemoryTaskStore, type TaskStore } from './task-store.js';

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
  // Not app.listen: Express 5 hands a listen error to its callback, which would then read the
  // address of a server that is not listening.
  const server = createServer(app);
  server.once('listening', () => {
    const { port: actual } = server.address() as AddressInfo;
    const shown = host.includes(':') ? `[${host}]` : host;
    const tasks = describeStore(options.store ?? options.router?.store);
    logger.info({ url: `http://${shown}:${actual}/`, tasks, ...options.details }, `${name} listening`);
  });
  server.once('error', (error: NodeJS.ErrnoException) => {
    logger.fatal({ code: error.code, port, host }, `${name} could not start: ${whyNotListening(error, port, host)}`);
    process.exit(1);
  });
  server.listen(port, host);
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

/** A listen error in words a person acts on. */
function whyNotListening(error: NodeJS.ErrnoException, port: number, host: string): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${port} is in use (set PORT to another one)`;
    case 'EACCES':
      return `port ${port} needs privileges this process does not have (use a port above 1023)`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine (set HOST)`;
    default:
      return error.message;
  }
}

/** Where the tasks live, for the start-up line (never the Redis URL: it may hold a password). */
function describeStore(store: TaskStore | undefined): string {
  if (store instanceof RedisTaskStore) return `shared in Redis under ${store.prefix} (lease ${store.leaseMs} ms)`;
  if (store === undefined || store instanceof InMemoryTaskStore) return 'in memory';
  return 'in a custom store';
}
