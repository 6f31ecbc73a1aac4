// An HTTP+JSON binding over the same method runner as JSON-RPC: each route names a method of the
// version's table and builds its params from the path, the query and the body, so both bindings
// run the same methods, checks and logs. What differs is only on the wire: the HTTP status says
// how a call went, an answer is the method's result alone, an error the version's error body,
// and a stream's events go bare (no JSON-RPC envelope).
import { A2AError } from 'a2a-types';
import type { Principal } from '../core/auth.js';
import type { RestBinding, RestRoute } from '../protocol/version.js';
import { createBodyReader, TransportError, type BodyReader } from '../edge/body.js';
import { queryOf, sendJsonText, type EdgeRequest, type EdgeResponse } from '../edge/exchange.js';
import Negotiator from 'negotiator';
import { serializeAnswer, writeEventStream } from './event-stream.js';
import { bodyRefusal, requestContextOf, requestedVersion, writeRefusalHead, type HttpEndpointSettings } from './http.js';
import { isRefusal, requestRefusal, type Refusal } from './call-entry.js';
import type { MethodRunner } from './method-runner.js';
import { A2A_ATTRIBUTES, traceRequest, type Span } from '../telemetry/tracing.js';

interface RestEndpointSettings extends HttpEndpointSettings {
  readonly binding: RestBinding;
  readonly runner: MethodRunner;
}

/** An HTTP+JSON interface: its settings, and its body reader. */
interface RestEndpoint {
  readonly settings: RestEndpointSettings;
  readonly readBody: BodyReader;
}

/** A call of one route, with its path's parameters, when it started and its server span (what a refusal is accounted to). */
interface RouteCall {
  readonly route: RestRoute;
  readonly pathParams: string[];
  /** The tenant the path names (`/{tenant}/…`, spec 1.0's HTTP bindings of the proto), if any. */
  readonly tenant?: string;
  readonly started: number;
  readonly span: Span;
}

/**
 * Serves the binding's routes, below the interface's path: `path` is the request's path below it
 * (the interface's own path is where the JSON-RPC endpoint is).
 */
export function createRestEndpoint(settings: RestEndpointSettings): (req: EdgeRequest, res: EdgeResponse, path: string) => void {
  const { binding } = settings;
  const endpoint: RestEndpoint = {
    settings,
    readBody: createBodyReader(settings.bodyLimit, settings.maxJsonDepth, { mediaTypes: binding.mediaTypes, empty: () => ({}) }),
  };
  const spanAttributes = { [A2A_ATTRIBUTES.protocolVersion]: settings.protocol, [A2A_ATTRIBUTES.binding]: 'rest' };
  return (req, res, path) =>
    traceRequest(req, res, settings.route, spanAttributes, (span) => {
      const started = performance.now();
      const found =
        routeOf(binding.routes, req.method, path) ?? (binding.tenantPaths ? tenantRouteOf(binding.routes, req.method, path) : undefined);
      const unrouted = { started, span };
      // Everything below the interface is the binding's: a path that is none of its routes is
      // answered in its words, not the host's.
      if (found === undefined)
        return refuse(settings, req, res, unrouted, requestRefusal(A2AError.methodNotFound(`${req.method} ${path}`)));
      if (found === 'bad-path') {
        const refusal = requestRefusal(A2AError.invalidRequest({ reason: 'the path is not valid percent-encoding' }));
        return refuse(settings, req, res, unrouted, refusal);
      }
      if (found === 'other-verb') {
        // A tenant's path is a route's below its first segment.
        const verbs = allowedVerbs(binding.routes, path);
        res.setHeader('Allow', (verbs.length > 0 ? verbs : allowedVerbs(binding.routes, path.replace(/^\/[^/]+/, ''))).join(', '));
        // HTTP's own word for it: the path is there, not with this verb.
        return refuse(settings, req, res, unrouted, requestRefusal(A2AError.methodNotFound(`${req.method} ${path}`), { httpStatus: 405 }));
      }
      void serveRoute(endpoint, req, res, { ...found, started, span }).catch((error: unknown) => {
        settings.logger.error({ err: error }, 'unexpected error in the HTTP+JSON endpoint');
        if (!res.headersSent) sendError(settings, req, res, A2AError.internalError());
        else res.end(500);
      });
    });
}

async function serveRoute(endpoint: RestEndpoint, req: EdgeRequest, res: EdgeResponse, call: RouteCall): Promise<void> {
  const { settings } = endpoint;
  const read = await readRouteCall(endpoint, req, res, call);
  if (!read) return;
  const params = call.route.params(call.pathParams, queryOf(req), read.body);
  const tenantClash = call.tenant === undefined ? undefined : tenantClashOf(params, call.tenant);
  if (tenantClash) return refuse(settings, req, res, call, requestRefusal(tenantClash), read.principal);
  if (call.tenant !== undefined) (params as { tenant?: string }).tenant = call.tenant;
  const context = requestContextOf(req, res, read.principal, settings, 'rest', call.span);
  const outcome = await settings.runner.run(call.route.method, params, context);
  switch (outcome.kind) {
    case 'stream':
      return writeEventStream(
        req,
        res,
        outcome.events,
        settings,
        {
          event: (text) => text,
          value: settings.binding.streamEvent,
          failure: (error) => ({ data: JSON.stringify(settings.binding.errorAnswer(error).body), type: 'error' }),
        },
        outcome.finished,
      );
    case 'error':
      return sendError(settings, req, res, outcome.error);
    case 'result': {
      const { answer } = call.route;
      const serialized = serializeAnswer(() => (answer ? answer(outcome.result) : outcome.result), settings);
      if (!serialized.ok) return sendError(settings, req, res, serialized.error);
      sendText(settings, req, res, 200, serialized.text);
    }
  }
}

/**
 * The call's body and principal, or undefined once a refusal is sent: the entry lets the call in
 * from its headers (draining, credentials, version), then the body (a JSON object) is read, where
 * the route has one.
 */
async function readRouteCall(
  { settings, readBody }: RestEndpoint,
  req: EdgeRequest,
  res: EdgeResponse,
  call: RouteCall,
): Promise<{ body: Record<string, unknown>; principal: Principal | undefined } | undefined> {
  let admission = settings.entry.admit(req.original ?? req, requestedVersion(req));
  if (admission instanceof Promise) admission = await admission;
  if (isRefusal(admission)) {
    refuse(settings, req, res, call, admission);
    return undefined;
  }
  const { principal } = admission;
  if (!call.route.hasBody) return { body: {}, principal };
  try {
    const body = await readBody(req);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      refuse(settings, req, res, call, requestRefusal(A2AError.invalidRequest({ reason: 'the body must be a JSON object' })), principal);
      return undefined;
    }
    return { body: body as Record<string, unknown>, principal };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    const httpStatus = HTTP_OWN_STATUSES.has(error.status) ? error.status : undefined;
    const refusal = requestRefusal(bodyRefusal(settings, error, 'unsupported Content-Type'), {
      httpStatus,
      tooLarge: error.status === 413,
      details: { status: error.status },
    });
    refuse(settings, req, res, call, refusal, principal);
    return undefined;
  }
}

/**
 * The statuses HTTP gives a request it refuses itself, which say more than the reason's 400 or
 * 404: the verb is not the path's (405), the body is too large (413), its media type or encoding
 * is not taken (415). A body HTTP has no word for (not JSON, nested too deep) is answered by its
 * reason.
 */
const HTTP_OWN_STATUSES: ReadonlySet<number> = new Set([405, 413, 415]);

/**
 * A call refused before it reached its method (its route, the entry, its body): accounted for by
 * the entry, and answered with HTTP's status for it where the refusal has one, else its reason's.
 */
function refuse(
  settings: RestEndpointSettings,
  req: EdgeRequest,
  res: EdgeResponse,
  call: { readonly started: number; readonly span: Span },
  refusal: Refusal,
  principal?: Principal,
): void {
  settings.entry.refused(refusal, { binding: 'rest', span: call.span, started: call.started, headers: req.headers, principal });
  writeRefusalHead(res, refusal);
  sendError(settings, req, res, refusal.error, refusal.httpStatus);
}

/** An error as the binding writes it: the status of its reason, or HTTP's own, and the version's error body. */
function sendError(settings: RestEndpointSettings, req: EdgeRequest, res: EdgeResponse, error: A2AError, httpStatus?: number): void {
  const { status, body } = settings.binding.errorAnswer(error, httpStatus);
  sendText(settings, req, res, status, JSON.stringify(body));
}

/** JSON, labelled with the binding's own media type to a client that asks for it. */
function sendText(settings: RestEndpointSettings, req: EdgeRequest, res: EdgeResponse, status: number, text: string): void {
  const own = settings.binding.mediaTypes[0]!;
  sendJsonText(res, status, text, req.headers.accept !== undefined && preferredType(req, own) === own ? own : 'application/json');
}

/** Of JSON and `own`, the media type the client's `Accept` prefers (JSON on a tie, as it is listed first). */
function preferredType(req: EdgeRequest, own: string): string | undefined {
  return new Negotiator({ headers: { accept: req.headers.accept as string | string[] } }).mediaType(['application/json', own]);
}

/** The route of the request and its path parameters; 'other-verb' for a path served with other verbs. */
function routeOf(
  routes: readonly RestRoute[],
  verb: string,
  path: string,
): { route: RestRoute; pathParams: string[] } | 'other-verb' | 'bad-path' | undefined {
  let pathMatched = false;
  for (const route of routes) {
    const match = route.path.exec(path);
    if (!match) continue;
    pathMatched = true;
    if (route.verb !== verb) continue;
    try {
      return { route, pathParams: match.slice(1).map((segment) => decodeURIComponent(segment)) };
    } catch {
      return 'bad-path';
    }
  }
  return pathMatched ? 'other-verb' : undefined;
}

/**
 * A route below a tenant's segment (`/{tenant}/message:send`, the proto's `additional_bindings`),
 * for a path that is no route of its own: the route, and the tenant.
 */
function tenantRouteOf(
  routes: readonly RestRoute[],
  verb: string,
  path: string,
): { route: RestRoute; pathParams: string[]; tenant: string } | 'other-verb' | 'bad-path' | undefined {
  const match = /^\/([^/]+)(\/.+)$/.exec(path);
  if (!match) return undefined;
  const found = routeOf(routes, verb, match[2]!);
  if (typeof found !== 'object') return found;
  try {
    return { ...found, tenant: decodeURIComponent(match[1]!) };
  } catch {
    return 'bad-path';
  }
}

/** The refusal of a body that names a tenant other than its path's (the two must agree), if it does. */
function tenantClashOf(params: unknown, tenant: string): A2AError | undefined {
  const said = (params as { tenant?: unknown } | null)?.tenant;
  if (said === undefined || said === '' || said === tenant) return undefined;
  return A2AError.invalidParams([
    {
      path: '/tenant',
      message: `the path names tenant ${JSON.stringify(tenant)}, the body ${JSON.stringify(said)}`,
      keyword: 'tenant',
      params: {},
    },
  ]);
}

function allowedVerbs(routes: readonly RestRoute[], path: string): string[] {
  return [...new Set(routes.filter((route) => route.path.test(path)).map((route) => route.verb))];
}
