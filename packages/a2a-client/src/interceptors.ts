// Interceptors: code of the caller's that every call of every client goes through, whatever its
// version and binding (the card's GET, a JSON-RPC or HTTP+JSON request, a gRPC call, a stream).
// One shape for all of them, so that a header, a log line, a metric or a refusal is written once.
// The built-in tracing one is an interceptor too: a client span per call, and the W3C trace
// context in the call's headers (HTTP) or metadata (gRPC). Nothing here may need Node: this is
// on the path of the client's main entry, which a web page bundles.
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** The A2A version a client speaks. */
export type ProtocolVersion = '0.1.0' | '0.3' | '1.0';

/** How a call travels: a binding, or `HTTP` for the card's GET. */
export type CallBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | 'HTTP';

/** One call as interceptors see it. `headers` is what will be sent, and theirs to change. */
export interface InterceptedCall {
  /**
   * What is called: the JSON-RPC method (`tasks/send`, `message/stream`), the 1.0 operation
   * (`SendMessage`, over every 1.0 binding), or `agent card` for the card's GET.
   */
  readonly method: string;
  readonly protocolVersion: ProtocolVersion;
  readonly binding: CallBinding;
  /**
   * Where it goes: the request's URL, or the `host:port` dialled over gRPC. `before` may change
   * it (an API key in the query, say): what is here when the last `before` returns is called.
   */
  url: string;
  /** The HTTP verb; absent over gRPC. */
  readonly httpMethod?: string;
  /** The request's parameters (the JSON-RPC params, the HTTP+JSON body or the gRPC request, in JSON form). */
  readonly params: unknown;
  /** Whether the answer is a stream of events. */
  readonly streaming: boolean;
  /**
   * The headers sent (over gRPC: the metadata), the client's and the call's. Set, change or
   * delete entries in `before`; what is here when the last `before` returns is what is sent,
   * on every request of the call (a stream's resumptions too).
   */
  headers: Record<string, string>;
  /** The caller's signal, when the call was given one. */
  readonly signal?: AbortSignal;
}

/** How a unary call ended. */
export interface CallOutcome {
  /** The answer (as it came, checked as `validateResponses` says), when the call succeeded. */
  readonly result?: unknown;
  /** Why it failed (a client error, or what an interceptor threw), when it did. */
  readonly error?: unknown;
  /** The HTTP status, or over gRPC the status code, when an answer came at all. */
  readonly status?: number;
  /** From the first `before` to the answer's end, ms. */
  readonly durationMs: number;
}

/** How a stream ended. */
export interface StreamOutcome {
  /** Why it failed, when it did. */
  readonly error?: unknown;
  /** The caller stopped reading before the stream's end (a `break`, a `return`). */
  readonly stopped?: boolean;
  /** The events it delivered. */
  readonly events: number;
  /** The HTTP status, or over gRPC the status code, when the stream was answered at all. */
  readonly status?: number;
  /** From the first `before` to the stream's end, ms. */
  readonly durationMs: number;
}

/**
 * Hooks on every call. All are optional; each may be async. `before` runs in the order the
 * interceptors are given, the others in the reverse order (the first interceptor wraps the rest).
 */
export interface Interceptor {
  /** Before the call is sent: change `call.headers`, or throw to refuse the call (nothing is sent, the caller gets what you threw). */
  before?(call: InterceptedCall): void | Promise<void>;
  /**
   * The sending itself, run inside `send` (which resolves when the answer, or a stream's opening,
   * is in): for code that must wrap it, an async context to enter, say. Most interceptors need not.
   */
  around?<T>(call: InterceptedCall, send: () => Promise<T>): Promise<T>;
  /** After a unary call: its answer or its error, its status, how long it took. A throw here fails the call with it. */
  after?(call: InterceptedCall, outcome: CallOutcome): void | Promise<void>;
  /** Each event of a stream, as it arrives (before the caller gets it). A throw here ends the stream with it. */
  event?(call: InterceptedCall, event: unknown): void | Promise<void>;
  /** A stream's end: finished, failed, or stopped by the caller. */
  end?(call: InterceptedCall, outcome: StreamOutcome): void | Promise<void>;
}

/** The status an answer came with, as the transports tell it, for outcomes and spans. */
export interface Answered {
  status?: number;
}

const now = () => performance.now();

const answers = new WeakMap<InterceptedCall, Answered>();

/** The status the call's last attempt was answered with, for the client's own interceptors (credentials, retries), which resend a call. */
export function answerOf(call: InterceptedCall): Answered | undefined {
  return answers.get(call);
}

/**
 * A unary call through the interceptors: `before` each, then `send` (given the headers they left,
 * inside each `around`), then `after` each, with the answer or error. `answered` is filled by the
 * transport with the status it got.
 */
export async function interceptUnary<T>(
  interceptors: readonly Interceptor[],
  call: InterceptedCall,
  send: (call: InterceptedCall, answered: Answered) => Promise<T>,
): Promise<T> {
  const started = now();
  const answered: Answered = {};
  answers.set(call, answered);
  let result: T;
  try {
    for (const interceptor of interceptors) await interceptor.before?.(call);
    result = await wrapped(interceptors, call, () => send(call, answered));
  } catch (error) {
    await afterAll(interceptors, call, { error, durationMs: now() - started, ...statusOf(answered) });
    throw error;
  }
  await afterAll(interceptors, call, { result, durationMs: now() - started, ...statusOf(answered) });
  return result;
}

/**
 * A stream through the interceptors: `before` each, then `open` (inside each `around`, until the
 * stream is opened), each event to `event`, and the end to `end` however it came.
 */
export async function* interceptStream<T>(
  interceptors: readonly Interceptor[],
  call: InterceptedCall,
  open: (call: InterceptedCall, answered: Answered) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  const started = now();
  const answered: Answered = {};
  answers.set(call, answered);
  let events = 0;
  let ended = false;
  const end = async (outcome: { error?: unknown; stopped?: boolean }) => {
    ended = true;
    const told = { ...outcome, events, durationMs: now() - started, ...statusOf(answered) };
    for (const interceptor of [...interceptors].reverse()) await interceptor.end?.(call, told);
  };
  let stream: AsyncGenerator<T> | undefined;
  let first: IteratorResult<T>;
  try {
    for (const interceptor of interceptors) await interceptor.before?.(call);
    // The request leaves on the first read: that read is the sending `around` wraps, and a
    // sending done again (a resend with fresh credentials) opens the stream again.
    first = await wrapped(interceptors, call, () => {
      stream = open(call, answered);
      return stream.next();
    });
  } catch (error) {
    await end({ error });
    throw error;
  }
  try {
    for (let next = first; !next.done; next = await stream!.next()) {
      for (const interceptor of [...interceptors].reverse()) await interceptor.event?.(call, next.value);
      events++;
      yield next.value;
    }
    await end({});
  } catch (error) {
    if (!ended) await end({ error });
    throw error;
  } finally {
    if (!ended) {
      await stream?.return(undefined as never).catch(() => undefined);
      await end({ stopped: true });
    }
  }
}

function wrapped<T>(interceptors: readonly Interceptor[], call: InterceptedCall, send: () => Promise<T>): Promise<T> {
  let run = send;
  for (const interceptor of [...interceptors].reverse()) {
    if (!interceptor.around) continue;
    const inner = run;
    run = () => interceptor.around!(call, inner);
  }
  return run();
}

async function afterAll(interceptors: readonly Interceptor[], call: InterceptedCall, outcome: CallOutcome): Promise<void> {
  for (const interceptor of [...interceptors].reverse()) await interceptor.after?.(call, outcome);
}

const statusOf = (answered: Answered) => (answered.status !== undefined ? { status: answered.status } : {});

const tracer = trace.getTracer('a2a-client');

/** Whether an instrumentation of fetch listens on undici's channel: Node's, asked without importing it (a page has none). */
function fetchIsInstrumented(): boolean {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const channels = getBuiltin?.('node:diagnostics_channel') as { hasSubscribers?: (name: string) => boolean } | undefined;
  return channels?.hasSubscribers?.('undici:request:create') === true;
}

/**
 * The built-in tracing interceptor: with an OpenTelemetry SDK registered, each call is a CLIENT
 * span (named after its method, or its verb and route over HTTP+JSON), the active span while it
 * is sent, and its W3C `traceparent` (and `tracestate`) goes in the call's headers or gRPC
 * metadata, so the agent's spans join the caller's trace. Without an SDK it does nothing.
 */
export function tracingInterceptor(): Interceptor {
  const spans = new WeakMap<InterceptedCall, Span>();
  const finish = (call: InterceptedCall, outcome: { error?: unknown; status?: number }) => {
    const span = spans.get(call);
    if (!span) return;
    spans.delete(call);
    if (span.isRecording() && outcome.status !== undefined)
      span.setAttribute(call.binding === 'GRPC' ? 'rpc.grpc.status_code' : 'http.response.status_code', outcome.status);
    const failed = outcome.error !== undefined || (call.binding !== 'GRPC' && (outcome.status ?? 0) >= 400);
    if (failed)
      span.setStatus({
        code: SpanStatusCode.ERROR,
        ...(outcome.error instanceof Error ? { message: outcome.error.message } : {}),
      });
    span.end();
  };
  return {
    before(call) {
      const span = tracer.startSpan(spanName(call), { kind: SpanKind.CLIENT });
      spans.set(call, span);
      if (span.isRecording()) span.setAttributes(spanAttributes(call));
      // An instrumentation of fetch writes traceparent itself, for its own span under this one:
      // written here too, the agent would get two. A span not sampled still carries its trace
      // and the decision, so that the agent keeps both.
      if (!trace.isSpanContextValid(span.spanContext())) return;
      if (call.binding !== 'GRPC' && fetchIsInstrumented()) return;
      propagation.inject(trace.setSpan(context.active(), span), call.headers);
    },
    around(call, send) {
      const span = spans.get(call);
      return span ? context.with(trace.setSpan(context.active(), span), send) : send();
    },
    after: finish,
    end: finish,
  };
}

function spanName(call: InterceptedCall): string {
  if (call.binding === 'HTTP') return `GET ${call.method}`;
  if (call.binding === 'HTTP+JSON') return `${call.httpMethod} ${routeOf(call.url)}`;
  return call.method;
}

function spanAttributes(call: InterceptedCall): Record<string, string> {
  if (call.binding === 'GRPC') return { 'rpc.system': 'grpc', 'rpc.method': call.method, 'server.address': call.url };
  return { 'http.request.method': call.httpMethod ?? 'GET', 'url.full': routeUrl(call.url) };
}

/** The path of a URL with its ids left out, for a span name that does not grow with every task. */
export function routeOf(url: string): string {
  const path = new URL(url).pathname;
  return path.replace(/\/tasks\/[^/:]+/, '/tasks/{id}').replace(/\/pushNotificationConfigs\/[^/:]+/, '/pushNotificationConfigs/{id}');
}

/** A URL without its query (which may carry a credential) and with its ids left out. */
function routeUrl(url: string): string {
  return `${new URL(url).origin}${routeOf(url)}`;
}
