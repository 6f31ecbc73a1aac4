// The conformance agent on a server other than Express, so that the conformance kit's scenarios
// (and this app's tests of them) run against every edge the router has: Node's own HTTP server
// (`a2aNodeHandler`), or the fetch handler (`a2aFetchHandler`) on Hono, Bun or Deno. One file for
// all of them, picked by the runtime that runs it (and, on Node, CONFORMANCE_SERVER=hono); the
// samples in apps/echo-agent/src/runtimes/ show each on its own. The environment is server.ts's
// for what a client reaches (PORT, HOST, LOG_LEVEL, CONFORMANCE_*, A2A_PUSH_*); stores, metrics
// and gRPC stay with the production server, server.ts.
//   node dist/edge.js | CONFORMANCE_SERVER=hono node dist/edge.js | bun dist/edge.js
//   deno run --allow-net --allow-env --allow-read --allow-sys --unstable-no-legacy-abort dist/edge.js
import { createServer } from 'node:http';
import { pino } from 'pino';
import { a2aFetchHandler } from 'a2a-express/fetch';
import { integerFromEnv, pushNotificationOptionsFromEnv } from 'a2a-express/env';
import { a2aNodeHandler } from 'a2a-express/node';
import { conformanceAgent } from './agent.js';

declare const Bun: { serve(options: { port: number; hostname: string; fetch: FetchHandler }): { port: number } } | undefined;
declare const Deno:
  | { serve(options: { port: number; hostname: string; onListen(address: { port: number }): void }, handler: FetchHandler): unknown }
  | undefined;
type FetchHandler = (request: Request, info: unknown) => Promise<Response>;

const logger = pino({ level: process.env.LOG_LEVEL ?? 'info', name: 'conformance-agent' });
const { handler, options } = conformanceAgent({
  logger,
  resubscribeWaitMs: integerFromEnv('CONFORMANCE_RESUBSCRIBE_WAIT_MS', 4_000),
  requireTckExtension: process.env.CONFORMANCE_REQUIRE_EXTENSION === '1',
  pushNotifications: pushNotificationOptionsFromEnv(),
});
const port = integerFromEnv('PORT', 9999);
const hostname = process.env.HOST || '127.0.0.1';
const listening = (server: string, listenedPort: number) =>
  logger.info(
    { url: `http://${hostname}:${listenedPort}/`, authentication: 'none (open to every client)' },
    `conformance-agent listening (${server})`,
  );

/** On SIGTERM, new calls are refused and running turns get two seconds; then the process ends. */
const stopOnSigterm = (agent: { drain(options: { deadlineMs: number }): Promise<unknown> }, before?: () => void) =>
  process.once('SIGTERM', () => {
    before?.();
    void agent.drain({ deadlineMs: 2_000 }).finally(() => process.exit(0));
  });

if (typeof Bun !== 'undefined') {
  const agent = a2aFetchHandler(handler, options);
  listening('bun', Bun.serve({ port, hostname, fetch: agent }).port);
  stopOnSigterm(agent);
} else if (typeof Deno !== 'undefined') {
  const agent = a2aFetchHandler(handler, options);
  Deno.serve({ port, hostname, onListen: (address) => listening('deno', address.port) }, agent);
  stopOnSigterm(agent);
} else if (process.env.CONFORMANCE_SERVER === 'hono') {
  const [{ serve }, { Hono }] = await Promise.all([import('@hono/node-server'), import('hono')]);
  const agent = a2aFetchHandler(handler, options);
  const app = new Hono();
  app.all('/*', (c) => agent(c.req.raw, c.env));
  serve({ fetch: app.fetch, port, hostname }, (info) => listening('hono', info.port));
  stopOnSigterm(agent);
} else {
  const agent = a2aNodeHandler(handler, options);
  const server = createServer(agent);
  server.listen(port, hostname, () => listening('node:http', (server.address() as { port: number }).port));
  stopOnSigterm(agent, () => server.closeAllConnections());
}
