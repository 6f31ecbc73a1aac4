// Where a request is, seen from the agent, for the adapters that have no framework to say it
// (node:http, fetch): the path below the agent's base path, and the agent's URL and the client's
// address, read from the proxy's headers only when told to trust them.
import { createAgentCore, type AgentCore } from '../agent-core.js';
import type { CallHeaders } from '../core/call.js';
import type { TaskHandler } from '../core/handler.js';
import type { A2ARouterOptions } from '../options.js';
import { createAgentEdge, type AgentEdge } from './agent-edge.js';

/** The options of the adapters without a framework. */
export interface MountOptions {
  /**
   * Where the agent is below the server's root (`/a2a`); requests elsewhere are not the agent's.
   * Default: the root.
   */
  basePath?: string;
  /**
   * Read the scheme, host and client address from `X-Forwarded-Proto`, `X-Forwarded-Host` and
   * `X-Forwarded-For` (the first of each), as Express's `trust proxy` does: only behind a proxy
   * that sets them, or any client could name itself. Default false.
   */
  trustProxy?: boolean;
}

/** The base path, checked: '' for the root, else `/segment...` without a trailing slash. */
export function basePathOf(options: MountOptions, who: string): string {
  const { basePath = '' } = options;
  if (typeof basePath !== 'string' || (basePath !== '' && !/^\/[^?#]*[^/?#]$/.test(basePath))) {
    throw new TypeError(`${who}: options.basePath must be a path such as /a2a (no trailing slash), got ${JSON.stringify(basePath)}`);
  }
  return basePath;
}

/** The path below `basePath`, or undefined when the request is not below it (matched case-insensitively, as Express mounts). */
export function pathBelow(basePath: string, path: string): string | undefined {
  if (basePath === '') return path;
  if (path.length < basePath.length || path.slice(0, basePath.length).toLowerCase() !== basePath.toLowerCase()) return undefined;
  const rest = path.slice(basePath.length);
  if (rest === '') return '/';
  return rest.charAt(0) === '/' ? rest : undefined;
}

/** The first value of a forwarded header (`X-Forwarded-For: client, proxy1`). */
function firstForwarded(headers: CallHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = typeof value === 'string' ? value : value?.[0];
  const first = text === undefined ? undefined : text.split(',', 1)[0]!.trim();
  return first === '' ? undefined : first;
}

/** The agent's URL as the client reached it: scheme, host, base path (`/` at the root, as Express's routers have it). */
export function mountUrlOf(headers: CallHeaders, scheme: string, basePath: string, trustProxy: boolean): string {
  const forwardedScheme = trustProxy ? firstForwarded(headers, 'x-forwarded-proto') : undefined;
  const forwardedHost = trustProxy ? firstForwarded(headers, 'x-forwarded-host') : undefined;
  const host = forwardedHost ?? (typeof headers.host === 'string' ? headers.host : undefined) ?? 'localhost';
  return `${forwardedScheme ?? scheme}://${host}${basePath || '/'}`;
}

/** The client's address: the connection's, or behind a trusted proxy the first `X-Forwarded-For`. */
export function clientAddressOf(headers: CallHeaders, peer: string | undefined, trustProxy: boolean): string | undefined {
  return (trustProxy ? firstForwarded(headers, 'x-forwarded-for') : undefined) ?? peer;
}

/**
 * What an adapter without a framework serves: the agent's core and edge, and where the agent is.
 * `who` names the function the user called, in the TypeError of a bad option.
 */
export function mountedAgent(
  who: string,
  handler: TaskHandler,
  options: A2ARouterOptions & MountOptions,
): { core: AgentCore; edge: AgentEdge; basePath: string; trustProxy: boolean } {
  if (options?.inspector) {
    throw new TypeError(`${who}: the inspector is served by a2aRouter (Express) only; run \`a2a inspect <url>\` beside this agent`);
  }
  const core = createAgentCore(handler, options, who);
  return { core, edge: createAgentEdge(core), basePath: basePathOf(options, who), trustProxy: options.trustProxy === true };
}
