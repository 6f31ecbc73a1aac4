import express, { type Request, type Router } from 'express';
import { inspectorRoute } from './inspector.js';
import { authenticate, type AuthOptions } from './core/auth.js';
import { createAgentCore } from './agent-core.js';
import type { TaskHandler } from './core/handler.js';
import { createAgentEdge } from './edge/agent-edge.js';
import { nodeExchange, type NodeMount } from './edge/node.js';
import type { A2ARouterOptions } from './options.js';
import { servedAgentOf, type ServedAgent } from './served-agent.js';
import { withMetricsMade } from './telemetry/metrics.js';

export { SHUTDOWN_MESSAGE, type DrainReport } from './agent-core.js';
export type { ServedAgent, ServedVersionPath } from './served-agent.js';

/**
 * An Express request as the agent's edge sees it: its URL and client address as Express derives
 * them (honouring 'trust proxy'), and a body the host parsed already.
 */
const EXPRESS_MOUNT: NodeMount<Request> = {
  mountUrl: (req) => `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl || '/'}`,
  clientAddress: (req) => req.ip,
  // A body-parser of the host's (express.json(), express.text(), ...) has consumed the stream.
  parsedBody: (req) => ((req as { _body?: boolean })._body === true || req.readableEnded ? { parsed: req.body } : undefined),
  // The parsed request in place of the bytes, as express.json leaves it: a long stream keeps its
  // request alive, and a small Buffer would hold on to the whole slab of Node's pool it came from.
  bodyParsed: (req, value) => {
    req.body = value;
  },
};

/** The Express router `a2aRouter` returns, with a handle on its agent: its store, health, drain and close. */
export interface A2ARouter extends Router, ServedAgent {
  /**
   * Lets a request through only with credentials the agent's `auth` strategies accept (401 with
   * their challenges otherwise); without `auth`, lets every request through. For the routes you
   * serve beside the agent that should be no more open than it: `serveAgent` puts it before
   * `/metrics` on the agent's port.
   */
  readonly requireCredentials: express.RequestHandler;
}

/**
 * Serves an agent over every A2A version the kit speaks, from one handler and one task store.
 * Relative to where it is mounted, by default:
 * - `GET /.well-known/agent.json` and `POST /`: A2A 0.1.0, its card and JSON-RPC (`tasks/send`, ...);
 * - `POST /v0.3`: A2A 0.3 JSON-RPC (`message/send`, ...), unless `protocol03: false`;
 * - `POST /v1` and `/v1/...`: A2A 1.0 over JSON-RPC (`SendMessage`, ...) and HTTP+JSON
 *   (`POST /v1/message:send`, ...), unless `protocol10: false`;
 * - `GET /.well-known/agent-card.json`: the 0.3 card, or the 1.0 card to a client that asks for
 *   1.0 (`A2A-Version`); each version's card is also below its own path;
 * - `GET /.well-known/jwks.json`: with push notifications on, the keys that verify them.
 *
 * The same agent is served without Express by `a2aNodeHandler` (`a2a-express/node`) and
 * `a2aFetchHandler` (`a2a-express/fetch`): this is their adapter for an Express app.
 *
 * @param handler the agent's logic, run once per turn of a task (see {@link TaskHandler})
 * @param options the card and settings; see {@link A2ARouterOptions}
 * @throws TypeError at once when the card or an option is invalid
 */
export function a2aRouter(handler: TaskHandler, options: A2ARouterOptions): A2ARouter {
  const core = createAgentCore(handler, withMetricsMade(options));
  const edge = createAgentEdge(core);
  const router = express.Router();
  if (options.inspector) {
    const inspector = inspectorRoute(options.inspector);
    router.use(inspector.path, inspector.handler);
    core.logger.warn({ path: inspector.path }, 'the A2A inspector is served: for development only, whoever reaches it can call this agent');
  }
  router.use((req, res, next) => {
    const { request, response } = nodeExchange(req, res, req.path, EXPRESS_MOUNT);
    if (!edge.serve(request, response)) next();
  });
  return servedAgentOf(core, router, { requireCredentials: requireCredentials(core.options.auth) });
}

/** See `A2ARouter.requireCredentials`. */
function requireCredentials(auth: AuthOptions | undefined): express.RequestHandler {
  if (!auth) return (_req, _res, next) => next();
  return (req, res, next) => {
    authenticate(req, auth).then((outcome) => {
      if (outcome.ok) return next();
      res.setHeader('WWW-Authenticate', outcome.challenges);
      res.statusCode = 401;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ error: `authentication required: ${outcome.reason}` }));
    }, next);
  };
}
