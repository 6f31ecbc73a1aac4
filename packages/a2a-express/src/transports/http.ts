// The HTTP side of the JSON-RPC endpoint: authentication, the body, status codes, and SSE for
// streaming answers. Everything about JSON-RPC itself is in json-rpc.ts, which knows no HTTP.
import { A2AError, ErrorCode, type JSONRPCId, type JSONRPCResponse } from 'a2a-types';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { authenticate, type AuthOptions, type AuthOutcome } from '../core/auth.js';
import { SeveralEvents } from '../core/event-feed.js';
import type { StoredEvent } from '../store/records.js';
import { createBodyReader, TransportError } from './body.js';
import { errorResponse, idOf, type CallContext, type Dispatch, type StreamAnswer } from './json-rpc.js';
import { EVENT_IDS_PREFERENCE, eventIdsFor, SseStream, type StreamEventIds } from './sse.js';

export interface EndpointSettings {
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
  /** The protocol version this endpoint speaks, for the authorize hook. */
  readonly protocol: string;
  /** See `VersionEndpoint.refusesVersion`. */
  readonly refusesVersion?: (requested: string | undefined) => A2AError | undefined;
  /** See `VersionEndpoint.contentTypeError`. */
  readonly contentTypeError?: (reason: string) => A2AError;
}

export function createRpcEndpoint(settings: EndpointSettings): RequestHandler {
  const { dispatch, logger, auth: authOptions } = settings;
  const readBody = createBodyReader(settings.bodyLimit, settings.maxJsonDepth);
  // A refused client's body is read only to echo its id: never more than this.
  const readRefusedBody = createBodyReader(64 * 1024, settings.maxJsonDepth);

  return (req, res) => {
    void handle(req, res).catch((error: unknown) => {
      // Nothing above should throw; if it does, the client still gets JSON-RPC, never a stack.
      logger.error({ err: error }, 'unexpected error in the JSON-RPC endpoint');
      if (!res.headersSent) sendJson(res, 200, errorResponse(null, A2AError.internalError()));
      else res.end();
    });
  };

  async function handle(req: Request, res: Response): Promise<void> {
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
        return refuseUnauthenticated(res, null, auth);
      }
      if (error.status === 413) res.setHeader('Connection', 'close');
      const reason = (error.error.data as { reason?: string } | undefined)?.reason ?? 'Content-Type must be application/json';
      const refusal = error.status === 415 && settings.contentTypeError ? settings.contentTypeError(reason) : error.error;
      logger.info({ outcome: 'error', code: refusal.code, status: error.status }, 'a2a call refused');
      sendJson(res, error.status, errorResponse(null, refusal));
      return;
    }
    if (auth && !auth.ok) return refuseUnauthenticated(res, Array.isArray(body) ? null : idOf(body), auth);
    const versionRefusal = settings.refusesVersion?.(requestedVersion(req));
    if (versionRefusal) {
      logger.info({ outcome: 'error', code: versionRefusal.code, version: requestedVersion(req) }, 'a2a call refused');
      sendJson(res, 200, errorResponse(Array.isArray(body) ? null : idOf(body), versionRefusal));
      return;
    }
    const principal = auth?.principal;
    const authorize = authOptions?.authorize;
    const context: CallContext = {
      principal,
      lastEventId: req.get('last-event-id'),
      authorize: authorize && principal && ((call) => authorize({ ...call, principal, protocol: settings.protocol, req })),
    };
    const answer = await dispatch(body, context);
    switch (answer.kind) {
      case 'response':
        // Spec 4.4: an authorization refusal is also an HTTP 403.
        if (isAuthorizationRefusal(answer.response)) return sendAnswer(res, 403, answer.response, answer.response.id);
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
    const serialized = serialize(() => payload, id);
    if (serialized.ok) sendJsonText(res, status, serialized.text);
    else sendJsonText(res, 200, serialized.errorText);
  }

  /**
   * JSON text of one response or event, or the JSON-RPC error that replaces it. Building it can
   * fail (a value JSON cannot carry, past V8's longest string, a rendering that throws), and a
   * body past the limit is refused rather than sent; either is the agent's fault, not the
   * client's: -32603 with a reason, logged.
   */
  function serialize(build: () => unknown, id: JSONRPCId): Serialized {
    let reason: string;
    let cause: unknown;
    try {
      const text = JSON.stringify(build());
      if (text.length <= settings.maxResponseBytes) return { ok: true, text };
      reason = `the answer is ${text.length} characters, more than this agent sends in one (maxResponseBytes ${settings.maxResponseBytes})`;
    } catch (error) {
      reason = 'the answer could not be serialized';
      cause = error;
    }
    logger.error({ err: cause, reason }, 'answer refused');
    return { ok: false, errorText: JSON.stringify(errorResponse(id, A2AError.internalError(reason))) };
  }

  /**
   * The error of a streaming call, as a stream of that one event (see
   * `streamsErrorsOfStreamingMethods`). It has no event id: there is nothing to resume.
   */
  function writeError(res: Response, response: JSONRPCResponse): void {
    const stream = new SseStream(res, { heartbeatMs: settings.heartbeatMs, maxQueuedBytes: settings.maxStreamQueueBytes, eventIds: false });
    stream.open({});
    const serialized = serialize(() => response, response.id);
    stream.send(0, serialized.ok ? serialized.text : serialized.errorText);
    stream.end();
  }

  /**
   * A stream's event as its version renders it, serialized; or, when the version sends several
   * things for it, those (each serialized as it is sent). A render that throws is an answer that
   * cannot be sent, as in `serialize`.
   */
  function renderSafely(render: (stored: StoredEvent) => unknown, stored: StoredEvent, id: JSONRPCId): Serialized | SeveralEvents {
    let several: SeveralEvents | undefined;
    const serialized = serialize(() => {
      const rendered = render(stored);
      if (!(rendered instanceof SeveralEvents)) return rendered;
      several = rendered;
      return null;
    }, id);
    return several ?? serialized;
  }

  /**
   * Sends a stream's events as SSE until its final event, or until the client goes away. An
   * event that cannot be sent (see `serialize`) ends the stream with that error as its last
   * event, and the stream lets go of the task's feed.
   */
  function writeStream(req: Request, res: Response, { id, events, finished }: StreamAnswer): void {
    const { eventIds, preferred } = eventIdsFor(req, settings.streamEventIds);
    const stream = new SseStream(res, { heartbeatMs: settings.heartbeatMs, maxQueuedBytes: settings.maxStreamQueueBytes, eventIds });
    stream.open(preferred ? { 'Preference-Applied': EVENT_IDS_PREFERENCE } : {});
    stream.onClose((reason) => {
      events.close();
      finished({ events: stream.sent, stream: reason });
    });
    // Each event is a JSON-RPC response with the request's id. The envelope is the same for the
    // whole stream, so only the event is encoded per event.
    const envelope = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
    const { render } = events;
    const sendEvent = (eventId: number, serialized: Serialized) => {
      if (!serialized.ok) throw new UnsendableEvent(eventId, serialized.errorText);
      stream.send(eventId, `${envelope}${serialized.text}}`);
    };
    events.start(
      (stored) => {
        const rendered = renderSafely(render, stored, id);
        if (!(rendered instanceof SeveralEvents)) return sendEvent(stored.id, rendered);
        for (const { eventId, value } of rendered.values)
          sendEvent(
            eventId,
            serialize(() => value, id),
          );
      },
      (failure) => {
        // An event that could not be sent is the stream's last: its error says why the stream
        // ends, so the client is not left waiting for a final event.
        if (failure?.error instanceof UnsendableEvent) stream.send(failure.error.eventId, failure.error.errorText);
        else if (failure) logger.error({ err: failure.error }, 'a stream failed');
        stream.end();
      },
    );
  }
}

/** An answer as text, or the JSON-RPC error to send in its place. */
type Serialized = { ok: true; text: string } | { ok: false; errorText: string };

/** An event a stream could not send, and the JSON-RPC error it sends in its place. */
class UnsendableEvent extends Error {
  constructor(
    readonly eventId: number,
    readonly errorText: string,
  ) {
    super('a stream event could not be sent');
  }
}

/** The `A2A-Version` a request asks for (spec 1.0 3.6.1): the header, else the query parameter. */
export function requestedVersion(req: Request): string | undefined {
  const header = req.get('a2a-version');
  if (header !== undefined && header.trim() !== '') return header.trim();
  const query = req.query['A2A-Version'] ?? req.query['a2a-version'];
  return typeof query === 'string' && query.trim() !== '' ? query.trim() : undefined;
}

/** A client that names `text/event-stream` in its Accept header (not one that takes anything). */
function asksForEventStream(req: Request): boolean {
  return /(^|[\s,])text\/event-stream\b/i.test(req.get('accept') ?? '');
}

function isAuthorizationRefusal(response: JSONRPCResponse): boolean {
  return 'error' in response && response.error.code === ErrorCode.AuthorizationFailed;
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
