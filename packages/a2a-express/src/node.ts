// a2a-express/node: the agent as a node:http request listener, for a server without a framework
// (`http.createServer(a2aNodeHandler(handler, options))`) or one that takes Connect-style
// middleware. The same edge as the Express router, with nothing of Express.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TaskHandler } from './core/handler.js';
import { sendJson } from './edge/exchange.js';
import { clientAddressOf, mountedAgent, mountUrlOf, pathBelow, type MountOptions } from './edge/mount.js';
import { isEncrypted, nodeExchange, nodeResponse, type NodeMount } from './edge/node.js';
import type { A2ARouterOptions } from './options.js';
import { servedAgentOf, type ServedAgent } from './served-agent.js';
import { withMetricsMade } from './telemetry/metrics.js';

export type { MountOptions } from './edge/mount.js';
export type { ServedAgent, ServedVersionPath } from './served-agent.js';

/** The options of `a2aNodeHandler`: the router's, and where the agent is on the server. */
export type A2ANodeHandlerOptions = Omit<A2ARouterOptions, 'inspector'> & MountOptions;

/**
 * A node:http request listener serving the agent, with a handle on it (store, health, drain).
 * A request that is none of the agent's goes to `next` when given one (Connect-style), else is
 * answered 404.
 */
export interface A2ANodeHandler extends ServedAgent {
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void;
}

/**
 * Serves an agent over every A2A version the kit speaks on Node's own HTTP server, as `a2aRouter`
 * does in an Express app (the same paths below `basePath`, the same options but the inspector).
 *
 * @throws TypeError at once when the card or an option is invalid
 */
export function a2aNodeHandler(handler: TaskHandler, options: A2ANodeHandlerOptions): A2ANodeHandler {
  const { core, edge, basePath, trustProxy } = mountedAgent('a2aNodeHandler', handler, withMetricsMade(options));
  const mount: NodeMount = {
    mountUrl: (req) => mountUrlOf(req.headers, isEncrypted(req) ? 'https' : 'http', basePath, trustProxy),
    clientAddress: (req) => clientAddressOf(req.headers, req.socket.remoteAddress, trustProxy),
  };
  const listener = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = pathBelow(basePath, queryAt === -1 ? url : url.slice(0, queryAt));
    if (path !== undefined) {
      const { request, response } = nodeExchange(req, res, path, mount);
      if (edge.serve(request, response)) return;
    }
    if (next) next();
    else sendJson(nodeResponse(res), 404, { error: 'not found' });
  };
  return servedAgentOf(core, listener, {});
}
