// The A2A inspector beside the agent (router option `inspector`): the page that `a2a inspect`
// serves, mounted below the router and opened on the agent itself. It comes from a2a-client,
// loaded on the first request to it, so that an agent without the option never loads it.
// For development: whoever reaches the page can call the agent with the credentials they type;
// the page reaches nothing but this agent. Since anyone who reaches the agent reaches the page
// too, its server refuses a call for no open page before reading its body, takes bodies of a few
// megabytes at most (a message with its files), and bounds the pages open per client address
// and in all, closing the least recently used, so that strangers cannot keep the developer out.
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';

import type { InspectorOptions } from './options.js';

export type { InspectorOptions } from './options.js';

interface InspectorModule {
  createInspector(options: {
    agentUrl: (req: IncomingMessage) => string;
    pinnedAgent: (req: IncomingMessage) => string;
    maxCallBytes: number;
  }): {
    handle(req: IncomingMessage, res: ServerResponse): void;
  };
}

const MODULE = 'a2a-client/inspector';
/** A call of the page beside an agent: a message with a few megabytes of files as base64. */
const MAX_CALL_BYTES = 4 * 1024 * 1024;

/** The page's path and its handler; a TypeError at once when the option is wrong or a2a-client is missing. */
export function inspectorRoute(option: boolean | InspectorOptions): { path: string; handler: RequestHandler } {
  if (typeof option !== 'boolean' && (typeof option !== 'object' || option === null)) {
    throw new TypeError('a2aRouter: options.inspector must be true, false or { path }');
  }
  const path = (typeof option === 'object' ? option.path : undefined) ?? '/inspector';
  if (typeof path !== 'string' || !/^\/[\w\-./]*[\w-]$/.test(path)) {
    throw new TypeError(`a2aRouter: options.inspector.path must be a path such as /inspector, got ${JSON.stringify(path)}`);
  }
  try {
    createRequire(import.meta.url).resolve(MODULE);
  } catch {
    throw new TypeError('a2aRouter: options.inspector serves the page of the a2a-client package: install it (npm install a2a-client)');
  }
  let inspector: Promise<ReturnType<InspectorModule['createInspector']>> | undefined;
  const handler: RequestHandler = (req, res, next) => {
    // The specifier is a variable so that compiling this package does not need a2a-client.
    const specifier: string = MODULE;
    inspector ??= (import(specifier) as Promise<InspectorModule>).then((module) =>
      // The page reaches this agent only, on the address the request came in on: whatever URL
      // it names (a Host header can be anyone's, with DNS rebinding) is not fetched.
      module.createInspector({
        agentUrl: (request) => agentUrlOf(request as Request, path),
        pinnedAgent: (request) => localAgentUrlOf(request as Request, path),
        maxCallBytes: MAX_CALL_BYTES,
      }),
    );
    inspector.then((loaded) => loaded.handle(req, res), next);
  };
  return { path, handler };
}

/** Where the router is mounted. */
function mountOf(req: Request, path: string): string {
  return req.baseUrl.endsWith(path) ? req.baseUrl.slice(0, -path.length) : req.baseUrl;
}

/** The agent's own URL, as this request reached it: what the page shows. */
function agentUrlOf(req: Request, path: string): string {
  return `${req.protocol}://${req.get('host')}${mountOf(req, path)}/`;
}

/** The agent's own URL on the socket this request came in on: what the inspector calls. */
function localAgentUrlOf(req: Request, path: string): string {
  const address = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = address.includes(':') ? `[${address}]` : address;
  const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  return `${scheme}://${host}:${req.socket.localPort}${mountOf(req, path)}/`;
}
