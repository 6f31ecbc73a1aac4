// Traces with the OpenTelemetry API only: until the application registers an SDK, every span here
// is the API's no-op one, and what a call costs is a few calls that return at once. With an SDK,
// a call is a server span joined to the caller's trace (W3C traceparent), its turn, its stream,
// the Redis store's commands and each webhook delivery are its children, and the webhook request
// carries the trace on.
//
// Attributes name what a call is (version, method, task id, outcome code), never what it says:
// no message content, no credential, no principal, no webhook token or query string.
import { headerOf, type EdgeRequest, type EdgeResponse } from '../edge/exchange.js';
import { ErrorCode } from 'a2a-types';
import { nextTurn } from '../edge/runtime.js';
import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

const tracer = trace.getTracer('a2a-express');

/** Attribute names of our own, beside the semantic conventions' (which have none for A2A). */
export const A2A_ATTRIBUTES = {
  protocolVersion: 'a2a.protocol.version',
  binding: 'a2a.binding',
  taskId: 'a2a.task.id',
  turn: 'a2a.turn',
  state: 'a2a.task.state',
  outcome: 'a2a.outcome',
  errorCode: 'a2a.error.code',
  streamEvents: 'a2a.stream.events',
  streamEnd: 'a2a.stream.end',
  pushAttempts: 'a2a.push.attempts',
} as const;

/**
 * Starts the server span of one HTTP request to an A2A endpoint, joined to the trace its
 * `traceparent` names, and ends it when the response is over. `run` goes on inside the span's
 * context, so that everything the call starts (the handler's turn, its own HTTP calls) is its
 * child. The span is named after the route until the call's method is known.
 */
export function traceRequest<T>(req: EdgeRequest, res: EdgeResponse, route: string, attributes: Attributes, run: (span: Span) => T): T {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  // `attributes` is the endpoint's, made once; what is of this request is added only when an SDK records it.
  const span = tracer.startSpan(`${req.method} ${route}`, { kind: SpanKind.SERVER, attributes }, parent);
  if (span.isRecording()) {
    span.setAttributes(requestAttributes(req, route));
    res.onFinish((status) => {
      // Ended after the response's other close listeners: a stream's own sets the call's outcome.
      nextTurn(() => {
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
    });
  }
  // Without an SDK the span is a no-op with no trace: nothing to carry in the context.
  if (!trace.isSpanContextValid(span.spanContext())) return run(span);
  return context.with(trace.setSpan(parent, span), run, undefined, span);
}

/**
 * How one gRPC method's calls are traced: each call's server span, joined to the caller's trace
 * from its metadata (`traceparent`, as gRPC's OpenTelemetry propagation carries it), active while
 * `run` runs; `run` ends it with the call's gRPC status code (the function it is given) once the
 * call is over. The span's name and attributes are made once for the method, not for each call.
 */
export function grpcCallTracer(
  service: string,
  method: string,
  attributes: Attributes,
): <T>(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  run: (span: Span, end: (statusCode: number) => void) => T,
) => T {
  const name = `${service}/${method}`;
  const options = {
    kind: SpanKind.SERVER,
    attributes: { ...attributes, 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
  };
  return (headers, run) => {
    const parent = propagation.extract(ROOT_CONTEXT, headers);
    const span = tracer.startSpan(name, options, parent);
    // Without an SDK the span is a no-op with no trace: nothing to end, nothing to carry in the context.
    if (!trace.isSpanContextValid(span.spanContext())) return run(span, ignoreStatus);
    let ended = false;
    const end = (statusCode: number) => {
      if (ended || !span.isRecording()) return;
      ended = true;
      span.setAttribute('rpc.grpc.status_code', statusCode);
      // gRPC's server-side errors: UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS.
      if (GRPC_SERVER_ERRORS.has(statusCode)) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    return context.with(trace.setSpan(parent, span), () => run(span, end));
  };
}

const GRPC_SERVER_ERRORS = new Set([2, 4, 12, 13, 14, 15]);
const ignoreStatus = (_statusCode: number): void => {};

/** The HTTP attributes of a server span (semantic conventions). */
function requestAttributes(req: EdgeRequest, route: string): Attributes {
  const { traced } = req;
  return {
    'http.request.method': req.method,
    'http.route': route,
    'url.path': traced.fullPath,
    'url.scheme': traced.scheme,
    'network.protocol.version': traced.httpVersion,
    'client.address': traced.peerAddress,
    'user_agent.original': headerOf(req, 'user-agent'),
  };
}

/** What a server span learns once the call is read: its method (one of the version's, or `other`). */
export function nameCall(span: Span | undefined, method: string, rpc: boolean): void {
  if (!span?.isRecording()) return;
  span.updateName(method);
  span.setAttribute('rpc.method', method);
  if (rpc) {
    span.setAttribute('rpc.system', 'jsonrpc');
    span.setAttribute('rpc.jsonrpc.version', '2.0');
  }
}

/** The task a call is about, once its id has passed the id rules. */
export function callTask(span: Span | undefined, taskId: string): void {
  if (span?.isRecording()) span.setAttribute(A2A_ATTRIBUTES.taskId, taskId);
}

/** A call's outcome on its span: `ok`, or the error code sent (an internal error marks the span failed). */
export function endCall(span: Span | undefined, code: number | undefined, rpc: boolean): void {
  if (!span?.isRecording()) return;
  span.setAttribute(A2A_ATTRIBUTES.outcome, code === undefined ? 'ok' : 'error');
  if (code === undefined) return;
  span.setAttribute(A2A_ATTRIBUTES.errorCode, code);
  if (rpc) span.setAttribute('rpc.jsonrpc.error_code', code);
  if (code === ErrorCode.InternalError) span.setStatus({ code: SpanStatusCode.ERROR, message: 'internal error' });
}

/** A child span of the active context (a call's, or a turn's), of kind INTERNAL unless said. */
export function startChildSpan(name: string, attributes: Attributes, kind: SpanKind = SpanKind.INTERNAL, parent?: Context): Span {
  return tracer.startSpan(name, { kind, attributes }, parent ?? context.active());
}

/**
 * A child span only when there is a recording parent: for work done both inside calls and by
 * the process on its own (a Redis command of a lease renewal), which would otherwise fill
 * traces of its own.
 */
export function startSpanUnderCall(name: string, attributes: Attributes, kind: SpanKind): Span | undefined {
  const active = context.active();
  if (!trace.getSpan(active)?.isRecording()) return undefined;
  return tracer.startSpan(name, { kind, attributes }, active);
}

/** Runs `run` with `span` as the active span. */
export function withSpan<T>(span: Span, run: () => T): T {
  if (!trace.isSpanContextValid(span.spanContext())) return run();
  return context.with(trace.setSpan(context.active(), span), run);
}

/** The active context, to start spans under it later (work queued now and done after). */
export function currentContext(): Context {
  return context.active();
}

/**
 * The W3C `traceparent` of the active span, to be kept with work that another process takes up
 * (a queued turn): undefined when no span is recording a valid trace.
 */
export function activeTraceparent(): string | undefined {
  const span = trace.getSpanContext(context.active());
  return span && trace.isSpanContextValid(span) ? traceparentOf(span) : undefined;
}

/** A context whose (remote) parent is the span a {@link activeTraceparent} named; the root context for anything else. */
export function contextOfTraceparent(traceparent: string): Context {
  const [, traceId, spanId, flags] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(traceparent) ?? [];
  if (!traceId || !spanId || !flags) return ROOT_CONTEXT;
  const parent = { traceId, spanId, traceFlags: Number.parseInt(flags, 16), isRemote: true };
  return trace.isSpanContextValid(parent) ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
}

function traceparentOf(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * The trace headers of a request that crosses a trust boundary (a webhook whose URL a client
 * chose): the W3C `traceparent` of `ctx`'s span, so that the receiver can join the trace, and
 * nothing else of what the caller sent: no `tracestate` (its vendors' data), and of its W3C
 * `baggage` (user ids, tenants a gateway adds) only the keys in `baggageKeys`, as the Baggage
 * spec warns against baggage leaving the system it was meant for.
 */
export function injectBoundaryTraceContext(ctx: Context, headers: Record<string, string>, baggageKeys: ReadonlySet<string>): void {
  const span = trace.getSpanContext(ctx);
  // Propagation off (no SDK registered): no trace to join, as with the SDK's own propagators.
  if (!span || !trace.isSpanContextValid(span) || propagation.fields().length === 0) return;
  headers.traceparent = traceparentOf(span);
  if (baggageKeys.size === 0) return;
  const passed = (propagation.getBaggage(ctx)?.getAllEntries() ?? [])
    .filter(([key]) => baggageKeys.has(key))
    .map(([key, entry]) => `${encodeURIComponent(key)}=${encodeURIComponent(entry.value)}`);
  if (passed.length > 0) headers.baggage = passed.join(',');
}

/** Records a failure on a span, without the error's message when it may carry a user's data. */
export function failSpan(span: Span, message: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

export { SpanKind, trace, type Attributes, type Context, type Span };
