// JSON-RPC 2.0 over HTTP as both protocol versions' clients use it: one request and its answer,
// or a stream of answers over SSE that resumes with `Last-Event-ID` when its connection drops,
// each answer held to the schema as `validateResponses` says. The clients (client.ts for A2A
// 0.1.0, client-03.ts for 0.3) say which methods, which schema and which event ends a stream.
//
// Nothing here may need Node: this is on the path of the client's main entry, which a web page
// bundles (the lint holds it to that: .dependency-cruiser-fetch-path.cjs, no-node-on-the-client-path).
import { formatIssues, type ValidationIssue, type Validator } from 'a2a-types';
import { BodyTooLarge, MAX_CARD_BYTES, readBounded } from './bounded-body.js';
import { A2AClientError, HttpError, InvalidResponseError, JsonRpcError, NetworkError, NotAnAgentError, TimeoutError } from './errors.js';
import {
  type Answered,
  type Interceptor,
  type InterceptedCall,
  interceptStream,
  interceptUnary,
  type ProtocolVersion,
  tracingInterceptor,
} from './interceptors.js';
import { readSse } from './sse.js';
import { type Credentials, credentialsInterceptor, type HoldsCertificate, mutualTlsInterceptor } from './credentials.js';
import { pause, type RetryOptions, retryInterceptor } from './retries.js';

export interface A2AClientOptions {
  /** Headers sent with every request (authentication, say). */
  headers?: Record<string, string>;
  /** Time allowed for an answer (for a stream: for its first byte), ms. Default 30,000. */
  timeoutMs?: number;
  /**
   * How answers are checked against the A2A schema (the specification's rules):
   * - `'strict'` (default; also `true`): an answer that departs from them is an
   *   InvalidResponseError, so what the typed methods return is what their types say;
   * - `'warn'`: the answer is returned as it came, and each departure is given to `onDeparture`
   *   (for servers you do not control; the `a2a` CLI works this way unless `--strict`);
   * - `'off'` (also `false`): not checked.
   * Answers that are not JSON-RPC at all, or that answer another request, are errors in every mode.
   */
  validateResponses?: boolean | 'strict' | 'warn' | 'off';
  /** With `validateResponses: 'warn'`: told of every way an answer departs from the schema. */
  onDeparture?: (departure: Departure) => void;
  /** How often a dropped stream is resumed with `Last-Event-ID`. Default 3. */
  reconnectAttempts?: number;
  /**
   * The fetch every request goes through. Default: the global `fetch`. Give your own to route
   * requests through a proxy or to record them (the inspector's raw log does), or `tlsFetch()`
   * from `a2a-client/tls` for a CA of your own and a client certificate (mutual TLS, Node).
   */
  fetch?: typeof fetch;
  /**
   * Code of yours every call goes through, on every binding: see or change its headers (gRPC: its
   * metadata) or refuse it (`before`), see its answer or error and how long it took (`after`),
   * each event of a stream and its end (`event`, `end`). See Interceptor.
   */
  interceptors?: readonly Interceptor[];
  /**
   * The built-in tracing interceptor, first of all: with an OpenTelemetry SDK registered, each
   * call is a client span and carries its W3C `traceparent`. Default true; without an SDK it
   * records and adds nothing.
   */
  tracing?: boolean;
  /**
   * What the client holds to meet the card's security schemes, by their names in the card: a
   * string (an API key, put where the scheme says: header, query or cookie; or a bearer token),
   * `{ clientId, clientSecret, scopes? }` for an OAuth 2.0 client-credentials or OpenID Connect
   * scheme (the token fetched from the card's token URL or the provider's discovery document,
   * cached, fetched again 30 s before it expires), or a function; or one function for every
   * scheme. A call answered 401 (gRPC: UNAUTHENTICATED) is sent once more with fresh credentials.
   */
  credentials?: Credentials;
  /**
   * Retries of calls that are safe to send again: reads (the card, GetTask, ListTasks, push
   * config reads) after a connection error or a 5xx (gRPC: UNAVAILABLE). Default on: 2 retries,
   * 200 ms then doubled, at most 2 s. `false` turns them off. SendMessage only with
   * `{ sendMessage: true }`. See RetryOptions.
   */
  retry?: RetryOptions | boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Headers for this call, over the client's. */
  headers?: Record<string, string>;
}

/** An answer that departs from the A2A schema, as reported in `'warn'` mode. */
export interface Departure {
  /** What was checked: `agent card`, `tasks/cancel result`, `stream event`. */
  readonly what: string;
  /** Each way it departs (JSON Pointer, message), not only the first. */
  readonly issues: readonly ValidationIssue[];
}

/** How one kind of answer is checked: a validator, and every way a value departs (for `'warn'`). */
export interface Check {
  readonly validate: Validator<unknown>;
  readonly allIssues: (value: unknown) => ValidationIssue[];
  readonly nullable?: boolean;
}

/** One answer of a stream, with its SSE id (what `Last-Event-ID` resumes from). */
export interface StreamAnswer {
  id: string | undefined;
  result: unknown;
}

/** How one stream is read and resumed. */
export interface StreamPlan {
  readonly method: string;
  readonly params: unknown;
  /** Each `data:` message is held to this (the whole JSON-RPC response). */
  readonly check: Check;
  /** Whether this result ends the stream. */
  readonly isFinal: (result: unknown) => boolean;
  /** The call that picks the stream up again after a dropped connection (asked when it drops). */
  readonly resume: () => { readonly method: string; readonly params: unknown };
}

/** One HTTP+JSON operation (A2A 1.0 11): where it goes, what it sends, how its answer is read. */
export interface RestRequest {
  /** The operation's name, for interceptors (`SendMessage`, `GetTask`, …). */
  readonly method: string;
  readonly verb: string;
  readonly url: string;
  /** The JSON body; undefined sends none. */
  readonly body: unknown;
  /** The answer (each event, for a stream) is held to this. */
  readonly check: Check;
  /** An error answer's A2A error code, from its ErrorInfo reason and the HTTP status. */
  readonly codeOf: (reason: string | undefined, status: number) => number;
  /** The answer (each event, for a stream) in the version's JSON, from the body as sent; checked after. Default: as sent. */
  readonly read?: (value: unknown) => unknown;
}

/** An HTTP+JSON stream, and the event that ends it. */
export interface RestStreamRequest extends RestRequest {
  readonly isFinal: (event: unknown) => boolean;
  /**
   * The request that picks a dropped stream up again, sent with `Last-Event-ID` (asked when it
   * drops; undefined when it cannot be resumed yet). Without it a dropped stream fails.
   */
  readonly resume?: () => { readonly verb: string; readonly url: string; readonly body: unknown } | undefined;
}

let nextRequestId = 1;

/** The `Prefer` token for SSE event ids, as a2a-express names it. */
const EVENT_IDS_PREFERENCE = 'sse-event-ids';

export class JsonRpcHttp {
  private readonly options: {
    headers: Record<string, string>;
    timeoutMs: number;
    reconnectAttempts: number;
    validateResponses: 'strict' | 'warn' | 'off';
    onDeparture: ((departure: Departure) => void) | undefined;
    fetch: typeof fetch;
    interceptors: readonly Interceptor[];
  };

  /**
   * @param card the client's card, for the credentials interceptor (which reads its security schemes).
   */
  constructor(
    options: A2AClientOptions & { grpc?: { readonly clientCertificate?: boolean } },
    readonly protocolVersion: ProtocolVersion,
    card: () => Promise<unknown> = async () => undefined,
  ) {
    const fetchFn: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
    const timeoutMs = options.timeoutMs ?? 30_000;
    const retry = retryInterceptor(options.retry);
    // A client certificate is the transport's: a2a-client/tls's fetch, or grpcTransport's `tls.cert`, says it has one.
    const holdsCertificate: HoldsCertificate = (binding) =>
      binding === 'GRPC'
        ? options.grpc?.clientCertificate === true
        : (options.fetch as { clientCertificate?: unknown } | undefined)?.clientCertificate === true;
    const credentials = options.credentials && credentialsInterceptor(options.credentials, card, fetchFn, timeoutMs, holdsCertificate);
    // 0.1.0 cards have no mutualTLS scheme, and a 0.1.0 client reads its card only when asked.
    const mutualTls = protocolVersion === '0.1.0' ? undefined : mutualTlsInterceptor(card, holdsCertificate);
    this.options = {
      headers: options.headers ?? {},
      timeoutMs: options.timeoutMs ?? 30_000,
      validateResponses: checkMode(options.validateResponses),
      onDeparture: options.onDeparture,
      reconnectAttempts: options.reconnectAttempts ?? 3,
      fetch: fetchFn,
      // Tracing outermost (one span per call, however often it is sent), then the retries,
      // which send again what the credentials interceptor signs each time, then the caller's.
      interceptors: [
        ...(options.tracing === false ? [] : [tracingInterceptor()]),
        ...(mutualTls ? [mutualTls] : []),
        ...(retry ? [retry] : []),
        ...(credentials ? [credentials] : []),
        ...(options.interceptors ?? []),
      ],
    };
  }

  /** The interceptors every call goes through, the built-in tracing one first. */
  get interceptors(): readonly Interceptor[] {
    return this.options.interceptors;
  }

  /** A call as interceptors see it, its headers the client's and the call's. */
  intercepted(
    fields: Omit<InterceptedCall, 'headers' | 'protocolVersion' | 'signal'>,
    call: CallOptions,
    headers: Record<string, string> = this.options.headers,
  ): InterceptedCall {
    return {
      ...fields,
      protocolVersion: this.protocolVersion,
      headers: { ...headers, ...call.headers },
      ...(call.signal ? { signal: call.signal } : {}),
    };
  }

  /** GETs a JSON document (an agent card), at most MAX_CARD_BYTES of it, and holds it to `check`. */
  async getJson(url: string, check: Check, what: string, call: CallOptions = {}): Promise<unknown> {
    const intercepted = this.intercepted(
      { method: what, binding: 'HTTP', url, httpMethod: 'GET', params: undefined, streaming: false },
      call,
    );
    return interceptUnary(this.options.interceptors, intercepted, async ({ headers }, answered) => {
      const { response, text, overBound } = await this.timed(url, { method: 'GET' }, headers, call, answered, async (response) => {
        const read = await readBounded(response.body, MAX_CARD_BYTES);
        if (read.error !== undefined) throw read.error;
        return { response, ...read };
      });
      if (overBound) throw new InvalidResponseError(new BodyTooLarge(`the ${what} at ${url}`, MAX_CARD_BYTES).message);
      if (!response.ok) throw httpError(response, text);
      const value = parseJson(text, `the ${what}`, response);
      this.hold(value, check, what);
      return value;
    });
  }

  /** One JSON-RPC call: its result, held to `check`. */
  async call(url: string, method: string, params: unknown, check: Check, call: CallOptions = {}): Promise<unknown> {
    const intercepted = this.intercepted({ method, binding: 'JSONRPC', url, httpMethod: 'POST', params, streaming: false }, call);
    return interceptUnary(this.options.interceptors, intercepted, async ({ headers, url: sentUrl }, answered) => {
      const id = nextRequestId++;
      const init = postInit({ jsonrpc: '2.0', id, method, params }, 'application/json');
      const { response, text } = await this.fetchText(sentUrl, init, headers, call, answered);
      const result = this.unwrap(readJson(response, text), id);
      if (!(check.nullable && result === null)) this.hold(result, check, `${method} result`);
      return result;
    });
  }

  /**
   * A streaming call: its results until the final one. A connection that drops before then is
   * resumed with `plan.resume` and `Last-Event-ID`, so no event is missed.
   */
  stream(url: string, plan: StreamPlan, lastEventId: string | undefined, call: CallOptions): AsyncGenerator<StreamAnswer> {
    const seed = lastEventId !== undefined ? { ...this.options.headers, 'Last-Event-ID': lastEventId } : this.options.headers;
    const intercepted = this.intercepted(
      { method: plan.method, binding: 'JSONRPC', url, httpMethod: 'POST', params: plan.params, streaming: true },
      call,
      seed,
    );
    return interceptStream(this.options.interceptors, intercepted, (sent, answered) =>
      this.resuming(
        { method: plan.method, params: plan.params },
        plan.resume,
        (request, headers) => this.oneStream(sent.url, request.method, request.params, plan.check, headers, call, answered),
        plan.isFinal,
        sent.headers,
        call,
      ),
    );
  }

  /**
   * The events of a stream that resumes: `exchange` is one HTTP exchange of it. When the
   * connection drops (a NetworkError) before the final event, `resumed()` says what to send
   * instead (undefined: it cannot be resumed), sent with the last event id seen as
   * `Last-Event-ID` after a backoff, at most `reconnectAttempts` times without an event between.
   */
  private async *resuming<R>(
    first: R,
    resumed: () => R | undefined,
    exchange: (request: R, headers: Record<string, string>) => AsyncIterable<StreamAnswer>,
    isFinal: (result: unknown) => boolean,
    headers: Record<string, string>,
    call: CallOptions,
  ): AsyncGenerator<StreamAnswer> {
    let attempt = 0;
    let lastSeen: string | undefined;
    let current = first;
    for (;;) {
      try {
        const sent = lastSeen !== undefined ? { ...headers, 'Last-Event-ID': lastSeen } : headers;
        for await (const answer of exchange(current, sent)) {
          lastSeen = answer.id ?? lastSeen;
          attempt = 0;
          yield answer;
          if (isFinal(answer.result)) return;
        }
        return; // the server ended the stream
      } catch (error) {
        const again = error instanceof NetworkError && !call.signal?.aborted ? resumed() : undefined;
        if (again === undefined || ++attempt > this.options.reconnectAttempts) throw error;
        await pause(100 * 2 ** (attempt - 1), call.signal);
        current = again;
      }
    }
  }

  private async *oneStream(
    url: string,
    method: string,
    params: unknown,
    check: Check,
    headers: Record<string, string>,
    call: CallOptions,
    answered: Answered,
  ): AsyncGenerator<StreamAnswer> {
    const id = nextRequestId++;
    // Ask for an id on every event (RFC 7240), so a dropped stream resumes where it broke. A kit
    // server sends ids only when asked: the protocol's reference clients cannot parse them.
    const init = postInit({ jsonrpc: '2.0', id, method, params }, 'text/event-stream', { prefer: EVENT_IDS_PREFERENCE });
    const response = await this.timed(url, init, headers, call, answered, async (r) => r);
    const type = response.headers.get('content-type') ?? '';
    if (type.startsWith('application/json')) {
      // Refused before streaming: a JSON-RPC error (or a server that does not stream).
      this.unwrap(readJson(response, await response.text()), id);
      throw new InvalidResponseError('expected an event stream, got a JSON result');
    }
    if (!response.ok) throw httpError(response, await response.text());
    if (!type.startsWith('text/event-stream')) {
      await response.body?.cancel();
      throw new InvalidResponseError(`expected text/event-stream, got ${type || 'no content type'}`);
    }
    try {
      for await (const sse of readSse(response.body!)) {
        const message = parseJson(sse.data, 'a stream event');
        const result = this.unwrap(message, id);
        this.hold(message, check, 'stream event');
        yield { id: sse.id, result };
      }
    } catch (error) {
      if (error instanceof A2AClientError) throw error;
      throw new NetworkError(`the stream broke: ${(error as Error).message}`, { cause: error });
    } finally {
      await response.body?.cancel().catch(() => undefined);
    }
  }

  /**
   * One HTTP+JSON call (A2A 1.0 11): its answer, held to `request.check`; an error answer (a
   * `google.rpc.Status` body) becomes the JsonRpcError of the same A2A error, `request.codeOf`
   * naming its code from the body's ErrorInfo reason.
   */
  async rest(request: RestRequest, call: CallOptions = {}): Promise<unknown> {
    const { method, verb, url, body, check, codeOf, read } = request;
    const intercepted = this.intercepted({ method, binding: 'HTTP+JSON', url, httpMethod: verb, params: body, streaming: false }, call);
    return interceptUnary(this.options.interceptors, intercepted, async ({ headers, url: sentUrl }, answered) => {
      const init: RequestInit = { method: verb, headers: { accept: 'application/json' } };
      if (body !== undefined) {
        init.body = JSON.stringify(body);
        init.headers = { ...(init.headers as Record<string, string>), 'content-type': 'application/json' };
      }
      const { response, text } = await this.fetchText(sentUrl, init, headers, call, answered);
      if (!response.ok) throw restError(response, text, codeOf);
      const sent = text === '' ? {} : parseJson(text, 'the response', response);
      const value = read ? read(sent) : sent;
      this.hold(value, check, `${verb} ${new URL(url).pathname} result`);
      return value;
    });
  }

  /** An HTTP+JSON stream: each event bare (no envelope), until the server ends it or `request.isFinal`. */
  restStream(request: RestStreamRequest, call: CallOptions = {}): AsyncGenerator<StreamAnswer> {
    const { method, verb, url, body } = request;
    const intercepted = this.intercepted({ method, binding: 'HTTP+JSON', url, httpMethod: verb, params: body, streaming: true }, call);
    return interceptStream(this.options.interceptors, intercepted, (sent, answered) => {
      const first = { ...request, url: sent.url };
      return this.resuming(
        first,
        () => {
          const again = request.resume?.();
          return again && { ...first, ...again };
        },
        (current, headers) => this.oneRestStream(current, headers, call, answered),
        request.isFinal,
        sent.headers,
        call,
      );
    });
  }

  /** `restStream`'s one HTTP exchange, to the URL and with the headers the interceptors left. */
  private async *oneRestStream(
    request: RestStreamRequest,
    sentHeaders: Record<string, string>,
    call: CallOptions,
    answered: Answered,
  ): AsyncGenerator<StreamAnswer> {
    const { verb, url, body, check, codeOf, read } = request;
    const headers: Record<string, string> = { accept: 'text/event-stream', prefer: EVENT_IDS_PREFERENCE };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const init: RequestInit = { method: verb, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) };
    const response = await this.timed(url, init, sentHeaders, call, answered, async (r) => r);
    if (!response.ok) throw restError(response, await response.text(), codeOf);
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream')) {
      await response.body?.cancel();
      throw new InvalidResponseError(`expected text/event-stream, got ${type || 'no content type'}`);
    }
    try {
      for await (const sse of readSse(response.body!)) {
        const sent = parseJson(sse.data, 'a stream event');
        if (sse.event === 'error')
          throw restErrorOf(sent, 200, codeOf) ?? new InvalidResponseError('an error event without an error object');
        const value = read ? read(sent) : sent;
        this.hold(value, check, 'stream event');
        yield { id: sse.id, result: value };
      }
    } catch (error) {
      if (error instanceof A2AClientError) throw error;
      throw new NetworkError(`the stream broke: ${(error as Error).message}`, { cause: error });
    } finally {
      await response.body?.cancel().catch(() => undefined);
    }
  }

  /** Holds an answer to the schema as `validateResponses` says: throw, report, or let it be. */
  hold(value: unknown, { validate, allIssues }: Check, what: string): void {
    const mode = this.options.validateResponses;
    if (mode === 'off' || validate(value)) return;
    if (mode === 'strict') throw new InvalidResponseError(`invalid ${what}: ${formatIssues(validate.issues)}`, validate.issues);
    this.options.onDeparture?.({ what, issues: allIssues(value) });
  }

  /** The result of a JSON-RPC response, after checking it answers request `id`. */
  private unwrap(message: unknown, id: number): unknown {
    const response = message as {
      jsonrpc?: unknown;
      id?: unknown;
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    if (typeof response !== 'object' || response === null || response.jsonrpc !== '2.0') {
      throw new InvalidResponseError('not a JSON-RPC 2.0 response');
    }
    if (response.error) throw new JsonRpcError(response.error);
    if (response.id !== id) throw new InvalidResponseError(`response id ${JSON.stringify(response.id)} does not match request id ${id}`);
    if (!('result' in response)) throw new InvalidResponseError('a response with neither result nor error');
    return response.result;
  }

  /** A request and its whole body, within the timeout. */
  private async fetchText(
    url: string,
    init: RequestInit,
    headers: Record<string, string>,
    call: CallOptions,
    answered: Answered,
  ): Promise<{ response: Response; text: string }> {
    return this.timed(url, init, headers, call, answered, async (response) => ({ response, text: await response.text() }));
  }

  /**
   * A request within the timeout, with `headers` (what the interceptors left) over the
   * request's own; for a stream, the timeout covers only the wait for it to start.
   */
  private async timed<T>(
    url: string,
    init: RequestInit,
    headers: Record<string, string>,
    call: CallOptions,
    answered: Answered,
    read: (response: Response) => Promise<T>,
  ): Promise<T> {
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout.signal]) : timeout.signal;
    try {
      const response = await this.options.fetch(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), ...headers },
        signal,
      });
      answered.status = response.status;
      return await read(response);
    } catch (error) {
      if (error instanceof A2AClientError) throw error;
      if (timeout.signal.aborted && !call.signal?.aborted) throw new TimeoutError(`no answer from ${url} within ${timeoutMs} ms`);
      if (call.signal?.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new NetworkError(`cannot reach ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}

function checkMode(option: A2AClientOptions['validateResponses']): 'strict' | 'warn' | 'off' {
  if (option === undefined || option === true || option === 'strict') return 'strict';
  if (option === false || option === 'off') return 'off';
  if (option === 'warn') return 'warn';
  throw new TypeError(`A2AClient: validateResponses must be 'strict', 'warn', 'off' or a boolean, got ${JSON.stringify(option)}`);
}

function postInit(body: unknown, accept: string, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', accept, ...headers } };
}

/** An HTTP+JSON error answer: the A2A error its body names, or the HTTP status alone when it names none. */
function restError(response: Response, text: string, codeOf: (reason: string | undefined, status: number) => number): A2AClientError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return httpError(response, text);
  }
  return restErrorOf(body, response.status, codeOf) ?? httpError(response, text);
}

function restErrorOf(
  body: unknown,
  status: number,
  codeOf: (reason: string | undefined, status: number) => number,
): JsonRpcError | undefined {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  if (!error || typeof error !== 'object') return jsonRpcErrorOf(body, status);
  const details = Array.isArray(error.details) ? error.details : [];
  const reason = (details.find((d) => (d as { reason?: unknown })?.reason !== undefined) as { reason?: string } | undefined)?.reason;
  const message = typeof error.message === 'string' ? error.message : `HTTP ${status}`;
  return new JsonRpcError({ code: codeOf(reason, status), message, data: details });
}

/**
 * An error body that is a JSON-RPC error object itself, `{ code, message, data }`: what A2A 0.3's
 * HTTP+JSON binding sends (spec 0.3 7.1: "a JSONRPCError or equivalent" on every transport).
 */
function jsonRpcErrorOf(body: unknown, status: number): JsonRpcError | undefined {
  const error = body as { code?: unknown; message?: unknown; data?: unknown } | null;
  if (typeof error !== 'object' || error === null || typeof error.code !== 'number' || !Number.isInteger(error.code)) return undefined;
  const message = typeof error.message === 'string' ? error.message : `HTTP ${status}`;
  return new JsonRpcError(error.data === undefined ? { code: error.code, message } : { code: error.code, message, data: error.data });
}

function httpError(response: Response, text: string): HttpError {
  return new HttpError(response.status, text, { url: response.url, contentType: response.headers.get('content-type') });
}

/** A JSON body, or the error that says why the answer is not one. */
function readJson(response: Response, text: string): unknown {
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json')) {
    if (!response.ok) throw httpError(response, text);
    throw new NotAnAgentError(`expected application/json, got ${type || 'no content type'} from ${response.url}`);
  }
  return parseJson(text, 'the response', response);
}

/** Parses JSON; a body that is not JSON at all (given the response it came in) means no agent answered. */
function parseJson(text: string, what: string, response?: Response): unknown {
  try {
    return JSON.parse(text);
  } catch {
    if (!response) throw new InvalidResponseError(`${what} is not valid JSON`);
    const type = response.headers.get('content-type');
    throw new NotAnAgentError(`${what} from ${response.url} is not JSON${type ? ` (${type.split(';')[0]})` : ''}`);
  }
}
