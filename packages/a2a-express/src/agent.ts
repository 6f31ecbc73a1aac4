// An agent with no HTTP server: its handle alone, for an agent served over gRPC only
// (`serveGrpc(a2aAgent(handler, options))`), or by a binding of the application's own.
import { createAgentCore } from './agent-core.js';
import type { TaskHandler } from './core/handler.js';
import type { A2ARouterOptions } from './options.js';
import { servedAgentOf, type ServedAgent } from './served-agent.js';
import { withMetricsMade } from './telemetry/metrics.js';

/** The options of `a2aAgent`: the router's, but what only an HTTP server serves. */
export type A2AAgentOptions = Omit<A2ARouterOptions, 'inspector' | 'cors'>;

/**
 * An agent, its store and its tasks, served by nothing yet: give it to `serveGrpc` (from
 * `a2a-express/grpc`) for an agent reached over gRPC only. Its cards name `card.url`.
 *
 * @throws TypeError at once when the card or an option is invalid
 */
export function a2aAgent(handler: TaskHandler, options: A2AAgentOptions): ServedAgent {
  return servedAgentOf(createAgentCore(handler, withMetricsMade(options), 'a2aAgent'));
}
