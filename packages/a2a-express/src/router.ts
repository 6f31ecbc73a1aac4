import { A2AError } from 'a2a-types';
import express, { type Request, type Router } from 'express';
import { authenticate, cardAuthentication } from './core/auth.js';
import { prepareCard } from './versions/v0_1/index.js';
import { createAgentCore, type DrainReport } from './agent-core.js';
import { errorResponse } from './transports/json-rpc.js';
import type { TaskHandler } from './core/handler.js';
import { createRpcEndpoint, sendJson, sendUnauthenticated } from './transports/http.js';
import type { A2ARouterOptions } from './options.js';
import type { TaskStore } from './store/task-store.js';

export { SHUTDOWN_MESSAGE, type DrainReport } from './agent-core.js';

/** The Express router `a2aRouter` returns, with a handle on its store and a way to stop it. */
export interface A2ARouter extends Router {
  /** The task store in use (the one given in the options, or the router's in-memory one). */
  readonly store: TaskStore;
  /** Where the A2A 0.3 JSON-RPC endpoint is, relative to the mount (`'/v0.3'`); undefined when 0.3 is off. */
  readonly protocol03Path: string | undefined;
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
  /** Serves a card; with `protectCard`, to authenticated clients only. */
  const serveCard =
    (card: (req: Request) => unknown, wireError?: (error: A2AError) => A2AError): express.RequestHandler =>
    (req, res, next) => {
      if (!auth?.protectCard) return sendJson(res, 200, card(req));
      authenticate(req, auth)
        .then((outcome) => {
          if (outcome.ok) sendJson(res, 200, card(req));
          else sendUnauthenticated(res, null, outcome, wireError);
        })
        .catch(next);
    };
  if (push) router.get('/.well-known/jwks.json', (_req, res) => sendJson(res, 200, push.signer.jwks));
  let draining = false;
  // While draining, the work of this process is ending: a new call is refused at once, so that a
  // load balancer or a client tries another replica rather than waiting here. Only the A2A
  // endpoint: the host app's own routes are not ours to refuse.
  const refuseWhileDraining: express.RequestHandler = (_req, res, next) => {
    if (!draining) return next();
    res.setHeader('Connection', 'close');
    res.setHeader('Retry-After', '1');
    sendJson(res, 503, errorResponse(null, A2AError.resourceUnavailable('the agent is shutting down')));
  };
  const postOnly: express.RequestHandler = (_req, res) => {
    res.setHeader('Allow', 'POST');
    const reason = 'the A2A endpoint takes JSON-RPC requests by POST';
    sendJson(res, 405, errorResponse(null, A2AError.invalidRequest({ reason })));
  };
  for (const endpoint of core.endpoints) {
    const { version } = endpoint;
    const card = (req?: Request) => endpoint.card(cardFor(req));
    endpoint.checkCard?.(card());
    router.get([...endpoint.cardPaths], serveCard(card, version.wireError));
    router.post(
      endpoint.path,
      refuseWhileDraining,
      createRpcEndpoint({ ...resolved, dispatch: endpoint.dispatch, logger, wireError: version.wireError, protocol: version.name }),
    );
    router.all(endpoint.path, postOnly);
  }

  return Object.assign(router, {
    store,
    protocol03Path: resolved.protocol03?.path,
    drain({ deadlineMs = 10_000 }: { deadlineMs?: number } = {}): Promise<DrainReport> {
      draining = true;
      return core.drain(deadlineMs);
    },
    close: () => core.close(),
  });
}
