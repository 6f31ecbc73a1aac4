// One call of a version's method, whatever binding carries it: the method found, its capability
// and params checked, its ids held to the kit's rules, the call put into the core's operation
// and run, the answer put back into the version's words, and one log line, one metric and one
// span for it. An error stays an A2AError by its reason: JSON-RPC (json-rpc.ts), HTTP+JSON
// (rest.ts) and gRPC (grpc.ts) are codecs around it, each writing it with its own table; none
// builds another's envelope.
import { tenantOfParams, tenantOwner } from '../core/tenants.js';
import { CallExtensions, type ExtensionsEcho, NO_EXTENSIONS, requestedExtensions } from '../core/extensions.js';
import { A2AError, type JSONRPCId, type ValidationIssue } from 'a2a-types';
import type { Logger } from 'pino';
import type { AgentOperations } from '../core/agent-operations.js';
import type { CallContext, CallRequest } from '../core/call.js';
import type { TaskEventStream } from '../core/event-feed.js';
import { carriedBy, taskIdAt, type Method } from '../core/method.js';
import type { Operation } from '../core/operations.js';
import type { ProtocolVersion } from '../protocol/version.js';
import { idIssues } from '../model/ids.js';
import type { A2AMetrics, BindingName } from '../telemetry/metrics.js';
import { callTask, endCall, nameCall, startChildSpan, withSpan, type Span } from '../telemetry/tracing.js';

/**
 * A request as its binding hands it to the runner: what the core is told of it (`CallRequest`),
 * and what the binding adds for the call's log line, metric and span, and for the extensions the
 * agent activates.
 */
export interface RequestContext extends CallRequest {
  /** The `Last-Event-ID` the client sent, as it came. */
  readonly lastEventId: string | undefined;
  /** What the call came over, for its metrics and spans. Default `jsonrpc`. */
  readonly binding?: BindingName;
  /** The request's server span: a call names it; a call of a batch gets a child of it. */
  readonly span?: Span;
  /** Where the binding names the extensions the agent activated in its response (the header, or gRPC metadata). */
  readonly extensionsEcho?: ExtensionsEcho | undefined;
}

/** How one method call went. */
export type MethodOutcome =
  | { readonly kind: 'result'; readonly result: unknown }
  | {
      readonly kind: 'stream';
      readonly events: TaskEventStream;
      /** Logs the call, once the stream is over. */
      finished(details?: Record<string, unknown>): void;
    }
  | {
      readonly kind: 'error';
      /**
       * By its reason, not yet in the version's words: the binding writes it, each with its own
       * code or status for the reason (an authorization refusal is HTTP 403 on every version).
       */
      readonly error: A2AError;
      /** The method streams its answer: a version may send its error as a stream (`streamsErrorsOfStreamingMethods`). */
      readonly ofStreamingMethod: boolean;
    };

/** What the runner needs of a protocol version: its methods and how its errors look. */
type MethodTable = Pick<ProtocolVersion, 'name' | 'methods' | 'wireError' | 'methodNotFound'>;

interface MethodRunnerSettings {
  readonly version: MethodTable;
  readonly operations: AgentOperations;
  readonly logger: Logger;
  readonly metrics?: A2AMetrics;
}

/** Where a method call sits in its request. */
interface CallPlace {
  /** The JSON-RPC id, for the log line. */
  readonly rpcId?: JSONRPCId;
  /** One call of a batch: it gets a span of its own, and may not stream. */
  readonly inBatch?: boolean;
}

/** A call refused on its way in (call-entry.ts): when it came, the step that refused it, and what its log line adds. */
interface RefusedPlace extends CallPlace {
  readonly started?: number;
  readonly refused?: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface MethodRunner {
  run(method: string, params: unknown, context: RequestContext, place?: CallPlace): Promise<MethodOutcome>;
  /**
   * Logs, counts and traces a call refused before it named a method (on its way in, or a bad
   * envelope), with the code its version gives it.
   */
  refuse(error: A2AError, context: RequestContext, place?: RefusedPlace): void;
}

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

/** The runner's settings, with the version's defaults filled in. */
interface Runner extends MethodRunnerSettings {
  readonly protocol: string;
  readonly methodNotFound: (method: string) => A2AError;
  readonly wireError: (error: A2AError) => A2AError;
}

export function createMethodRunner(settings: MethodRunnerSettings): MethodRunner {
  const { version } = settings;
  const runner: Runner = {
    ...settings,
    protocol: version.name,
    methodNotFound: version.methodNotFound ?? A2AError.methodNotFound,
    wireError: version.wireError ?? ((error: A2AError) => error),
  };
  return {
    run(method, params, context, place = {}) {
      const log = startLog(context, place);
      // What the call starts (its turn) is a child of the call's own span.
      return log.ownSpan
        ? withSpan(log.span!, () => runLogged(runner, log, method, params, context, place))
        : runLogged(runner, log, method, params, context, place);
    },
    refuse(error, context, place = {}) {
      const log = startLog(context, place);
      if (place.started !== undefined) log.started = place.started;
      const extra = place.refused === undefined ? undefined : { refused: place.refused, ...place.details };
      logCall(runner, log, runner.wireError(error).code, extra, place.refused === undefined ? 'a2a call' : 'a2a call refused');
    },
  };
}

function startLog(context: RequestContext, place: CallPlace): CallLog {
  const ownSpan = place.inBatch === true && context.span !== undefined && context.span.isRecording();
  return {
    principal: context.principal?.id,
    method: '',
    rpcId: place.rpcId,
    taskId: undefined,
    started: performance.now(),
    binding: context.binding ?? 'jsonrpc',
    methodLabel: 'other',
    span: ownSpan ? startChildSpan('jsonrpc batch item', {}) : context.span,
    ownSpan,
  };
}

async function runLogged(
  runner: Runner,
  log: CallLog,
  name: string,
  params: unknown,
  context: RequestContext,
  place: CallPlace,
): Promise<MethodOutcome> {
  const { methods } = runner.version;
  log.method = name;
  const method: Method | undefined = Object.hasOwn(methods, name) && carriedBy(methods[name]!, log.binding) ? methods[name] : undefined;
  log.taskId = (method?.taskIdOf ?? idOfTask)(params);
  if (method) log.methodLabel = name;
  nameCall(log.span, log.methodLabel, log.binding === 'jsonrpc');
  try {
    if (!method) throw runner.methodNotFound(name);
    const operation = checkedOperation(runner, method, name, params, place);
    if (log.taskId !== undefined) callTask(log.span, log.taskId);
    const result = await runner.operations.call(
      operation.name,
      operation.params,
      callContextOf(runner, log, method, name, params, context),
    );
    if (method.kind === 'streaming') {
      return { kind: 'stream', events: result as TaskEventStream, finished: (details) => logCall(runner, log, undefined, details) };
    }
    const answer = method.answer(result, params);
    // The caller is gone: the answer is made (the task is read) but reaches no one; the log says so.
    logCall(runner, log, undefined, context.caller?.gone ? { outcome: 'abandoned' } : undefined);
    return { kind: 'result', result: answer };
  } catch (error) {
    const a2aError = toA2AError(runner, error, log);
    // Logged and counted with the code the client reads.
    logCall(runner, log, runner.wireError(a2aError).code);
    return { kind: 'error', error: a2aError, ofStreamingMethod: method?.kind === 'streaming' };
  }
}

/**
 * The call as the core's operation, once the agent serves the method's capability, the method
 * can be called where it is (a streaming one not in a batch), its params are valid and its ids
 * keep the kit's rules; else the A2AError that says which.
 */
function checkedOperation(runner: Runner, method: Method, name: string, params: unknown, place: CallPlace): Operation {
  const refusal = runner.operations.refusal(method.operation);
  if (refusal) throw refusal;
  if (method.kind === 'streaming' && place.inBatch) {
    throw A2AError.unsupportedOperation(`${name} streams its answer and cannot be part of a batch`);
  }
  if (!method.validateParams(params)) throw A2AError.invalidParams(method.validateParams.issues);
  const badIds = idIssuesIn(params, method.idPaths ?? TASK_ID_ONLY);
  if (badIds.length > 0) throw A2AError.invalidParams(badIds);
  return method.toOperation(params);
}

/** What the core is told of the call: the request's context, how it came, and the method's rules and view. */
function callContextOf(runner: Runner, log: CallLog, method: Method, name: string, params: unknown, context: RequestContext): CallContext {
  // Tenants are 1.0's: its requests name theirs in `tenant` (HTTP+JSON: in the path, put there).
  const tenant = runner.protocol === '1.0' ? tenantOfParams(params) : undefined;
  // The request's fields are named rather than spread (`...context`): a spread object with the
  // call's own fields added costs the JSON-RPC path about 5% of its requests a second (measured
  // with bench/shipped-ab.mjs), and would carry the binding's span and echo into the core.
  return {
    principal: context.principal,
    headers: context.headers,
    lastEventId: context.lastEventId,
    clientAddress: context.clientAddress,
    extendedCard: context.extendedCard,
    caller: context.caller,
    origin: { protocol: runner.protocol, binding: log.binding, method: name, params },
    turnRules: method.turnRules,
    view: method.view?.(params),
    extensions: extensionsOf(context, runner.protocol),
    tenant,
    // In a tenant, what the call makes is the tenant's with the principal.
    owner: tenant === undefined ? context.principal : tenantOwner(tenant, context.principal),
  };
}

/** The call's extensions: most calls ask for none, and share one object for it. */
function extensionsOf(context: RequestContext, protocol: string): CallExtensions {
  const requested = requestedExtensions(context.headers, protocol);
  return requested.length === 0 ? NO_EXTENSIONS : new CallExtensions(requested, context.extensionsEcho);
}

function toA2AError(runner: Runner, error: unknown, log: CallLog): A2AError {
  if (error instanceof A2AError) return error;
  runner.logger.error({ err: error, method: log.method, taskId: log.taskId }, 'internal error');
  return A2AError.internalError();
}

function logCall(runner: Runner, log: CallLog, code?: number, extra?: Record<string, unknown>, message = 'a2a call'): void {
  const elapsedMs = performance.now() - log.started;
  runner.metrics?.callEnded(runner.protocol, log.binding, log.methodLabel, code, elapsedMs / 1000);
  endCall(log.span, code, log.binding === 'jsonrpc');
  if (log.ownSpan) log.span!.end();
  runner.logger.info(
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
    message,
  );
}

const TASK_ID_ONLY: readonly string[] = ['/id'];

/** Where most methods name their task: `params.id`. */
const idOfTask = taskIdAt('id');

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
