// Running an agent's Express app as a process: listen, log one line, stop gracefully.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { A2ARouter } from './router.js';
import type { TaskStore } from './store/task-store.js';
import { urlBelow } from './core/version-options.js';
import { VERSIONS } from './versions/index.js';
import { requestedExporters, startTracingFromEnv } from './telemetry/sdk.js';
import type { A2AMetrics } from './telemetry/metrics.js';
import type { GrpcServerHandle, GrpcServerOptions } from './grpc-options.js';

export interface ServeOptions {
  /** Shown in the log lines, e.g. `echo-agent`. */
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
  /**
   * On SIGTERM/SIGINT, how long the turns running in this process get to finish, ms; their
   * streams get every event meanwhile. The turns still running then are failed with a final event
   * that says the agent shut down, or, with `onInterrupted: 'resume'` on a shared store, handed
   * over to the other replicas (docs/replicas.md, "Hand-over on deploy"). Default 10,000.
   */
  shutdownGraceMs?: number;
  /**
   * Longest time a client may take to send a whole request (headers and body), ms; then it gets
   * 408 and the connection closes. Default 30,000 (Node's own is 5 minutes, long enough for a few
   * slow clients to hold every connection). A stream's response may last as long as its task.
   */
  requestTimeoutMs?: number;
  /** Longest time a client may take to send the request headers, ms. Default 10,000. */
  headersTimeoutMs?: number;
  /**
   * Where the router's health endpoints are served on the app (`GET`): liveness and readiness.
   * Default `{ live: '/livez', ready: '/readyz' }`; false serves none. Needs `router`.
   */
  health?: false | { live: string; ready: string };
  /**
   * The router's Prometheus metrics (its `metrics` option) are served at `GET /metrics`: on the
   * agent's port by default, behind the same credentials as the agent when its `auth` is on; or,
   * when this is set, on a port of their own (on the same `host`, without credentials: a port for
   * the operator's network, not the clients'). The samples read it from `METRICS_PORT`.
   */
  metricsPort?: number;
  /**
   * Serve the router's agent over gRPC too (A2A 1.0 10), on a port of its own on the same `host`
   * unless the options say another (`a2a-express/grpc`, `serveGrpc`): the samples read the port
   * from `A2A_GRPC_PORT`. Needs `router`, and @grpc/grpc-js, @grpc/reflection and
   * grpc-health-check installed. On shutdown its streams get their final events before it closes.
   */
  grpc?: GrpcServerOptions;
}

/**
 * When the standard OTEL_* variables ask for traces (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
 * `OTEL_TRACES_EXPORTER`), first starts the OpenTelemetry SDK (see `startTracingFromEnv`), and
 * listens once it runs; on shutdown, sends the spans still held. Then:
 * listens, logs `"<name> listening"` with the URL once ready, and on SIGTERM/SIGINT drains:
 * stops accepting connections, refuses new calls (503, -32011), lets the running turns finish
 * for up to `shutdownGraceMs` while their streams get every event, fails the turns left with a
 * final event that says why, releases the router and the store, and exits with code 0. A port
 * that cannot be used is a fatal log line and exit code 1.
 */
export function serveAgent(app: Express, options: ServeOptions): Server {
  const { name, port, host, logger } = options;
  // Not app.listen: Express 5 hands a listen error to its callback, which would then read the
  // address of a server that is not listening.
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout);
  const { router } = options;
  if (router && options.health !== false) {
    const paths = options.health ?? { live: '/livez', ready: '/readyz' };
    app.get(paths.live, router.health.live);
    app.get(paths.ready, router.health.ready);
  }
  const metricsServer = router?.metrics && options.metricsPort !== undefined ? serveMetrics(router.metrics, options) : undefined;
  if (router?.metrics && !metricsServer) app.get('/metrics', router.requireCredentials, router.metrics.handler);
  const server = createServer(
    // Node looks for requests past their time only every connectionsCheckingInterval (30 s by
    // default): once a second keeps the timeouts close to what they say.
    { requestTimeout, headersTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) },
    app,
  );
  // The exporters of the SDK once it runs: what the listening line says (none when it did not start).
  let traces: readonly string[] = [];
  let grpc: GrpcServerHandle | undefined;
  server.once('listening', () => {
    const { port: actual } = server.address() as AddressInfo;
    const tasks = describeStore(options.store ?? options.router?.store);
    const url = `http://${hostInUrl(host)}:${actual}/`;
    const role = options.router?.role ?? 'all';
    // A worker's app serves no A2A calls (docs/replicas.md): its line names no endpoint.
    const versionUrls = options.router && role !== 'worker' && endpointUrls(url, options.router);
    const listening = () =>
      logger.info(
        {
          url,
          ...versionUrls,
          ...(role !== 'all' && { role }),
          ...(grpc && { grpc: grpc.address }),
          tasks,
          ...(traces.length > 0 && { traces }),
          ...options.details,
        },
        `${name} listening`,
      );
    if (!options.grpc || !options.router) return listening();
    startGrpc(options.router, { host, ...options.grpc, agentUrl: options.grpc.agentUrl ?? url }).then(
      (started) => {
        grpc = started;
        listening();
      },
      (error: unknown) => {
        logger.fatal({ err: error, port: options.grpc?.port }, `${name} could not serve gRPC: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  });
  server.once('error', (error: NodeJS.ErrnoException) => {
    logger.fatal({ code: error.code, port, host }, `${name} could not start: ${whyNotListening(error, port, host)}`);
    process.exit(1);
  });
  // Tracing first, so that the first request is traced; without OTEL_* asking, no wait at all.
  const tracing = requestedExporters().length > 0 ? startTracingFromEnv(name, logger) : undefined;
  if (tracing === undefined) server.listen(port, host);
  else
    void tracing.then(
      (sdk) => {
        traces = sdk?.exporters ?? [];
        server.listen(port, host);
      },
      (error: unknown) => {
        logger.warn({ err: error }, `${name}: tracing could not start; running without traces`);
        server.listen(port, host);
      },
    );
  const shutdown = async (signal: string) => {
    const graceMs = options.shutdownGraceMs ?? 10_000;
    logger.info({ signal, graceMs }, `${name} stopping`);
    // No new connections; idle keep-alive ones close now, busy ones when their response ends.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      await options.router?.drain({ deadlineMs: graceMs });
      // The drain gave the gRPC streams their final events: what is still open is cut.
      await grpc?.close({ graceMs: 500 });
      await options.router?.close();
      await options.store?.close();
    } catch (error) {
      logger.warn({ err: error }, `${name}: error while stopping`);
    }
    // Streams of tasks that run elsewhere (a shared store) have no final event to wait for: a
    // moment for what was written to go out, then every connection left is cut.
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 500))]);
    server.closeAllConnections();
    metricsServer?.close();
    metricsServer?.closeAllConnections();
    // Last: the spans of the streams cut just now are sent too.
    await tracing?.then((sdk) => sdk?.shutdown()).catch(() => undefined);
    logger.info(`${name} stopped`);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return server;
}

/** `/metrics` on a port of its own, beside the agent's. */
function serveMetrics(metrics: A2AMetrics, { name, host, logger, metricsPort }: ServeOptions): Server {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?'))) return metrics.handler(req, res);
    res.statusCode = 404;
    res.end();
  });
  server.once('error', (error: NodeJS.ErrnoException) => {
    logger.fatal(
      { code: error.code, port: metricsPort, host },
      `${name} could not serve its metrics: ${whyNotListening(error, metricsPort!, host, 'METRICS_PORT')}`,
    );
    process.exit(1);
  });
  server.once('listening', () => {
    const { port } = server.address() as AddressInfo;
    logger.info({ url: `http://${hostInUrl(host)}:${port}/metrics` }, `${name} metrics`);
  });
  server.listen(metricsPort, host);
  return server;
}

/** A host as a URL writes it: an IPv6 address in brackets. */
function hostInUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** A listen error in words a person acts on. */
function whyNotListening(error: NodeJS.ErrnoException, port: number, host: string, variable = 'PORT'): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${port} is in use (set ${variable} to another one)`;
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
  // No store given: the router makes an in-memory one.
  if (store === undefined) return 'in memory';
  return store.describe?.() ?? 'in a custom store';
}

/** Where each version served below the mount is (`url03`, `url10`), for the listening line: the clients of each find it there. */
function endpointUrls(mountUrl: string, router: A2ARouter): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const { protocol, shownAs } of VERSIONS) {
    const served = router.endpoints.find((endpoint) => endpoint.protocol === protocol.name);
    if (shownAs && served) urls[shownAs.listeningUrl] = urlBelow(mountUrl, served.path);
  }
  return urls;
}

/**
 * The gRPC server, loaded only when asked for: its packages are optional peers, and an agent
 * that serves no gRPC loads none of them. A missing one is said in so many words.
 */
async function startGrpc(router: A2ARouter, options: GrpcServerOptions): Promise<GrpcServerHandle> {
  let module: typeof import('./grpc.js');
  try {
    module = await import('./grpc.js');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND';
    if (!missing) throw error;
    throw new Error(
      `serving gRPC needs @grpc/grpc-js, @grpc/reflection and grpc-health-check installed beside a2a-express (${(error as Error).message})`,
    );
  }
  return module.serveGrpc(router, options);
}
