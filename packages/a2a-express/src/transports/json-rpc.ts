// JSON-RPC 2.0 with no transport in it: a parsed body in, a response, no response
// (notifications) or a stream of events out. It checks the envelope, dispatches by method,
// handles batches, logs one line per call, and is the one place where errors become error
// objects (an A2AError as it is; anything else as a bare -32603). The HTTP adapter
// (http.ts) is one transport on top of it; another binding plugs in the same way.
import { performance } from 'node:perf_hooks';
import {
  A2AError,
  ErrorCode,
  validateJSONRPCRequest,
  type JSONRPCErrorResponse,
  type JSONRPCId,
  type JSONRPCResponse,
  type ValidationIssue,
} from 'a2a-types';
import type { Logger } from 'pino';
import type { AgentOperations } from '../core/agent-operations.js';
import type { Principal } from '../core/auth.js';
import type { CallContext, CallHeaders } from '../core/call.js';
import type { TaskEventStream } from '../core/event-feed.js';
import { taskIdAt, type Method } from '../core/method.js';
import type { ProtocolVersion } from '../core/protocol-version.js';
import { idIssues } from '../store/records.js';
import type { A2AMetrics, BindingName } from '../telemetry/metrics.js';
import { callTask, endCall, nameCall, startChildSpan, withSpan, type Span } from '../telemetry/tracing.js';

/** Who calls and what the transport knows of a request beyond its body: the same for each call of a batch. */
export interface RequestContext {
  /** Who is calling, when the transport authenticated the request. */
  readonly principal: Principal | undefined;
  /** The request's headers, names in lower case. */
  readonly headers: CallHeaders;
  /** The `Last-Event-ID` the client sent, as it came. */
  readonly lastEventId: string | undefined;
  /** The version's extended agent card for this caller; absent when the agent has none. */
  readonly extendedCard?: () => Promise<unknown>;
  /** The client's address (for a call without a principal: whose streams it opens). */
  readonly clientAddress?: () => string | undefined;
  /** What the call came over, for its metrics. Default `jsonrpc`. */
  readonly binding?: BindingName;
  /** The request's server span: a call names it; each call of a batch gets a child of it. */
  readonly span?: Span;
}

/** A call answered with a stream: its events, and what the transport reports when it ends. */
export interface StreamAnswer {
  readonly kind: 'stream';
  /** The request's id, for every event's envelope. */
  readonly id: JSONRPCId;
  readonly events: TaskEventStream;
  /** Logs the call, once the stream is over. */
  finished(details: Record<string, unknown>): void;
}

/** What a body dispatches to. */
export type Dispatched =
  | {
      readonly kind: 'response';
      readonly response: JSONRPCResponse;
      /** An error of a streaming method that the version sends as a stream to a client that takes one. */
      readonly streamable?: boolean;
      /**
       * The call was refused by authorization (the `authorize` hook, or a handler's -32008), in
       * whatever code its version says that with: HTTP says 403 on every version.
       */
      readonly refusedAuthorization?: boolean;
    }
  | { readonly kind: 'batch'; readonly responses: JSONRPCResponse[] }
  /** Notifications only: nothing to answer. */
  | { readonly kind: 'none' }
  | StreamAnswer;

/** What the dispatcher needs of a protocol version: its methods and how its errors look. */
export type ProtocolBinding = Pick<
  ProtocolVersion,
  'methods' | 'wireError' | 'methodNotFound' | 'answersFailedNotifications' | 'streamsErrorsOfStreamingMethods'
>;

export interface DispatcherSettings {
  readonly binding: ProtocolBinding;
  readonly operations: AgentOperations;
  readonly logger: Logger;
  readonly maxBatchSize: number;
  /** The version's name, for the calls' metrics and spans. */
  readonly version: string;
  readonly metrics?: A2AMetrics;
}

export type Dispatch = (body: unknown, context: RequestContext) => Promise<Dispatched>;

type CallOutcome = Extract<Dispatched, { kind: 'response' }> | { kind: 'none' } | StreamAnswer;

interface CallLog {
  principal: string | undefined;
  method: string;
  rpcId: JSONRPCId | undefined;
  taskId: string | undefined;
  started: number;
  binding: BindingName;
  /**
   * The method for metrics and spans: one of the version's, or `other`, so that neither takes a
   * value a client made up.
   */
  methodLabel: string;
  span: Span | undefined;
  /** The span is the call's own (a batch's item), ended with it. */
  ownSpan: boolean;
}

export function createDispatcher(settings: DispatcherSettings): Dispatch {
  const { operations, logger, binding, metrics, version } = settings;
  const { methods } = binding;
  const methodNotFound = binding.methodNotFound ?? A2AError.methodNotFound;
  const wireError = binding.wireError ?? ((error: A2AError) => error);

  return async (body, context) => {
    if (!Array.isArray(body)) return call(body, true, context);
    // A batch is answered with an array of the non-notification responses, in request order.
    if (body.length === 0 || body.length > settings.maxBatchSize) {
      const reason = body.length === 0 ? 'an empty batch' : `a batch holds at most ${settings.maxBatchSize} requests`;
      const refusal = wireError(A2AError.invalidRequest({ reason }));
      metrics?.callEnded(version, context.binding ?? 'jsonrpc', 'other', refusal.code, 0);
      return { kind: 'response', response: errorResponse(null, refusal) };
    }
    const outcomes = await Promise.all(body.map((item) => call(item, false, context)));
    const responses = outcomes.flatMap((o) => (o.kind === 'response' ? [o.response] : []));
    return responses.length === 0 ? { kind: 'none' } : { kind: 'batch', responses };
  };

  /** Checks, dispatches and logs one request object: a call of a batch in a span of its own. */
  function call(request: unknown, streamingAllowed: boolean, context: RequestContext): Promise<CallOutcome> {
    const ownSpan = !streamingAllowed && context.span !== undefined && context.span.isRecording();
    const log: CallLog = {
      principal: context.principal?.id,
      method: '',
      rpcId: undefined,
      taskId: undefined,
      started: performance.now(),
      binding: context.binding ?? 'jsonrpc',
      methodLabel: 'other',
      span: ownSpan ? startChildSpan('jsonrpc batch item', {}) : context.span,
      ownSpan,
    };
    // What the call starts (its turn) is a child of the call's own span.
    return ownSpan
      ? withSpan(log.span!, () => callWith(log, request, streamingAllowed, context))
      : callWith(log, request, streamingAllowed, context);
  }

  async function callWith(log: CallLog, request: unknown, streamingAllowed: boolean, context: RequestContext): Promise<CallOutcome> {
    if (!validateJSONRPCRequest(request)) {
      return respond(log, idOf(request), wireError(A2AError.invalidRequest(validateJSONRPCRequest.issues)));
    }
    const isNotification = !('id' in request);
    const rpcId = request.id ?? null;
    log.method = request.method;
    log.rpcId = request.id;
    const method: Method | undefined = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    log.taskId = (method?.taskIdOf ?? idOfTask)(request.params);
    if (method) log.methodLabel = request.method;
    nameCall(log.span, log.methodLabel, log.binding === 'jsonrpc');
    try {
      if (!method) throw methodNotFound(request.method);
      const refusal = operations.refusal(method.operation);
      if (refusal) throw refusal;
      if (method.kind === 'streaming' && !streamingAllowed) {
        throw A2AError.unsupportedOperation(`${request.method} streams its answer and cannot be part of a batch`);
      }
      const params: unknown = request.params;
      if (!method.validateParams(params)) throw A2AError.invalidParams(method.validateParams.issues);
      const badIds = idIssuesIn(params, method.idPaths ?? TASK_ID_ONLY);
      if (badIds.length > 0) throw A2AError.invalidParams(badIds);
      if (log.taskId !== undefined) callTask(log.span, log.taskId);
      const { name, params: operationParams } = method.toOperation(params);
      const callContext: CallContext = {
        principal: context.principal,
        headers: context.headers,
        origin: { protocol: version, binding: log.binding, method: request.method, params },
        lastEventId: context.lastEventId,
        clientAddress: context.clientAddress,
        extendedCard: context.extendedCard,
        turnRules: method.turnRules,
        view: method.view?.(params),
      };
      const result = await operations.call(name, operationParams, callContext);
      if (method.kind === 'unary') {
        const answer = method.answer(result, params);
        return isNotification ? logged(log) : respond(log, rpcId, undefined, answer);
      }
      const events = result as TaskEventStream;
      if (isNotification) {
        events.close();
        return logged(log);
      }
      return { kind: 'stream', id: rpcId, events, finished: (details) => logCall(log, undefined, details) };
    } catch (error) {
      const rpcError = toA2AError(error, log);
      if (isNotification && !binding.answersFailedNotifications) return logged(log, rpcError.code);
      const streamable = method?.kind === 'streaming' && streamingAllowed && binding.streamsErrorsOfStreamingMethods === true;
      // Told before the version's words replace -32008 (1.0 says PERMISSION_DENIED with -32000).
      const refused = error instanceof A2AError && error.code === ErrorCode.AuthorizationFailed;
      return respond(log, rpcId, rpcError, undefined, streamable, refused);
    }
  }

  function toA2AError(error: unknown, log: CallLog): A2AError {
    if (error instanceof A2AError) return wireError(error);
    logger.error({ err: error, method: log.method, taskId: log.taskId }, 'internal error');
    return A2AError.internalError();
  }

  function respond(log: CallLog, id: JSONRPCId, error?: A2AError, result?: unknown, streamable = false, refused = false): CallOutcome {
    logCall(log, error?.code);
    const response: JSONRPCResponse = error ? errorResponse(id, error) : { jsonrpc: '2.0', id, result };
    if (!streamable && !refused) return { kind: 'response', response };
    return { kind: 'response', response, streamable, refusedAuthorization: refused };
  }

  function logged(log: CallLog, code?: number): CallOutcome {
    logCall(log, code);
    return { kind: 'none' };
  }

  function logCall(log: CallLog, code?: number, extra?: Record<string, unknown>): void {
    const elapsedMs = performance.now() - log.started;
    metrics?.callEnded(version, log.binding, log.methodLabel, code, elapsedMs / 1000);
    endCall(log.span, code, log.binding === 'jsonrpc');
    if (log.ownSpan) log.span!.end();
    logger.info(
      {
        principal: log.principal,
        method: log.method || undefined,
        rpcId: log.rpcId,
        taskId: log.taskId,
        durationMs: Math.round(elapsedMs * 1000) / 1000,
        outcome: code === undefined ? 'ok' : 'error',
        code,
        ...extra,
      },
      'a2a call',
    );
  }
}

export function errorResponse(id: JSONRPCId, error: A2AError): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: error.toJSON() };
}

/** The id of a request that failed the envelope check, when it has a usable one. */
export function idOf(request: unknown): JSONRPCId {
  const id = (request as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

const TASK_ID_ONLY: readonly string[] = ['/id'];

/**
 * The issues of the ids at `paths` in valid params (JSON Pointers, `*` standing for every item of
 * an array): each string there is held to the kit's id rules (`idIssues`). What is not a string
 * is the schema's to judge. Runs on every call: the paths are split once per list (the methods'
 * lists are constants), and a call with nothing to say allocates nothing.
 */
function idIssuesIn(params: unknown, paths: readonly string[]): readonly ValidationIssue[] {
  let segmentLists = SEGMENTS_OF.get(paths);
  if (segmentLists === undefined) SEGMENTS_OF.set(paths, (segmentLists = paths.map((path) => path.split('/').slice(1))));
  let found: ValidationIssue[] | undefined;
  for (const segments of segmentLists) found = visitIds(params, segments, 0, '', found);
  return found ?? NO_ISSUES;
}

/** Each list of id paths, split into segments. */
const SEGMENTS_OF = new WeakMap<readonly string[], readonly (readonly string[])[]>();
const NO_ISSUES: readonly ValidationIssue[] = Object.freeze([]);

/** `found` with the issues of the ids below `value` added (a new list when there was none). */
function visitIds(
  value: unknown,
  segments: readonly string[],
  depth: number,
  at: string,
  found: ValidationIssue[] | undefined,
): ValidationIssue[] | undefined {
  if (depth === segments.length) {
    if (typeof value !== 'string') return found;
    const issues = idIssues(value, at);
    return issues.length === 0 ? found : [...(found ?? []), ...issues];
  }
  if (value === null || typeof value !== 'object') return found;
  const segment = segments[depth]!;
  if (segment === '*') {
    if (!Array.isArray(value)) return found;
    for (let i = 0; i < value.length; i++) found = visitIds(value[i], segments, depth + 1, `${at}/${i}`, found);
    return found;
  }
  if (!Object.hasOwn(value, segment)) return found;
  return visitIds((value as Record<string, unknown>)[segment], segments, depth + 1, `${at}/${segment}`, found);
}

/** Where most methods name their task: `params.id`. */
const idOfTask = taskIdAt('id');
