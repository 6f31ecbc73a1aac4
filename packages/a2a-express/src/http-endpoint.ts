// The HTTP side of the JSON-RPC endpoint: authentication, the body, status codes, and SSE for
// streaming answers. Everything about JSON-RPC itself is in dispatch.ts, which knows no HTTP.
import { A2AError, ErrorCode, type JSONRPCId, type JSONRPCResponse } from 'a2a-types';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { authenticate, type AuthOptions, type AuthOutcome } from './auth.js';
import { createBodyReader, TransportError } from './body.js';
import { errorResponse, idOf, type CallContext, type Dispatch, type StreamAnswer } from './dispatch.js';
import { EVENT_IDS_PREFERENCE, eventIdsFor, SseStream, type StreamEventIds } from './sse.js';

export interface EndpointSettings {
  readonly dispatch: Dispatch;
  readonly logger: Logger;
  readonly auth: AuthOptions | undefined;
  readonly bodyLimit: number | string;
  readonly maxJsonDepth: number;
  readonly heartbeatMs: number;
  readonly maxStreamQueueBytes: number;
  readonly streamEventIds: StreamEventIds;
  /** How this endpoint's protocol version words an error it sends itself (the 401). Default: as it is. */
  readonly wireError?: (error: A2AError) => A2AError;
  /** The protocol version this endpoint speaks, for the authorize hook. */
  readonly protocol: '0.1.0' | '0.3';
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
      logger.info({ outcome: 'error', code: error.error.code, status: error.status }, 'a2a call refused');
      sendJson(res, error.status, errorResponse(null, error.error));
      return;
    }
    if (auth && !auth.ok) return refuseUnauthenticated(res, Array.isArray(body) ? null : idOf(body), auth);
    const principal = auth?.principal;
    const authorize = authOptions?.authorize;
    const context: CallContext = {
      principal,
      lastEventId: req.get('last-event-id'),
      authorize:
        authorize &&
        principal &&
        ((method, params, rpcMethod) => authorize({ principal, method, rpcMethod, protocol: settings.protocol, params, req })),
    };
    const answer = await dispatch(body, context);
    switch (answer.kind) {
      case 'response':
        // Spec 4.4: an authorization refusal is also an HTTP 403.
        return sendJson(res, isAuthorizationRefusal(answer.response) ? 403 : 200, answer.response);
      case 'batch':
        return sendJson(res, 200, answer.responses);
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

  /** Sends a stream's events as SSE until its final event, or until the client goes away. */
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
    events.start(
      (stored) => stream.send(stored.id, `${envelope}${JSON.stringify(render(stored))}}`),
      () => stream.end(),
    );
  }
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
  const body = JSON.stringify(payload);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
