import type { CardSigner } from './core/card-signer.js';
import { A2AError } from 'a2a-types';
import { createHash } from 'node:crypto';
import { inspectorRoute } from './inspector.js';
import express, { type Request, type Response, type Router } from 'express';
import { authenticate, type AuthOptions, type Principal } from './core/auth.js';
import type { AgentCard } from 'a2a-types/model';
import { createAgentCore, type AgentCore, type DrainReport, type ServedEndpoint } from './agent-core.js';
import { errorResponse } from './transports/json-rpc.js';
import type { TaskHandler } from './core/handler.js';
import { createRpcEndpoint, requestedVersion, sendJson, sendUnauthenticated, type HttpEndpointSettings } from './transports/http.js';
import { createRestEndpoint } from './transports/rest.js';
import type { A2ARouterOptions, ResolvedOptions } from './options.js';
import type { TaskStore } from './store/task-store.js';
import type { A2AMetrics, BindingName } from './telemetry/metrics.js';
import { healthEndpoints, type HealthEndpoints } from './telemetry/health.js';
import { VERSIONS, type VersionPaths } from './versions/index.js';

export { SHUTDOWN_MESSAGE, type DrainReport } from './agent-core.js';

/** How long a client may keep a card without asking again: cards change when the agent is redeployed. */
const CARD_MAX_AGE_SECONDS = 300;

/** Where a version is served. */
export interface ServedVersionPath {
  /** The protocol version, by the kit's name for it (`'0.1.0'`, `'0.3'`, `'1.0'`). */
  readonly protocol: string;
  /** Its endpoint, relative to the router's mount (`'/'`, `'/v0.3'`, `'/v1'`). */
  readonly path: string;
}

/** The URL of the router's mount, seen from this request (honours 'trust proxy'). */
function mountUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl || '/'}`;
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
export interface A2ARouter extends Router, VersionPaths {
  /** The task store in use (the one given in the options, or the router's in-memory one). */
  readonly store: TaskStore;
  /**
   * Each version served, oldest first: its protocol version and where its endpoint is, relative to
   * the mount. serveAgent's listening line names each endpoint's URL from these.
   */
  readonly endpoints: readonly ServedVersionPath[];
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
 * @param handler the agent's logic, run once per turn of a task (see {@link TaskHandler})
 * @param options the card and settings; see {@link A2ARouterOptions}
 * @throws TypeError at once when the card or an option is invalid
 */
export function a2aRouter(handler: TaskHandler, options: A2ARouterOptions): A2ARouter {
  if (typeof handler !== 'function') throw new TypeError('a2aRouter: the handler must be a function');
  if (!options || typeof options.card !== 'object') throw new TypeError('a2aRouter: options.card is required');
  const core = createAgentCore(handler, options);
  const { options: resolved, logger, push, store } = core;
  const cardFor = (req?: Request) => core.agentCard(req && mountUrlOf(req));

  const router = express.Router();
  const postEndpoints = fastPostLookup(router);
  if (options.inspector) {
    const inspector = inspectorRoute(options.inspector);
    router.use(inspector.path, inspector.handler);
    logger.warn({ path: inspector.path }, 'the A2A inspector is served: for development only, whoever reaches it can call this agent');
  }
  // The keys that verify the agent's push notifications and its signed cards.
  const { cardSigner } = resolved;
  if (push || cardSigner) {
    const keys = [...(push?.signer.jwks.keys ?? []), ...(cardSigner?.publicKeys ?? [])];
    router.get('/.well-known/jwks.json', (_req, res) => sendJson(res, 200, { keys }));
  }
  const mount: VersionMount = {
    router,
    resolved,
    core,
    cards: cardServer(resolved.auth, resolved.cardSigner),
    cardFor,
    postEndpoints,
    isDraining: () => core.draining,
  };
  for (const endpoint of core.endpoints) mountVersion(mount, endpoint);
  mountSharedCards(mount, core.endpoints);

  const served = Object.assign(router, {
    store,
    endpoints: core.endpoints.map((endpoint) => ({ protocol: endpoint.version.name, path: endpoint.path })),
    ...versionPaths(core.endpoints),
    metrics: resolved.metrics,
    health: healthEndpoints({ logger, isDraining: () => core.draining, pingStore: store.ping && (() => store.ping!()) }),
    requireCredentials: requireCredentials(resolved.auth),
    drain({ deadlineMs = 10_000 }: { deadlineMs?: number } = {}): Promise<DrainReport> {
      return core.drain(deadlineMs);
    },
    close: () => core.close(),
  });
  CORES.set(served, core);
  return served;
}

/** The core behind each router, for what serves its agent beside it (`a2a-express/grpc`). */
const CORES = new WeakMap<A2ARouter, AgentCore>();

/** The agent core of a router `a2aRouter` made; a TypeError for anything else. */
export function agentCoreOf(router: A2ARouter): AgentCore {
  const core = CORES.get(router);
  if (!core) throw new TypeError('expected a router made by a2aRouter()');
  return core;
}

/** What mounting a version needs of the router being made. */
interface VersionMount {
  readonly router: Router;
  readonly resolved: ResolvedOptions;
  readonly core: AgentCore;
  readonly cards: CardServer;
  /** The agent's card, as served for a request (without one, for the checks made at start). */
  readonly cardFor: (req?: Request) => AgentCard;
  /** The JSON-RPC endpoints by path, found by one lookup (see `fastPostLookup`). */
  readonly postEndpoints: Map<string, express.RequestHandler>;
  readonly isDraining: () => boolean;
}

/** `router.protocol03Path` and the others: where each version is served, undefined when it is not. */
function versionPaths(endpoints: readonly ServedEndpoint[]): VersionPaths {
  const paths: Record<string, string | undefined> = {};
  for (const { protocol, shownAs } of VERSIONS) {
    if (shownAs) paths[shownAs.routerPath] = endpoints.find((endpoint) => endpoint.version.name === protocol.name)?.path;
  }
  return paths as unknown as VersionPaths;
}

/**
 * Nearly every call is a POST to a JSON-RPC endpoint: one lookup finds its handler, rather than
 * the router's walk through every route before it (a regular expression each, then the route's
 * own dispatch), a tenth of the router's time per call in a profile. Any other request, and any
 * other spelling of the path (a trailing slash, another case), takes the router's way, which
 * serves the same handlers.
 */
function fastPostLookup(router: Router): Map<string, express.RequestHandler> {
  const endpoints = new Map<string, express.RequestHandler>();
  router.use((req, res, next) => {
    const endpoint = req.method === 'POST' ? endpoints.get(req.path) : undefined;
    if (endpoint) endpoint(req, res, next);
    else next();
  });
  return endpoints;
}

/** One version's card routes, its JSON-RPC endpoint and its HTTP+JSON binding. */
function mountVersion(mount: VersionMount, endpoint: ServedEndpoint): void {
  const { router, resolved, core, cardFor } = mount;
  const { version } = endpoint;
  const wireError = version.wireError ?? ((error: A2AError) => error);
  const card = (req?: Request) => endpoint.card(cardFor(req));
  endpoint.checkCard?.(card());
  const { extendedCard: extendedCardOf } = endpoint;
  const extendedCard = extendedCardOf && ((req: Request, principal: Principal) => extendedCardOf(cardFor(req), principal));
  router.get(
    [...endpoint.cardPaths],
    mount.cards.serve((req) => ({ card: card(req), caching: endpoint.cardCaching === true, protocol: version.name }), wireError),
  );

  const refuseDraining = refuseWhileDraining(mount, version.name, 'jsonrpc', (error) => errorResponse(null, wireError(error)));
  // What both HTTP bindings of the version are made with.
  const http: HttpEndpointSettings = {
    ...resolved,
    route: endpoint.path,
    logger: core.logger,
    wireError,
    protocol: version.name,
    refusesVersion: endpoint.refusesVersion,
    contentTypeError: endpoint.contentTypeError,
  };
  const rpcEndpoint = createRpcEndpoint({ ...http, dispatch: endpoint.dispatch, extendedCardFor: extendedCard });
  const rpcPost: express.RequestHandler = (req, res, next) => {
    if (mount.isDraining()) refuseDraining(req, res, next);
    else rpcEndpoint(req, res, next);
  };
  mount.postEndpoints.set(endpoint.path, rpcPost);
  router.post(endpoint.path, rpcPost);
  router.all(endpoint.path, postOnly(wireError));
  const { rest } = endpoint;
  if (!rest) return;
  router.use(
    endpoint.path,
    refuseWhileDraining(mount, version.name, 'rest', (error) => rest.errorAnswer(wireError(error).toJSON()).body),
    createRestEndpoint({
      ...http,
      binding: rest,
      runner: endpoint.runner,
      // Below the interface's path, the request's base URL is the interface's: the card is the mount's.
      extendedCardFor: extendedCard && ((req, principal) => extendedCard(atMount(req, endpoint.path), principal)),
    }),
  );
}

/**
 * The card paths several versions share (`/.well-known/agent-card.json`, read by 0.3 and 1.0
 * clients alike): each client gets the card of the version it asks for (`A2A-Version`), the
 * highest-ranked that answers; one that asks for a version no card there answers gets the
 * refusal of a version that words one, else the highest-ranked card anyway.
 */
function mountSharedCards(mount: VersionMount, endpoints: readonly ServedEndpoint[]): void {
  const byPath = new Map<string, ServedEndpoint[]>();
  for (const endpoint of endpoints) {
    const shared = endpoint.sharedCardPath;
    if (shared) byPath.set(shared.path, [...(byPath.get(shared.path) ?? []), endpoint]);
  }
  for (const [path, sharing] of byPath) {
    const served = sharing.map((endpoint) => endpoint.version.name);
    const choose = (requested: string | undefined): { endpoint: ServedEndpoint; rank: number } => {
      let best = { endpoint: sharing[0]!, rank: sharing[0]!.sharedCardPath!.rank(requested) };
      for (const endpoint of sharing.slice(1)) {
        const rank = endpoint.sharedCardPath!.rank(requested);
        if (rank > best.rank) best = { endpoint, rank };
      }
      return best;
    };
    // One version here: a refused credential is in its words (as on its own card paths).
    const wireError = sharing.length === 1 ? sharing[0]!.version.wireError : undefined;
    mount.router.get(
      path,
      mount.cards.serve((req) => {
        const requested = requestedVersion(req);
        const { endpoint, rank } = choose(requested);
        const refusing = rank === 0 && requested !== undefined ? sharing.find((other) => other.refusedCard) : undefined;
        if (refusing) return { refused: refusing.refusedCard!(requested!, served) };
        return {
          card: endpoint.card(mount.cardFor(req)),
          caching: endpoint.cardCaching === true,
          varies: true,
          protocol: endpoint.version.name,
        };
      }, wireError),
    );
  }
}

/** What a card route answers a request with. */
type CardAnswer =
  | {
      readonly card: unknown;
      /** With the caching headers of spec 1.0 8.6.1. */
      readonly caching: boolean;
      /** The card depends on the `A2A-Version` asked for. */
      readonly varies?: boolean;
      /** Its protocol version's name: 1.0 and 0.3 cards are signed when the router signs cards. */
      readonly protocol: string;
    }
  | { readonly refused: { status: number; body: unknown } };

interface CardServer {
  /** Serves the card `answer` gives for a request; with `protectCard`, to authenticated clients only. */
  serve(answer: (req: Request) => CardAnswer, wireError?: (error: A2AError) => A2AError): express.RequestHandler;
}

/** The versions whose cards have `signatures` (0.1.0's has none). */
const SIGNED_VERSIONS: ReadonlySet<string> = new Set(['1.0', '0.3']);

function cardServer(auth: AuthOptions | undefined, signer: CardSigner | undefined): CardServer {
  // HTTP dates have whole seconds. The cards change when the agent is redeployed: the router's
  // start is when they last did.
  const sinceMs = Math.floor(Date.now() / 1000) * 1000;
  const since = new Date(sinceMs).toUTCString();
  const cacheControl = `${auth?.protectCard ? 'private' : 'public'}, max-age=${CARD_MAX_AGE_SECONDS}`;

  /**
   * A card, with the caching headers where its version has them: an `ETag` of its content,
   * `Last-Modified`, `Cache-Control` (private when the card is for authenticated clients only),
   * `Vary: A2A-Version` where the card depends on it, and 304 to a client that has this one.
   */
  const send = (req: Request, res: Response, answer: CardAnswer): void => {
    if ('refused' in answer) {
      res.setHeader('Vary', 'A2A-Version');
      sendJson(res, answer.refused.status, answer.refused.body);
      return;
    }
    if (!answer.caching) {
      sendJson(res, 200, answer.card);
      return;
    }
    const body = JSON.stringify(answer.card);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', since);
    res.setHeader('Cache-Control', cacheControl);
    if (answer.varies) res.setHeader('Vary', auth?.protectCard ? 'A2A-Version, Authorization' : 'A2A-Version');
    if (ifNoneMatch(req, etag) || (req.get('if-none-match') === undefined && notModifiedSince(req, sinceMs))) {
      res.status(304).end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };

  /** The answer, its card signed where the router signs the card's version. */
  const signed = async (answer: CardAnswer): Promise<CardAnswer> =>
    signer && 'card' in answer && SIGNED_VERSIONS.has(answer.protocol)
      ? { ...answer, card: await signer.sign(answer.card, answer.protocol) }
      : answer;
  const serveSigned = (req: Request, res: Response, answer: CardAnswer, next: express.NextFunction): void => {
    if (!signer) {
      send(req, res, answer);
      return;
    }
    signed(answer)
      .then((ready) => send(req, res, ready))
      .catch(next);
  };

  return {
    serve: (answer, wireError) => (req, res, next) => {
      if (!auth?.protectCard) return serveSigned(req, res, answer(req), next);
      authenticate(req, auth)
        .then((outcome) => {
          if (outcome.ok) serveSigned(req, res, answer(req), next);
          else sendUnauthenticated(res, null, outcome, wireError);
        })
        .catch(next);
    },
  };
}

/**
 * While draining, the work of this process is ending: a new call is refused at once (HTTP 503,
 * -32011, in the error body its binding gives it), so that a load balancer or a client tries
 * another replica rather than waiting here. Only the A2A endpoint: the host app's own routes are
 * not ours to refuse.
 */
function refuseWhileDraining(
  mount: VersionMount,
  version: string,
  binding: BindingName,
  body: (error: A2AError) => unknown,
): express.RequestHandler {
  return (_req, res, next) => {
    if (!mount.isDraining()) return next();
    res.setHeader('Connection', 'close');
    res.setHeader('Retry-After', '1');
    const error = A2AError.resourceUnavailable('the agent is shutting down');
    mount.resolved.metrics?.callEnded(version, binding, 'other', error.code, 0);
    sendJson(res, 503, body(error));
  };
}

/** Any other verb on a JSON-RPC endpoint: 405, with the error in the version's words. */
function postOnly(wireError: (error: A2AError) => A2AError): express.RequestHandler {
  return (_req, res) => {
    res.setHeader('Allow', 'POST');
    const reason = 'the A2A endpoint takes JSON-RPC requests by POST';
    sendJson(res, 405, errorResponse(null, wireError(A2AError.invalidRequest({ reason }))));
  };
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
