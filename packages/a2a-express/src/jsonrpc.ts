// JSON-RPC 2.0 over HTTP: framing, dispatch by method, batches, notifications, and the one place
// where errors become error objects (an A2AError as it is; anything else as a bare -32603).
import { performance } from 'node:perf_hooks';
import {
  A2AError,
  ErrorCode,
  validateJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCId,
  type JSONRPCResponse,
} from 'a2a-types';
import type { Request, RequestHandler, Response } from 'express';
import { authenticate, type AuthOutcome, type Principal } from './auth.js';
import { createBodyReader, TransportError } from './body.js';
import { methods, type Method, type MethodEnv, type StreamPlan } from './methods/index.js';
import { EVENT_IDS_PREFERENCE, eventIdsFor, SseStream } from './sse.js';
import { isFinalEvent } from './task-state.js';
import { checkTaskId } from './task-store.js';

type Outcome =
  | { kind: 'response'; response: JSONRPCResponse }
  | { kind: 'notification' }
  | { kind: 'stream'; rpcId: JSONRPCId; plan: StreamPlan; log: CallLog };

interface CallLog {
  principal: string | undefined;
  method: string;
  rpcId: JSONRPCId | undefined;
  taskId: string | undefined;
  started: number;
}

export function createRpcHandler(env: MethodEnv): RequestHandler {
  const readBody = createBodyReader(env.options.bodyLimit, env.options.maxJsonDepth);
  // A refused client's body is read only to echo its id: never more than this.
  const readRefusedBody = createBodyReader(64 * 1024, env.options.maxJsonDepth);

  return (req, res) => {
    void handle(req, res).catch((error: unknown) => {
      // Nothing above should throw; if it does, the client still gets JSON-RPC, never a stack.
      env.logger.error({ err: error }, 'unexpected error in the JSON-RPC endpoint');
      if (!res.headersSent) sendJson(res, 200, errorResponse(null, A2AError.internalError()));
      else res.end();
    });
  };

  async function handle(req: Request, res: Response): Promise<void> {
    // Credentials are checked from the headers first, before anything is answered (and so
    // before any SSE header); the body is still read so that a refusal can echo the request id.
    const auth: AuthOutcome | undefined = env.options.auth && (await authenticate(req, env.options.auth));
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
      env.logger.info({ outcome: 'error', code: error.error.code, status: error.status }, 'a2a call refused');
      sendJson(res, error.status, errorResponse(null, error.error));
      return;
    }
    if (auth && !auth.ok) return refuseUnauthenticated(res, Array.isArray(body) ? null : idOf(body), auth);
    const principal = auth?.principal;
    if (Array.isArray(body)) {
      await handleBatch(req, res, body, principal);
      return;
    }
    const outcome = await call(req, body, true, principal);
    // Spec 4.4: an authorization refusal is also an HTTP 403.
    if (outcome.kind === 'response') sendJson(res, 'error' in outcome.response && outcome.response.error.code === ErrorCode.AuthorizationFailed ? 403 : 200, outcome.response);
    else if (outcome.kind === 'notification') res.status(204).end();
    else writeStream(req, res, outcome);
  }

  function refuseUnauthenticated(res: Response, id: JSONRPCId, auth: AuthRefusal): void {
    env.logger.info({ outcome: 'error', code: ErrorCode.AuthenticationRequired, reason: auth.reason }, 'a2a call refused');
    sendUnauthenticated(res, id, auth);
  }

  /** A batch is answered with an array of the non-notification responses, in request order. */
  async function handleBatch(req: Request, res: Response, batch: unknown[], principal: Principal | undefined): Promise<void> {
    if (batch.length === 0 || batch.length > env.options.maxBatchSize) {
      const reason =
        batch.length === 0 ? 'an empty batch' : `a batch holds at most ${env.options.maxBatchSize} requests`;
      sendJson(res, 200, errorResponse(null, A2AError.invalidRequest({ reason })));
      return;
    }
    const outcomes = await Promise.all(batch.map((item) => call(req, item, false, principal)));
    const responses = outcomes.flatMap((o) => (o.kind === 'response' ? [o.response] : []));
    if (responses.length === 0) res.status(204).end();
    else sendJson(res, 200, responses);
  }

  /** Checks, dispatches and logs one request object. */
  async function call(req: Request, request: unknown, streamingAllowed: boolean, principal: Principal | undefined): Promise<Outcome> {
    const log: CallLog = { principal: principal?.id, method: '', rpcId: undefined, taskId: undefined, started: performance.now() };
    if (!validateJSONRPCRequest(request)) {
      return respond(log, idOf(request), A2AError.invalidRequest(validateJSONRPCRequest.issues));
    }
    const isNotification = !('id' in request);
    const rpcId = request.id ?? null;
    log.method = request.method;
    log.rpcId = request.id;
    log.taskId = taskIdOf(request.params);
    const method: Method | undefined = Object.hasOwn(methods, request.method)
      ? methods[request.method as keyof typeof methods]
      : undefined;
    try {
      if (!method) throw A2AError.methodNotFound(request.method);
      if (method.requires === 'streaming' && !env.options.streaming) throw A2AError.streamingNotSupported();
      if (method.requires === 'pushNotifications' && !env.options.pushNotifications) {
        throw A2AError.pushNotificationNotSupported();
      }
      if (method.kind === 'streaming' && !streamingAllowed) {
        throw A2AError.unsupportedOperation(`${request.method} streams its answer and cannot be part of a batch`);
      }
      if (!method.validateParams(request.params)) throw A2AError.invalidParams(method.validateParams.issues);
      if (log.taskId !== undefined) checkTaskId(log.taskId);
      const authorize = env.options.auth?.authorize;
      if (authorize && principal && !(await authorize({ principal, method: request.method, params: request.params, req }))) {
        throw A2AError.authorizationFailed();
      }
      if (method.kind === 'unary') {
        const result = await method.run(request.params, { req, env, principal });
        if (isNotification) return logged(log, 'notification');
        return respond(log, rpcId, undefined, result);
      }
      const plan = await method.open(request.params, { req, env, principal });
      if (!isNotification) return { kind: 'stream', rpcId, plan, log };
      plan.feed.close();
      return logged(log, 'notification');
    } catch (error) {
      const rpcError = toA2AError(error, log);
      if (isNotification) return logged(log, 'notification', rpcError.code);
      return respond(log, rpcId, rpcError);
    }
  }

  function toA2AError(error: unknown, log: CallLog): A2AError {
    if (error instanceof A2AError) return error;
    env.logger.error({ err: error, method: log.method, taskId: log.taskId }, 'internal error');
    return A2AError.internalError();
  }

  function respond(log: CallLog, id: JSONRPCId, error?: A2AError, result?: unknown): Outcome {
    logCall(log, error?.code);
    const response: JSONRPCResponse = error ? errorResponse(id, error) : { jsonrpc: '2.0', id, result };
    return { kind: 'response', response };
  }

  function logged(log: CallLog, kind: 'notification', code?: number): Outcome {
    logCall(log, code);
    return { kind };
  }

  function logCall(log: CallLog, code?: number, extra?: Record<string, unknown>): void {
    env.logger.info(
      {
        principal: log.principal,
        method: log.method || undefined,
        rpcId: log.rpcId,
        taskId: log.taskId,
        durationMs: Math.round((performance.now() - log.started) * 1000) / 1000,
        outcome: code === undefined ? 'ok' : 'error',
        code,
        ...extra,
      },
      'a2a call',
    );
  }

  /** Sends a stream's events as SSE until its final event, or until the client goes away. */
  function writeStream(req: Request, res: Response, { rpcId, plan, log }: Extract<Outcome, { kind: 'stream' }>): void {
    const { eventIds, preferred } = eventIdsFor(req, env.options.streamEventIds);
    const stream = new SseStream(res, {
      heartbeatMs: env.options.heartbeatMs,
      maxQueuedBytes: env.options.maxStreamQueueBytes,
      eventIds,
    });
    stream.open(preferred ? { 'Preference-Applied': EVENT_IDS_PREFERENCE } : {});
    stream.onClose((reason) => {
      plan.feed.close();
      logCall(log, undefined, { events: stream.sent, stream: reason });
    });
    // Each event is a JSON-RPC response with the request's id. The envelope is the same for the
    // whole stream, so only the event is encoded per event (15 % less than encoding it all).
    const envelope = `{"jsonrpc":"2.0","id":${JSON.stringify(rpcId)},"result":`;
    plan.feed.start(plan.initial, plan.coveredThrough, ({ id, event }) => {
      stream.send(id, `${envelope}${JSON.stringify(event)}}`);
      if (isFinalEvent(event)) {
        plan.feed.close();
        stream.end();
      }
    });
  }
}

type AuthRefusal = Extract<AuthOutcome, { ok: false }>;

/** HTTP 401 with the schemes to use (spec 4.4) and a -32007. */
export function sendUnauthenticated(res: Response, id: JSONRPCId, refusal: AuthRefusal): void {
  res.setHeader('WWW-Authenticate', refusal.challenges);
  sendJson(res, 401, errorResponse(id, A2AError.authenticationRequired(refusal.reason)));
}

export function errorResponse(id: JSONRPCId, error: A2AError): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: error.toJSON() };
}

/** Writes a JSON body without Express's extras (ETag, app-level JSON settings). */
export function sendJson(res: Response, status: number, payload: unknown): void {
  const body = JSON.stringify(payload);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** The id of a request that failed the envelope check, when it has a usable one. */
function idOf(request: unknown): JSONRPCId {
  const id = (request as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function taskIdOf(params: unknown): string | undefined {
  const id = (params as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}
