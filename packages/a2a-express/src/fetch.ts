// a2a-express/fetch: the agent as a fetch handler, `(request) => Promise<Response>`, which Hono,
// Next.js route handlers, `Bun.serve`, `Deno.serve` and Cloudflare Workers take as it is. The same
// edge as the Express router; streams are a `ReadableStream` the runtime pulls.
import type { TaskHandler } from './core/handler.js';
import { fetchExchange } from './edge/fetch.js';
import { clientAddressOf, mountedAgent, mountUrlOf, pathBelow, type MountOptions } from './edge/mount.js';
import type { A2ARouterOptions } from './options.js';
import { servedAgentOf, type ServedAgent } from './served-agent.js';

export type { MountOptions } from './edge/mount.js';
export type { ServedAgent, ServedVersionPath } from './served-agent.js';
// What a handler is written with, and the strategies that need nothing of Node, from this entry too:
// 'a2a-express' itself loads the Express router, which a Worker cannot.
export {
  agentMessage,
  artifact,
  authRequired,
  completed,
  dataPart,
  failed,
  filePart,
  inputRequired,
  rejected,
  reply,
  textOf,
  textPart,
  working,
  type TaskContext,
  type TaskHandler,
  type TaskUpdate,
} from './core/handler.js';
export { apiKey, AuthenticationError, bearerJwt, customAuth, type AuthOptions, type AuthStrategy, type Principal } from './core/auth.js';
export { A2AError, ErrorCode } from 'a2a-types';

/** The options of `a2aFetchHandler`: the router's, and where the agent is on the server. */
export type A2AFetchHandlerOptions = Omit<A2ARouterOptions, 'inspector'> & MountOptions;

/**
 * What a runtime hands a fetch handler beside the request, where the client's address is found:
 * Deno's `info` (`remoteAddr`), Bun's server (`requestIP`), Hono's `c.env` on `@hono/node-server`
 * (`incoming`). Anything else is ignored.
 */
export type FetchHandlerContext = unknown;

/** A fetch handler serving the agent, with a handle on it (store, health, drain). */
export interface A2AFetchHandler extends ServedAgent {
  (request: Request, context?: FetchHandlerContext): Promise<Response>;
}

/**
 * Serves an agent over every A2A version the kit speaks as a fetch handler, as `a2aRouter` does in
 * an Express app (the same paths below `basePath`, the same options but the inspector). A request
 * that is none of the agent's is answered 404.
 *
 * @throws TypeError at once when the card or an option is invalid
 */
export function a2aFetchHandler(handler: TaskHandler, options: A2AFetchHandlerOptions): A2AFetchHandler {
  const { core, edge, basePath, trustProxy } = mountedAgent('a2aFetchHandler', handler, options);
  const fetchHandler = async (request: Request, context?: FetchHandlerContext): Promise<Response> => {
    const url = new URL(request.url);
    const path = pathBelow(basePath, url.pathname);
    if (path === undefined) return notFound();
    const runtime = runtimeOf(request, context);
    const exchange = fetchExchange(request, url, {
      path,
      mountUrl: () => mountUrlOf(exchange.request.headers, url.protocol.slice(0, -1), basePath, trustProxy),
      clientAddress: () => clientAddressOf(exchange.request.headers, runtime.peerAddress(), trustProxy),
    });
    if (!edge.serve(exchange.request, exchange.response)) return notFound();
    const response = await exchange.answer;
    // Bun cuts a connection idle for 10 s, heartbeats included (every 15 s by default).
    if (response.headers.get('content-type') === 'text/event-stream') runtime.keepOpen();
    return response;
  };
  return servedAgentOf(core, fetchHandler, {});
}

function notFound(): Response {
  return new Response(JSON.stringify({ error: 'not found' }), { status: 404, headers: { 'Content-Type': 'application/json' } });
}

/** What the runtime's context tells of a request. */
function runtimeOf(request: Request, context: FetchHandlerContext): { peerAddress(): string | undefined; keepOpen(): void } {
  const candidate = (context ?? {}) as {
    remoteAddr?: { hostname?: string };
    requestIP?: (request: Request) => { address?: string } | null;
    timeout?: (request: Request, seconds: number) => void;
    incoming?: { socket?: { remoteAddress?: string } };
  };
  return {
    peerAddress: () =>
      candidate.remoteAddr?.hostname ?? candidate.requestIP?.(request)?.address ?? candidate.incoming?.socket?.remoteAddress,
    keepOpen: () => candidate.timeout?.(request, 0),
  };
}
