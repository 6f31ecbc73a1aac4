// The agent's HTTP surface on any server: which request is whose (each version's cards, its
// JSON-RPC endpoint, its HTTP+JSON binding, the key set), the cards' caching, and CORS. A call's
// refusals (a draining agent, credentials, ...) are its bindings', made through the version's
// call entry (transports/call-entry.ts), the same for gRPC. Express
// (router.ts), the node:http listener (node.ts) and the fetch handler (fetch.ts) each make an
// exchange from their request and hand it here; a path that is none of the agent's is left to
// the host (Express's next route) or answered 404 (the others).
import type { CardSigner } from '../core/card-signer.js';
import type { A2AError } from 'a2a-types';
import { base64url, sha256 } from '../core/sha256.js';
import { authenticate, type AuthOptions, type Principal } from '../core/auth.js';
import type { AgentCard } from 'a2a-types/model';
import type { AgentCore, ServedEndpoint } from '../agent-core.js';
import {
  createRpcEndpoint,
  requestedVersion,
  sendUnauthenticated,
  type EdgeHandler,
  type HttpEndpointSettings,
} from '../transports/http.js';
import { createRestEndpoint } from '../transports/rest.js';
import type { Logger } from 'pino';
import type { CorsPolicy } from './cors.js';
import { headerOf, sendJson, type EdgeRequest, type EdgeResponse } from './exchange.js';

/** How long a client may keep a card without asking again: cards change when the agent is redeployed. */
const CARD_MAX_AGE_SECONDS = 300;

/** The agent's HTTP surface, on whatever server hands it exchanges. */
export interface AgentEdge {
  /**
   * Serves the exchange when its path is one of the agent's (below where the agent is mounted);
   * false, having done nothing, for any other path.
   */
  serve(req: EdgeRequest, res: EdgeResponse): boolean;
}

/** A path as routes are matched: case-insensitive, a trailing slash ignored (as Express routes match by default). */
function routeKey(path: string): string {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.toLowerCase();
}

/** Where each request goes. */
interface Routes {
  /**
   * The JSON-RPC endpoints by path as sent: nearly every call is a POST to one, found by one
   * lookup. Any other spelling of the path (a trailing slash, another case) is found by `endpoints`.
   */
  readonly posts: Map<string, EdgeHandler>;
  /** The GET routes (cards, keys), by route key; the first added for a path serves it. */
  readonly gets: Map<string, EdgeHandler>;
  /** The JSON-RPC endpoints by route key (which refuse any verb but POST). */
  readonly endpoints: Map<string, EdgeHandler>;
  /** The HTTP+JSON bindings, each below its endpoint's path (route key). */
  readonly below: { readonly prefix: string; readonly serve: (req: EdgeRequest, res: EdgeResponse, path: string) => void }[];
}

/** The agent's HTTP surface for a core. */
export function createAgentEdge(core: AgentCore): AgentEdge {
  const { options: resolved, push } = core;
  const routes: Routes = { posts: new Map(), gets: new Map(), endpoints: new Map(), below: [] };
  const addGet = (path: string, handler: EdgeHandler) => {
    const key = routeKey(path);
    if (!routes.gets.has(key)) routes.gets.set(key, handler);
  };
  // The keys that verify the agent's push notifications and its signed cards.
  const { cardSigner } = resolved;
  if (push || cardSigner) {
    // Web Crypto reads the keys asynchronously, and a default push key is made, when they are first
    // asked for: the first request waits for them.
    const readKeys = () =>
      Promise.all([push?.signer.jwks(), cardSigner?.publicKeys()]).then(([pushKeys, cardKeys]) => [
        ...(pushKeys?.keys ?? []),
        ...(cardKeys ?? []),
      ]);
    let keys: ReturnType<typeof readKeys> | undefined;
    addGet('/.well-known/jwks.json', (_req, res) => {
      keys ??= readKeys();
      keys.then(
        (served) => sendJson(res, 200, { keys: served }),
        (error: unknown) => {
          core.logger.error({ err: error }, 'the signing keys could not be read');
          sendJson(res, 500, { error: 'the signing keys could not be read' });
        },
      );
    });
  }
  const mount: VersionMount = {
    core,
    addGet,
    routes,
    cards: cardServer(resolved.auth, resolved.cardSigner, core.logger, resolved.cors),
    cardFor: (req) => core.agentCard(req?.mountUrl()),
  };
  for (const endpoint of core.endpoints) mountVersion(mount, endpoint);
  mountSharedCards(mount, core.endpoints);

  const { cors } = resolved;
  /** The route of a request, undefined when its path is none of the agent's. */
  const routeOf = (req: EdgeRequest): EdgeHandler | undefined => {
    const { method } = req;
    if (method === 'POST') {
      const post = routes.posts.get(req.path);
      if (post) return post;
    }
    const key = routeKey(req.path);
    const get = routes.gets.get(key);
    // A card or the keys: GET (and HEAD), and a preflight when CORS is on; other verbs are the host's.
    if (get && (method === 'GET' || method === 'HEAD' || (cors && method === 'OPTIONS'))) return get;
    const endpoint = routes.endpoints.get(key);
    if (endpoint) return endpoint;
    for (const { prefix, serve } of routes.below) {
      if (key.startsWith(prefix) && key.charAt(prefix.length) === '/') {
        const path = req.path.slice(prefix.length);
        return (req, res) => serve(req, res, path);
      }
    }
    return undefined;
  };

  return {
    serve(req, res) {
      const route = routeOf(req);
      if (route === undefined) return false;
      if (cors) {
        if (req.method === 'OPTIONS' && cors.preflight(req, res)) return true;
        cors.annotate(req, res);
      }
      route(req, res);
      return true;
    },
  };
}

/** What mounting a version needs of the edge being made. */
interface VersionMount {
  readonly core: AgentCore;
  readonly routes: Routes;
  readonly addGet: (path: string, handler: EdgeHandler) => void;
  readonly cards: CardServer;
  /** The agent's card, as served for a request (without one, for the checks made at start). */
  readonly cardFor: (req?: EdgeRequest) => AgentCard;
}

/** One version's card routes, its JSON-RPC endpoint and its HTTP+JSON binding. */
function mountVersion(mount: VersionMount, endpoint: ServedEndpoint): void {
  const { core, cardFor, routes } = mount;
  const { options: resolved } = core;
  const { version } = endpoint;
  const wireError = version.wireError ?? ((error: A2AError) => error);
  const card = (req?: EdgeRequest) => endpoint.card(cardFor(req));
  endpoint.checkCard?.(card());
  const { extendedCard: extendedCardOf } = endpoint;
  const extendedCard = extendedCardOf && ((req: EdgeRequest, principal: Principal) => extendedCardOf(cardFor(req), principal));
  const servedCard = mount.cards.serve(
    (req) => ({ card: card(req), caching: endpoint.cardCaching === true, protocol: version.name }),
    wireError,
  );
  for (const path of endpoint.cardPaths) mount.addGet(path, servedCard);

  // What both HTTP bindings of the version are made with.
  const http: HttpEndpointSettings = {
    ...resolved,
    entry: endpoint.entry,
    route: endpoint.path,
    logger: core.logger,
    wireError,
    protocol: version.name,
    contentTypeError: endpoint.contentTypeError,
    extendedCardFor: extendedCard,
  };
  const rpcEndpoint = createRpcEndpoint({ ...http, dispatch: endpoint.dispatch });
  routes.posts.set(endpoint.path, rpcEndpoint);
  routes.endpoints.set(routeKey(endpoint.path), rpcEndpoint);
  const { rest } = endpoint;
  if (rest)
    routes.below.push({ prefix: routeKey(endpoint.path), serve: createRestEndpoint({ ...http, binding: rest, runner: endpoint.runner }) });
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
    mount.addGet(
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
  serve(answer: (req: EdgeRequest) => CardAnswer, wireError?: (error: A2AError) => A2AError): EdgeHandler;
}

/** The versions whose cards have `signatures` (0.1.0's has none). */
const SIGNED_VERSIONS: ReadonlySet<string> = new Set(['1.0', '0.3']);

/** Whether the client's `If-Modified-Since` is at or after `sinceMs`. */
function notModifiedSince(req: EdgeRequest, sinceMs: number): boolean {
  const header = headerOf(req, 'if-modified-since');
  const at = header ? Date.parse(header) : Number.NaN;
  return Number.isFinite(at) && at >= sinceMs;
}

/** Whether the client's `If-None-Match` names `etag` (or `*`). */
function ifNoneMatch(req: EdgeRequest, etag: string): boolean {
  const header = headerOf(req, 'if-none-match');
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

function cardServer(
  auth: AuthOptions | undefined,
  signer: CardSigner | undefined,
  logger: Logger,
  cors: CorsPolicy | undefined,
): CardServer {
  const vary = (value: string) => (cors?.varies ? `${value}, Origin` : value);
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
  const send = (req: EdgeRequest, res: EdgeResponse, answer: CardAnswer): void => {
    if ('refused' in answer) {
      res.setHeader('Vary', vary('A2A-Version'));
      sendJson(res, answer.refused.status, answer.refused.body);
      return;
    }
    if (!answer.caching) {
      sendJson(res, 200, answer.card);
      return;
    }
    const body = JSON.stringify(answer.card);
    const etag = `"${base64url(sha256(body)).slice(0, 27)}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Last-Modified', since);
    res.setHeader('Cache-Control', cacheControl);
    if (answer.varies) res.setHeader('Vary', vary(auth?.protectCard ? 'A2A-Version, Authorization' : 'A2A-Version'));
    if (ifNoneMatch(req, etag) || (headerOf(req, 'if-none-match') === undefined && notModifiedSince(req, sinceMs))) {
      res.end(304);
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(200, body);
  };

  /** The answer, its card signed where the router signs the card's version. */
  const signed = async (answer: CardAnswer): Promise<CardAnswer> =>
    signer && 'card' in answer && SIGNED_VERSIONS.has(answer.protocol)
      ? { ...answer, card: await signer.sign(answer.card, answer.protocol) }
      : answer;
  const failed = (res: EdgeResponse) => (error: unknown) => {
    // Signing or an auth strategy failed: the card's client gets a plain 500, never a stack.
    logger.error({ err: error }, 'the agent card could not be served');
    if (!res.headersSent) sendJson(res, 500, { error: 'the agent card could not be served' });
  };
  const serveSigned = (req: EdgeRequest, res: EdgeResponse, answer: CardAnswer): void => {
    if (!signer) {
      send(req, res, answer);
      return;
    }
    signed(answer)
      .then((ready) => send(req, res, ready))
      .catch(failed(res));
  };

  return {
    serve: (answer, wireError) => (req, res) => {
      if (!auth?.protectCard) return serveSigned(req, res, answer(req));
      authenticate(req.original ?? req, auth)
        .then((outcome) => {
          if (outcome.ok) serveSigned(req, res, answer(req));
          else sendUnauthenticated(res, null, outcome, wireError);
        })
        .catch(failed(res));
    },
  };
}
