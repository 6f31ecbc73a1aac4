// Running an agent's Express app as a process: listen, log one line, stop gracefully.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { A2ARouter } from './router.js';

export interface ServeOptions {
  /** Shown in the log lines, e.g. `echo agent`. */
  name: string;
  port: number;
  host: string;
  logger: Logger;
  /** Closed on shutdown (aborts running handlers). */
  router?: A2ARouter;
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
    logger.info({ url: `http://${shown}:${actual}/`, ...options.details }, `${name} listening`);
  });
  server.on('error', (error) => {
    logger.fatal({ err: error }, `${name} could not start`);
    process.exit(1);
  });
  const shutdown = (signal: string) => {
    logger.info({ signal }, `${name} stopping`);
    void options.router?.close();
    server.close(() => process.exit(0));
    setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? 5_000).unref();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return server;
}
