// The HTTP side of the JSON-RPC endpoint: authentication, the body, status codes, and SSE for
// streaming answers. Everything about JSON-RPC itself is in json-rpc.ts, which knows no HTTP.
import { A2AError, ErrorCode, type JSONRPCId, type JSONRPCResponse } from 'a2a-types';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { authenticate, type AuthOptions, type AuthOutcome, type Principal } from '../core/auth.js';
import { createBodyReader, TransportError } from './body.js';
import { errorResponse, idOf, type Dispatch, type RequestContext, type StreamAnswer } from './json-rpc.js';
import { asksForEventStream, serializeAnswer, writeEventStream } from './event-stream.js';
import { SseStream, type StreamEventIds } from './sse.js';
import { performance } from 'node:perf_hooks';
import type { A2AMetrics } from '../telemetry/metrics.js';
import { A2A_ATTRIBUTES, traceRequest, type Span } from '../telemetry/tracing.js';

interface EndpointSettings {
  readonly dispatch: Dispatch;
  readonly logger: Logger;
  readonly auth: AuthOptions | undefined;
  readonly bodyLimit: number | string;
  readonly maxJsonDepth: number;
  readonly heartbeatMs: number;
  readonly maxStreamQueueBytes: number;
  /** Most characters of one JSON-RPC response or stream event; a larger one is refused (-32603). */
  readonly maxResponseBytes: number;
  readonly streamEventIds: StreamEventIds;
  /** How this endpoint's protocol version words an error it sends itself (the 401). Default: as it is. */
  readonly wireError?: (error: A2AError) => A2AError;
  /** The protocol version this endpoint speaks, for its spans and metrics. */
  readonly protocol: string;
  /** See `VersionEndpoint.refusesVersion`. */
  readonly refusesVersion?: (requested: string | undefined) => A2AError | undefined;
  /** See `VersionEndpoint.contentTypeError`. */
  readonly contentTypeError?: (reason: string) => A2AError;
  /** The version's extended card for this request and caller; absent when the agent has none. */
  readonly extendedCardFor?: (req: Request, principal: Principal) => Promise<unknown>;
  /** Where the endpoint is below the mount, for its server spans' `http.route`. */
  readonly route: string;
  readonly metrics?: A2AMetrics;
}

export function createRpcEndpoint(settings: EndpointSettings): RequestHandler {
  const { dispatch, logger, auth: authOptions } = settings;
  const readBody = createBodyReader(settings.bodyLimit, settings.maxJsonDepth);
  // A refused client's body is read only to echo its id: never more than this.
  const readRefusedBody = createBodyReader(64 * 1024, settings.maxJsonDepth);

  const spanAttributes = { [A2A_ATTRIBUTES.protocolVersion]: settings.protocol, [A2A_ATTRIBUTES.binding]: 'jsonrpc' };
  const { metrics, protocol } = settings;

  return (req, res) =>
    traceRequest(req, res, settings.route, spanAttributes, (span) => {
      void handle(req, res, span).catch((error: unknown) => {
        // Nothing above should throw; if it does, the client still gets JSON-RPC, never a stack.
        logger.error({ err: error }, 'unexpected error in the JSON-RPC endpoint');
        if (!res.headersSent) sendJson(res, 200, errorResponse(null, A2AError.internalError()));
        else res.end();
      });
    });

  /** A call refused before it reached the dispatcher (credentials, body, version): counted as one. */
  function countRefusal(started: number, code: number): void {
    metrics?.callEnded(protocol, 'jsonrpc', 'other', code, (performance.now() - started) / 1000);
  }

  async function handle(req: Request, res: Response, span: Span): Promise<void> {
    const started = performance.now();
    // Credentials are checked from the headers first, before anything is answered (and so
    // before any SSE header); the body is still read so that a refusal can echo the request id.
    const auth: AuthOutcome | undefined = authOptions && (await authenticate(req, authOptions));
    let body: unknown;
    try {
      body = await (auth && !auth.ok ? readRefusedBody : readBody)(req, res);
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      if (auth && !auth.ok) {
        res.setHeader('Connection', 'close');
        countRefusal(started, ErrorCode.AuthenticationRequired);
        return refuseUnauthenticated(res, null, auth);
      }
      if (error.status === 413) res.setHeader('Connection', 'close');
      const reason = (error.error.data as { reason?: string } | undefined)?.reason ?? 'Content-Type must be application/json';
      const refusal =
        error.status === 415 && settings.contentTypeError
          ? settings.contentTypeError(reason)
          : (settings.wireError?.(error.error) ?? error.error);
      logger.info({ outcome: 'error', code: refusal.code, status: error.status }, 'a2a call refused');
      countRefusal(started, refusal.code);
      sendJson(res, error.status, errorResponse(null, refusal));
      return;
    }
    if (auth && !auth.ok) {
      countRefusal(started, ErrorCode.AuthenticationRequired);
      return refuseUnauthenticated(res, Array.isArray(body) ? null : idOf(body), auth);
    }
    const versionRefusal = settings.refusesVersion?.(requestedVersion(req));
    if (versionRefusal) {
      countRefusal(started, versionRefusal.code);
      logger.info({ outcome: 'error', code: versionRefusal.code, version: requestedVersion(req) }, 'a2a call refused');
      sendJson(res, 200, errorResponse(Array.isArray(body) ? null : idOf(body), versionRefusal));
      return;
    }
    const principal = auth?.principal;
    const context: RequestContext = {
      principal,
      headers: req.headers,
      lastEventId: req.get('last-event-id'),
      extendedCard: settings.extendedCardFor && principal && (() => settings.extendedCardFor!(req, principal)),
      // Read when a stream opens: Express derives it per read (trust proxy), and most calls open none.
      clientAddress: () => req.ip,
      span,
    };
    const answer = await dispatch(body, context);
    switch (answer.kind) {
      case 'response':
        // Spec 4.4: an authorization refusal is also an HTTP 403, whatever code its version gives it.
        if (answer.refusedAuthorization) return sendAnswer(res, 403, answer.response, answer.response.id);
        if (answer.streamable && asksForEventStream(req)) return writeError(res, answer.response);
        return sendAnswer(res, 200, answer.response, answer.response.id);
      case 'batch':
        return sendAnswer(res, 200, answer.responses, null);
      case 'none':
        res.status(204).end();
        return;
      case 'stream':
        return writeStream(req, res, answer);
    }
  }

  function refuseUnauthenticated(res: Response, id: JSONRPCId, auth: AuthRefusal): void {
    logger.info({ outcome: 'error', code: ErrorCode.AuthenticationRequired, reason: auth.reason }, 'a2a call refused');
    sendUnauthenticated(res, id, auth, settings.wireError);
  }

  /**
   * Sends an answer, or in its place the error that it could not be sent: an answer JSON cannot
   * carry, or one longer than `maxResponseBytes`, is never half-written.
   */
  function sendAnswer(res: Response, status: number, payload: unknown, id: JSONRPCId): void {
    const serialized = serializeAnswer(() => payload, settings);
    if (serialized.ok) sendJsonText(res, status, serialized.text);
    else sendJsonText(res, 200, JSON.stringify(errorResponse(id, serialized.error)));
  }

  /**
   * The error of a streaming call, as a stream of that one event (see
   * `streamsErrorsOfStreamingMethods`). It has no event id: there is nothing to resume.
   */
  function writeError(res: Response, response: JSONRPCResponse): void {
    const stream = new SseStream(res, { heartbeatMs: settings.heartbeatMs, maxQueuedBytes: settings.maxStreamQueueBytes, eventIds: false });
    stream.open({});
    const serialized = serializeAnswer(() => response, settings);
    stream.send(0, serialized.ok ? serialized.text : JSON.stringify(errorResponse(response.id, serialized.error)));
    stream.end();
  }

  /** Each event is a JSON-RPC response with the request's id; an event that cannot be sent, its error. */
  function writeStream(req: Request, res: Response, { id, events, finished }: StreamAnswer): void {
    // The envelope is the same for the whole stream, so only the event is encoded per event.
    const envelope = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
    writeEventStream(
      req,
      res,
      events,
      settings,
      { event: (text) => `${envelope}${text}}`, failure: (error) => ({ data: JSON.stringify(errorResponse(id, error)) }) },
      finished,
    );
  }
}

/** The `A2A-Version` a request asks for (spec 1.0 3.6.1): the header, else the query parameter. */
export function requestedVersion(req: Request): string | undefined {
  const header = req.get('a2a-version');
  if (header !== undefined && header.trim() !== '') return header.trim();
  const query = req.query['A2A-Version'] ?? req.query['a2a-version'];
  return typeof query === 'string' && query.trim() !== '' ? query.trim() : undefined;
}

type AuthRefusal = Extract<AuthOutcome, { ok: false }>;

/** HTTP 401 with the schemes to use (spec 4.4) and a -32007 (in 0.3's words, see `errorTo03`). */
export function sendUnauthenticated(
  res: Response,
  id: JSONRPCId,
  refusal: AuthRefusal,
  wireError: (error: A2AError) => A2AError = (error) => error,
): void {
  res.setHeader('WWW-Authenticate', refusal.challenges);
  sendJson(res, 401, errorResponse(id, wireError(A2AError.authenticationRequired(refusal.reason))));
}

/** Writes a JSON body without Express's extras (ETag, app-level JSON settings). */
export function sendJson(res: Response, status: number, payload: unknown): void {
  sendJsonText(res, status, JSON.stringify(payload));
}

function sendJsonText(res: Response, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
