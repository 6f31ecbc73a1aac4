import { A2AError } from 'a2a-types';
import { createHash } from 'node:crypto';
import { errorInfo } from 'a2a-types/v1.0';
import { inspectorRoute } from './inspector.js';
import express, { type Request, type Router } from 'express';
import { authenticate, cardAuthentication, type AuthOptions, type Principal } from './core/auth.js';
import { prepareCard } from './versions/v0_1/index.js';
import { createAgentCore, type DrainReport } from './agent-core.js';
import { errorResponse } from './transports/json-rpc.js';
import type { TaskHandler } from './core/handler.js';
import { createRpcEndpoint, requestedVersion, sendJson, sendUnauthenticated } from './transports/http.js';
import { createRestEndpoint } from './transports/rest.js';
import type { A2ARouterOptions } from './options.js';
import type { TaskStore } from './store/task-store.js';
import type { A2AMetrics, BindingName } from './telemetry/metrics.js';
import { healthEndpoints, type HealthEndpoints } from './telemetry/health.js';

export { SHUTDOWN_MESSAGE, type DrainReport } from './agent-core.js';

const WELL_KNOWN_CARD = '/.well-known/agent-card.json';
/** How long a client may keep a card without asking again: cards change when the agent is redeployed. */
const CARD_MAX_AGE_SECONDS = 300;

/** A card asked for in a version no card is served in: HTTP 400 with 1.0's error body. */
class CardVersionRefused extends Error {
  readonly body: unknown;
  constructor(requested: string) {
    super(`no agent card for A2A-Version ${requested}`);
    this.body = {
      error: {
        code: 400,
        status: 'FAILED_PRECONDITION',
        message: `A2A-Version ${requested} is not served; this agent serves 0.3 and 1.0 at ${WELL_KNOWN_CARD}, 0.1.0 at /.well-known/agent.json`,
        details: [errorInfo('VERSION_NOT_SUPPORTED', { requested })],
      },
    };
  }
}

/** The request as seen from the router's mount, for one routed below `path` (whose `baseUrl` ends with it). */
function atMount(req: Request, path: string): Request {
  const baseUrl = req.baseUrl.endsWith(path) ? req.baseUrl.slice(0, -path.length) : req.baseUrl;
  return Object.create(req, { baseUrl: { value: baseUrl } }) as Request;
}

/** Whether the client's `If-Modified-Since` is at or after `sinceMs`. */
function notModifiedSince(req: Request, sinceMs: number): boolean {
  const header = req.get('if-modified-since');
  const at = header ? Date.parse(header) : Number.NaN;
  return Number.isFinite(at) && at >= sinceMs;
}

/** Whether the client's `If-None-Match` names `etag` (or `*`). */
function ifNoneMatch(req: Request, etag: string): boolean {
  const header = req.get('if-none-match');
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

/** The Express router `a2aRouter` returns, with a handle on its store and a way to stop it. */
export interface A2ARouter extends Router {
  /** The task store in use (the one given in the options, or the router's in-memory one). */
  readonly store: TaskStore;
  /** Where the A2A 0.3 JSON-RPC endpoint is, relative to the mount (`'/v0.3'`); undefined when 0.3 is off. */
  readonly protocol03Path: string | undefined;
  /** Where the A2A 1.0 interface is, relative to the mount (`'/v1'`); undefined when 1.0 is off. */
  readonly protocol10Path: string | undefined;
  /**
   * The agent's Prometheus metrics (option `metrics`), undefined when off. Mount
   * `router.metrics.handler` where Prometheus scrapes: `app.get('/metrics', router.metrics.handler)`.
   */
  readonly metrics: A2AMetrics | undefined;
  /**
   * Liveness and readiness for an orchestrator or a load balancer: `app.get('/livez', router.health.live)`,
   * `app.get('/readyz', router.health.ready)`. Not ready while draining or while the task store
   * cannot be reached.
   */
  readonly health: HealthEndpoints;
  /**
   * Lets a request through only with credentials the agent's `auth` strategies accept (401 with
   * their challenges otherwise); without `auth`, lets every request through. For the routes you
   * serve beside the agent that should be no more open than it: `serveAgent` puts it before
   * `/metrics` on the agent's port.
   */
  readonly requireCredentials: express.RequestHandler;
  /**
   * Aborts the handlers running in this process and, for a store the router made itself,
   * releases it. Open streams end when the HTTP server closes. With a shared store, the tasks
   * whose handlers were aborted are failed by another replica once their lease runs out.
   */
  close(): Promise<void>;
  /**
   * Ends this process's share of the work, for a graceful shutdown (`serveAgent` calls it on
   * SIGTERM): new calls get HTTP 503 with -32011; the turns running here get up to `deadlineMs`
   * to finish, their streams and webhooks receiving every event; the turns still running then are
   * failed with a message that says the agent shut down (their final event). Resolves once their
   * push notifications are out, or the deadline passed. Call `close()` after it.
   */
  drain(options?: { deadlineMs?: number }): Promise<DrainReport>;
}

/**
 * Serves an agent over A2A 0.1.0, and A2A 0.3 beside it. Relative to where it is mounted:
 * - `GET /.well-known/agent.json` — the agent card;
 * - `POST /` — JSON-RPC 2.0, every A2A 0.1.0 method (`tasks/send`, `tasks/sendSubscribe`, ...);
 * - `GET /.well-known/agent-card.json` and `POST /v0.3` — the 0.3 card and every 0.3 method
 *   (`message/send`, `message/stream`, ...), unless `protocol03: false`;
 * - `GET /.well-known/jwks.json` — with push notifications on, the keys that verify them.
 *
 * @param handler the agent's logic, run once per turn of a task (see {@link TaskHandler})
 * @param options the card and settings; see {@link A2ARouterOptions}
 * @throws TypeError at once when the card or an option is invalid
 */
export function a2aRouter(handler: TaskHandler, options: A2ARouterOptions): A2ARouter {
  if (typeof handler !== 'function') throw new TypeError('a2aRouter: the handler must be a function');
  if (!options || typeof options.card !== 'object') throw new TypeError('a2aRouter: options.card is required');
  const core = createAgentCore(handler, options);
  const { options: resolved, logger, push, store } = core;
  const auth = resolved.auth;
  const cardFor = prepareCard(options.card, { ...resolved, authentication: auth && cardAuthentication(auth) });

  const router = express.Router();
  // HTTP dates have whole seconds.
  const cardsSinceMs = Math.floor(Date.now() / 1000) * 1000;
  const cardsSince = new Date(cardsSinceMs).toUTCString();
  /** Serves a card; with `protectCard`, to authenticated clients only. */
  const serveCard =
    (card: (req: Request) => unknown, wireError?: (error: A2AError) => A2AError): express.RequestHandler =>
    (req, res, next) => {
      if (!auth?.protectCard) return sendCard(req, res, card);
      authenticate(req, auth)
        .then((outcome) => {
          if (outcome.ok) sendCard(req, res, card);
          else sendUnauthenticated(res, null, outcome, wireError);
        })
        .catch(next);
    };
  /**
   * A card with the caching headers of spec 1.0 8.6.1: an `ETag` of its content, `Last-Modified`, `Cache-Control`
   * (private when the card is for authenticated clients only), `Vary: A2A-Version` where the card
   * depends on it, and 304 to a client that has this one.
   */
  const sendCard = (req: Request, res: express.Response, card: (req: Request) => unknown): void => {
    // The 0.1.0 card stays exactly as it was served.
    if (!req.path.endsWith(WELL_KNOWN_CARD)) {
      sendJson(res, 200, card(req));
      return;
    }
    let body: string;
    try {
      body = JSON.stringify(card(req));
    } catch (error) {
      if (!(error instanceof CardVersionRefused)) throw error;
      res.setHeader('Vary', 'A2A-Version');
      sendJson(res, 400, error.body);
      return;
    }
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    res.setHeader('ETag', etag);
    // The cards change when the agent is redeployed: the router's start is when they last did.
    res.setHeader('Last-Modified', cardsSince);
    res.setHeader('Cache-Control', `${auth?.protectCard ? 'private' : 'public'}, max-age=${CARD_MAX_AGE_SECONDS}`);
    if (req.path === WELL_KNOWN_CARD) res.setHeader('Vary', auth?.protectCard ? 'A2A-Version, Authorization' : 'A2A-Version');
    if (ifNoneMatch(req, etag) || (req.get('if-none-match') === undefined && notModifiedSince(req, cardsSinceMs))) {
      res.status(304).end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };
  // Nearly every call is a POST to a JSON-RPC endpoint: one lookup finds its handler, rather than
  // the router's walk through every route before it (a regular expression each, then the route's
  // own dispatch), a tenth of the router's time per call in a profile. Any other request, and any
  // other spelling of the path (a trailing slash, another case), takes the router's way below,
  // which serves the same handlers.
  const rpcEndpoints = new Map<string, express.RequestHandler>();
  router.use((req, res, next) => {
    const endpoint = req.method === 'POST' ? rpcEndpoints.get(req.path) : undefined;
    if (endpoint) endpoint(req, res, next);
    else next();
  });
  if (options.inspector) {
    const inspector = inspectorRoute(options.inspector);
    router.use(inspector.path, inspector.handler);
    logger.warn({ path: inspector.path }, 'the A2A inspector is served: for development only, whoever reaches it can call this agent');
  }
  if (push) router.get('/.well-known/jwks.json', (_req, res) => sendJson(res, 200, push.signer.jwks));
  let draining = false;
  // While draining, the work of this process is ending: a new call is refused at once, so that a
  // load balancer or a client tries another replica rather than waiting here. Only the A2A
  // endpoint: the host app's own routes are not ours to refuse.
  const asIs = (error: A2AError) => error;
  /** Refuses while draining (HTTP 503, -32011), the error in the body a binding gives it. */
  const refuseWhileDraining =
    (version: string, binding: BindingName, body: (error: A2AError) => unknown): express.RequestHandler =>
    (_req, res, next) => {
      if (!draining) return next();
      res.setHeader('Connection', 'close');
      res.setHeader('Retry-After', '1');
      const error = A2AError.resourceUnavailable('the agent is shutting down');
      resolved.metrics?.callEnded(version, binding, 'other', error.code, 0);
      sendJson(res, 503, body(error));
    };
  const postOnly =
    (wire: (error: A2AError) => A2AError = asIs): express.RequestHandler =>
    (_req, res) => {
      res.setHeader('Allow', 'POST');
      const reason = 'the A2A endpoint takes JSON-RPC requests by POST';
      sendJson(res, 405, errorResponse(null, wire(A2AError.invalidRequest({ reason }))));
    };
  // `/.well-known/agent-card.json` is read by 0.3 and 1.0 clients alike: each gets the card of the
  // version it asks for (`A2A-Version`; none means 0.3, spec 1.0 3.6.2).
  const endpoint03 = core.endpoints.find((endpoint) => endpoint.version.name === '0.3');
  const endpoint10 = core.endpoints.find((endpoint) => endpoint.version.name === '1.0');
  if (endpoint10) {
    router.get(
      WELL_KNOWN_CARD,
      serveCard((req) => {
        const requested = req && requestedVersion(req);
        // A later 1.x client reads the 1.0 card (minor versions add, §3.6), and any 0.x the 0.3 one.
        if (requested !== undefined && /^1\.\d+(\.\d+)?$/.test(requested)) return endpoint10.card(cardFor(req));
        if (!endpoint03 && (requested === undefined || /^0\.\d+(\.\d+)?$/.test(requested))) return endpoint10.card(cardFor(req));
        if (requested === undefined || /^0\.\d+(\.\d+)?$/.test(requested)) return endpoint03!.card(cardFor(req));
        throw new CardVersionRefused(requested);
      }),
    );
  }
  for (const endpoint of core.endpoints) {
    const { version } = endpoint;
    const card = (req?: Request) => endpoint.card(cardFor(req));
    endpoint.checkCard?.(card());
    const { extendedCard: extendedCardOf } = endpoint;
    const extendedCard = extendedCardOf && ((req: Request, principal: Principal) => extendedCardOf(cardFor(req), principal));
    router.get([...endpoint.cardPaths], serveCard(card, version.wireError));
    const refuseDraining = refuseWhileDraining(version.name, 'jsonrpc', (error) => errorResponse(null, (version.wireError ?? asIs)(error)));
    const rpcEndpoint = createRpcEndpoint({
      ...resolved,
      route: endpoint.path,
      dispatch: endpoint.dispatch,
      logger,
      wireError: version.wireError,
      protocol: version.name,
      refusesVersion: endpoint.refusesVersion,
      contentTypeError: endpoint.contentTypeError,
      extendedCardFor: extendedCard,
    });
    const rpcPost: express.RequestHandler = (req, res, next) => {
      if (draining) refuseDraining(req, res, next);
      else rpcEndpoint(req, res, next);
    };
    rpcEndpoints.set(endpoint.path, rpcPost);
    router.post(endpoint.path, rpcPost);
    router.all(endpoint.path, postOnly(version.wireError));
    if (endpoint.rest) {
      const rest = endpoint.rest;
      const wire = version.wireError ?? ((error: A2AError) => error);
      router.use(
        endpoint.path,
        refuseWhileDraining(version.name, 'rest', (error) => rest.errorAnswer(wire(error).toJSON()).body),
        createRestEndpoint({
          ...resolved,
          route: endpoint.path,
          binding: endpoint.rest,
          runner: endpoint.runner,
          logger,
          wireError: version.wireError ?? ((error) => error),
          protocol: version.name,
          refusesVersion: endpoint.refusesVersion,
          contentTypeError: endpoint.contentTypeError,
          // Below the interface's path, the request's base URL is the interface's: the card is the mount's.
          extendedCardFor: extendedCard && ((req, principal) => extendedCard(atMount(req, endpoint.path), principal)),
        }),
      );
    }
  }

  return Object.assign(router, {
    store,
    protocol03Path: resolved.protocol03?.path,
    protocol10Path: resolved.protocol10?.path,
    metrics: resolved.metrics,
    health: healthEndpoints({ logger, isDraining: () => draining, pingStore: store.ping && (() => store.ping!()) }),
    requireCredentials: requireCredentials(auth),
    drain({ deadlineMs = 10_000 }: { deadlineMs?: number } = {}): Promise<DrainReport> {
      draining = true;
      return core.drain(deadlineMs);
    },
    close: () => core.close(),
  });
}

/** See `A2ARouter.requireCredentials`. */
function requireCredentials(auth: AuthOptions | undefined): express.RequestHandler {
  if (!auth) return (_req, _res, next) => next();
  return (req, res, next) => {
    authenticate(req, auth).then((outcome) => {
      if (outcome.ok) return next();
      res.setHeader('WWW-Authenticate', outcome.challenges);
      sendJson(res, 401, { error: `authentication required: ${outcome.reason}` });
    }, next);
  };
}
