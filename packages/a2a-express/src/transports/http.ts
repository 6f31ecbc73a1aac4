// The HTTP side of a version's endpoint: what both its HTTP bindings share (settings, the
// request's context, refusals before a method is reached), and the JSON-RPC endpoint itself:
// authentication, the body, status codes, and SSE for streaming answers. Everything about
// JSON-RPC itself is in json-rpc.ts, which knows no HTTP; HTTP+JSON is in rest.ts.
import { A2AError, type ErrorReason, type JSONRPCId, type JSONRPCResponse } from 'a2a-types';
import type { Logger } from 'pino';
import type { AuthOutcome, Principal } from '../core/auth.js';
import type { CallerPresenceView } from '../core/call.js';
import { extensionsHeaderOf, type ExtensionsEcho } from '../core/extensions.js';
import { createBodyReader, TransportError, type BodyReader } from '../edge/body.js';
import { headerOf, sendJson, sendJsonText, type EdgeRequest, type EdgeResponse } from '../edge/exchange.js';
import { errorResponse, idOf, type Dispatch, type RequestContext, type StreamAnswer } from './json-rpc.js';
import { asksForEventStream, serializeAnswer, writeEventStream, type AnswerLimits } from './event-stream.js';
import { SseStream } from './sse.js';
import type { BindingName } from '../telemetry/metrics.js';
import { A2A_ATTRIBUTES, traceRequest, type Span } from '../telemetry/tracing.js';
import { isRefusal, requestRefusal, versionNamed, type CallEntry, type Refusal, type RefusedCall } from './call-entry.js';

/** What an HTTP binding of a version's endpoint (JSON-RPC, HTTP+JSON) is made with. */
export interface HttpEndpointSettings extends AnswerLimits {
  readonly logger: Logger;
  /** The way into the version's calls, shared with its other bindings: it lets a call in or refuses it, and accounts for each refusal. */
  readonly entry: CallEntry;
  readonly bodyLimit: number | string;
  readonly maxJsonDepth: number;
  /** How this endpoint's protocol version words an error as its JSON-RPC error object (its code, message and data). */
  readonly wireError: (error: A2AError) => A2AError;
  /** The protocol version this endpoint speaks, for its spans. */
  readonly protocol: string;
  /** See `VersionEndpoint.contentTypeError`. */
  readonly contentTypeError?: (reason: string) => A2AError;
  /** The version's extended card for this request and caller; absent when the agent has none. */
  readonly extendedCardFor?: (req: EdgeRequest, principal: Principal) => Promise<unknown>;
  /** Where the endpoint is below the mount, for its server spans' `http.route`. */
  readonly route: string;
}

interface RpcEndpointSettings extends HttpEndpointSettings {
  readonly dispatch: Dispatch;
}

/**
 * The HTTP status of a JSON-RPC error, by its reason, where it is not 200: an authorization
 * refusal is a 403 on every version (spec 4.4), whatever code the version gives it. A refused
 * credential is a 401 only when the transport refuses it (`sendUnauthenticated`), with the
 * challenges a 401 must carry; a handler's has none to send, and stays 200.
 */
const RPC_ERROR_STATUS: Partial<Record<ErrorReason, number>> = { PERMISSION_DENIED: 403 };

/** A JSON-RPC endpoint: its settings, and its body readers. */
interface RpcEndpoint {
  readonly settings: RpcEndpointSettings;
  readonly readBody: BodyReader;
  /** A refused client's body is read only to echo its id: never more than 64 KiB. */
  readonly readRefusedBody: BodyReader;
}

/** What serves one exchange. */
export type EdgeHandler = (req: EdgeRequest, res: EdgeResponse) => void;

/** A version's JSON-RPC over HTTP: authentication, the body, status codes, and SSE for streaming answers. */
export function createRpcEndpoint(settings: RpcEndpointSettings): EdgeHandler {
  const endpoint: RpcEndpoint = {
    settings,
    readBody: createBodyReader(settings.bodyLimit, settings.maxJsonDepth),
    readRefusedBody: createBodyReader(64 * 1024, settings.maxJsonDepth),
  };
  const spanAttributes = { [A2A_ATTRIBUTES.protocolVersion]: settings.protocol, [A2A_ATTRIBUTES.binding]: 'jsonrpc' };
  return (req, res) =>
    traceRequest(req, res, settings.route, spanAttributes, (span) => {
      if (req.method !== 'POST') return refuseVerb(settings, req, res, span);
      void serveRpc(endpoint, req, res, span).catch((error: unknown) => {
        // Nothing above should throw; if it does, the client still gets JSON-RPC, never a stack.
        settings.logger.error({ err: error }, 'unexpected error in the JSON-RPC endpoint');
        if (!res.headersSent) sendJson(res, 200, errorResponse(null, settings.wireError(A2AError.internalError())));
        else res.end(500);
      });
    });
}

async function serveRpc(endpoint: RpcEndpoint, req: EdgeRequest, res: EdgeResponse, span: Span): Promise<void> {
  const call = await readRpcCall(endpoint, req, res, span);
  if (!call) return;
  const { settings } = endpoint;
  const answer = await settings.dispatch(call.body, requestContextOf(req, res, call.principal, settings, 'jsonrpc', span));
  switch (answer.kind) {
    case 'response': {
      const status = (answer.reason && RPC_ERROR_STATUS[answer.reason]) ?? 200;
      if (status === 200 && answer.streamable && asksForEventStream(req)) return writeError(settings, res, answer.response);
      return sendAnswer(settings, res, status, answer.response, answer.response.id);
    }
    case 'batch':
      return sendAnswer(settings, res, 200, answer.responses, null);
    case 'none':
      res.end(204);
      return;
    case 'stream':
      return writeStream(settings, req, res, answer);
  }
}

/**
 * The request's body and principal, or undefined once a refusal is sent. The entry lets the call
 * in from its headers first, before anything is answered (and so before any SSE header); a
 * refused request's body is still read, up to 64 KiB, so that the refusal can echo its id (but
 * not a draining agent's: it answers at once). Then the body.
 */
async function readRpcCall(
  endpoint: RpcEndpoint,
  req: EdgeRequest,
  res: EdgeResponse,
  span: Span,
): Promise<{ body: unknown; principal: Principal | undefined } | undefined> {
  const { settings, readBody } = endpoint;
  const started = performance.now();
  let admission = settings.entry.admit(req.original ?? req, requestedVersion(req));
  if (admission instanceof Promise) admission = await admission;
  if (isRefusal(admission)) {
    const id = admission.step === 'draining' ? null : await refusedRequestId(endpoint, req, res);
    refuseRpc(settings, res, admission, id, { binding: 'jsonrpc', span, started, headers: req.headers });
    return undefined;
  }
  try {
    return { body: await readBody(req), principal: admission.principal };
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    const refusal = requestRefusal(bodyRefusal(settings, error), {
      httpStatus: error.status,
      tooLarge: error.status === 413,
      details: { status: error.status },
    });
    refuseRpc(settings, res, refusal, null, { binding: 'jsonrpc', span, started, headers: req.headers, principal: admission.principal });
    return undefined;
  }
}

/** Any verb but POST on the endpoint: 405, with the error in the version's words. */
function refuseVerb(settings: HttpEndpointSettings, req: EdgeRequest, res: EdgeResponse, span: Span): void {
  res.setHeader('Allow', 'POST');
  const refusal = requestRefusal(A2AError.invalidRequest({ reason: 'the A2A endpoint takes JSON-RPC requests by POST' }), {
    httpStatus: 405,
  });
  refuseRpc(settings, res, refusal, null, { binding: 'jsonrpc', span, started: performance.now(), headers: req.headers });
}

/** The id of a refused request, from at most 64 KiB of its body; null when it has none that can be read. */
async function refusedRequestId(endpoint: RpcEndpoint, req: EdgeRequest, res: EdgeResponse): Promise<JSONRPCId> {
  try {
    const body = await endpoint.readRefusedBody(req);
    return Array.isArray(body) ? null : idOf(body);
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    // What is left unread of the body cannot be told from a next request on the connection.
    res.setHeader('Connection', 'close');
    return null;
  }
}

/** A refusal, accounted for by the entry and written as JSON-RPC: HTTP's own status where it has one (401, 413, 503, ...), else 200. */
function refuseRpc(settings: HttpEndpointSettings, res: EdgeResponse, refusal: Refusal, id: JSONRPCId, call: RefusedCall): void {
  settings.entry.refused(refusal, call);
  writeRefusalHead(res, refusal);
  sendJson(res, refusal.httpStatus ?? 200, errorResponse(id, settings.wireError(refusal.error)));
}

/**
 * The headers of a refusal over HTTP, on either binding: the schemes to authenticate with (spec
 * 4.4), and for a draining agent or a body left unread, the end of the connection (a draining
 * replica's client should reconnect elsewhere, and soon).
 */
export function writeRefusalHead(res: EdgeResponse, refusal: Refusal): void {
  if (refusal.challenges) res.setHeader('WWW-Authenticate', refusal.challenges);
  if (refusal.step === 'draining') res.setHeader('Retry-After', '1');
  if (refusal.step === 'draining' || refusal.tooLarge) res.setHeader('Connection', 'close');
}

/** A body the transport refuses: a media type it does not take is the version's own error where it has one. */
export function bodyRefusal(
  settings: HttpEndpointSettings,
  error: TransportError,
  fallbackReason = 'Content-Type must be application/json',
): A2AError {
  const reason = (error.error.data as { reason?: string } | undefined)?.reason ?? fallbackReason;
  return error.status === 415 && settings.contentTypeError ? settings.contentTypeError(reason) : error.error;
}

/** What the method runner is told of a request: who calls, what came with it, where it came from. */
export function requestContextOf(
  req: EdgeRequest,
  res: EdgeResponse,
  principal: Principal | undefined,
  settings: HttpEndpointSettings,
  binding: BindingName,
  span: Span,
): RequestContext {
  const { extendedCardFor } = settings;
  const presence = new ResponsePresence(res, extensionsHeaderOf(settings.protocol));
  return {
    principal,
    headers: req.headers,
    extensionsEcho: presence,
    caller: presence,
    lastEventId: headerOf(req, 'last-event-id'),
    extendedCard: extendedCardFor && principal && (() => extendedCardFor(req, principal)),
    // Read when a stream opens: Express derives it per read (trust proxy), and most calls open none.
    clientAddress: () => req.clientAddress(),
    binding,
    span,
  };
}

/**
 * The answer, seen from the call: its client is there until it leaves before the answer is sent
 * (asked by a blocking send only, once it has waited a second: most calls never do), and the
 * extensions the agent used go in its header while the head is not sent.
 */
class ResponsePresence implements CallerPresenceView, ExtensionsEcho {
  constructor(
    private readonly res: EdgeResponse,
    private readonly extensionsHeader: string | undefined,
  ) {}

  get gone(): boolean {
    return this.res.gone;
  }

  get whenGone(): Promise<void> {
    return this.res.whenGone();
  }

  echoExtensions(activated: readonly string[]): void {
    if (this.extensionsHeader && !this.res.headersSent) this.res.setHeader(this.extensionsHeader, activated.join(','));
  }
}

/**
 * Sends an answer, or in its place the error that it could not be sent: an answer JSON cannot
 * carry, or one longer than `maxResponseBytes`, is never half-written.
 */
function sendAnswer(settings: HttpEndpointSettings, res: EdgeResponse, status: number, payload: unknown, id: JSONRPCId): void {
  const serialized = serializeAnswer(() => payload, settings);
  if (serialized.ok) sendJsonText(res, status, serialized.text);
  else sendJsonText(res, 200, JSON.stringify(errorResponse(id, settings.wireError(serialized.error))));
}

/**
 * The error of a streaming call, as a stream of that one event (see
 * `streamsErrorsOfStreamingMethods`). It has no event id: there is nothing to resume.
 */
function writeError(settings: HttpEndpointSettings, res: EdgeResponse, response: JSONRPCResponse): void {
  const stream = new SseStream(res, { heartbeatMs: settings.heartbeatMs, maxQueuedBytes: settings.maxStreamQueueBytes, eventIds: false });
  stream.open({});
  const serialized = serializeAnswer(() => response, settings);
  stream.send(0, serialized.ok ? serialized.text : JSON.stringify(errorResponse(response.id, settings.wireError(serialized.error))));
  stream.end();
}

/** Each event is a JSON-RPC response with the request's id; an event that cannot be sent, its error. */
function writeStream(settings: HttpEndpointSettings, req: EdgeRequest, res: EdgeResponse, { id, events, finished }: StreamAnswer): void {
  // The envelope is the same for the whole stream, so only the event is encoded per event.
  const envelope = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  writeEventStream(
    req,
    res,
    events,
    settings,
    {
      event: (text) => `${envelope}${text}}`,
      failure: (error) => ({ data: JSON.stringify(errorResponse(id, settings.wireError(error))) }),
    },
    finished,
  );
}

/** The `A2A-Version` a request asks for (spec 1.0 3.6.1): the header, else the query parameter. */
export function requestedVersion(req: EdgeRequest): string | undefined {
  const header = versionNamed(headerOf(req, 'a2a-version'));
  if (header !== undefined) return header;
  // Most requests have no query: it is parsed only when it may name the version.
  if (!/a2a-version=/i.test(req.search)) return undefined;
  const query = new URLSearchParams(req.search);
  return versionNamed(query.get('A2A-Version') ?? query.get('a2a-version'));
}

type AuthRefusal = Extract<AuthOutcome, { ok: false }>;

/** HTTP 401 with the schemes to use (spec 4.4) and a -32007 (in 0.3's words, see `errorTo03`). */
export function sendUnauthenticated(
  res: EdgeResponse,
  id: JSONRPCId,
  refusal: AuthRefusal,
  wireError: (error: A2AError) => A2AError = (error) => error,
): void {
  res.setHeader('WWW-Authenticate', refusal.challenges);
  sendJson(res, 401, errorResponse(id, wireError(A2AError.authenticationRequired(refusal.reason))));
}
