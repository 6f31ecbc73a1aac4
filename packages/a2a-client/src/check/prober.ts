// The wire side of `a2a check`: every request it sends to the agent goes through here, so that
// each is bounded (a timeout that covers reading the whole answer, the check's deadline, a cap on
// the answer's bytes and on a stream's events), paced (at most `rate` requests a second) and
// recorded as an exchange the report can show. gRPC calls are exchanges too: their messages in
// their JSON form, their status as the answer's status. The user's headers (credentials) go to
// the origins it trusts only, and no redirect is followed: a card can name any address.
import { describeError, readBounded } from '../bounded-body.js';
import { type GrpcCallStart, type GrpcTlsOptions, grpcTarget } from '../grpc.js';
import { channelCredentials, serverNameOptions } from '../grpc-channel.js';
import { type RawEntry, recordingFetch, recordingGrpc } from '../inspector/recorder.js';
import { readSse, type SseEvent } from '../sse.js';

/** One request and what came back, as the report shows them. */
export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body: string };
  /** Why no answer came, or why it was cut (a refused connection, a timeout). */
  error?: string;
  /** Where the exchange is in the inspector's raw log, when the check runs there. */
  logId?: number;
  /** No whole answer came within the request's timeout (`error` says so). */
  timedOut?: true;
  /** The check's deadline passed before the answer came whole. */
  pastDeadline?: true;
}

/** A gRPC call's end: its status, and the details its trailers carried (`google.rpc.Status`). */
export interface GrpcOutcome {
  code: number;
  /** The code's name (`NOT_FOUND`). */
  name: string;
  message: string;
  /** The status's details, each in its JSON form with its `@type`. */
  details: Record<string, unknown>[];
  /** The answer's messages, in their JSON form: one for a unary call, each of a stream. */
  messages: unknown[];
}

export type { SseEvent };

export interface ProberOptions {
  /** Headers the requests to a trusted origin carry (authentication). */
  headers: Record<string, string>;
  /** Whether `headers` go to this URL (an http(s) URL, or a gRPC `host:port`). */
  trusts: (url: string) => boolean;
  /** When the whole check must end (`performance.now()` time): no request starts after, and one under way is cut. */
  deadline: number;
  /** Most requests a second. */
  rate: number;
  /** Most requests in all: a checker must never flood an agent. */
  maxRequests: number;
  timeoutMs: number;
  fetcher: typeof fetch;
  /** TLS for the gRPC interfaces (a CA, a client certificate); plaintext without it. */
  grpcTls?: GrpcTlsOptions;
  /** Told of every request, answer and stream event as the inspector's raw log has them. */
  record?: (entry: RawEntry) => void;
}

/** @grpc/grpc-js, an optional peer dependency, is not installed: the gRPC checks are skipped. */
export class GrpcMissing extends Error {}

/** The check's deadline passed: no request is sent any more. */
export class DeadlinePassed extends Error {}

/** Most bytes of an answer kept; a stream read past it is cut. */
const MAX_BODY_BYTES = 1 << 20;
/** Most events of a stream read. */
const MAX_EVENTS = 1_000;

export class Prober {
  /** Every exchange, in order (the report's log). */
  readonly log: Exchange[] = [];
  private nextStart = 0;
  private readonly fetcher: typeof fetch;
  /** The raw log's number of the request being sent (set as the recording fetch starts it). */
  private loggedAs: number | undefined;
  private readonly observeGrpc: ((call: GrpcCallStart) => ReturnType<ReturnType<typeof recordingGrpc>>) | undefined;
  /** One gRPC channel per address, opened on its first call. */
  private readonly channels = new Map<string, Promise<GrpcChannel>>();
  /** When requests stop (`performance.now()` time); moved on once, for the cleanup. */
  private deadlineAt: number;
  /** Aborted at the deadline: every request's signal follows it. */
  private deadline = new AbortController();
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** The origins (or gRPC addresses) the headers were kept from, for the report. */
  readonly withheldFrom = new Set<string>();

  constructor(private readonly options: ProberOptions) {
    const { record } = options;
    this.fetcher = record
      ? recordingFetch((entry) => {
          if (entry.type === 'request') this.loggedAs = entry.exchange;
          record(entry);
        }, options.fetcher)
      : options.fetcher;
    this.observeGrpc = record
      ? (() => {
          const observe = recordingGrpc((entry) => {
            if (entry.type === 'request') this.loggedAs = entry.exchange;
            record(entry);
          });
          return (call: GrpcCallStart) => observe(call);
        })()
      : undefined;
    this.deadlineAt = options.deadline;
    this.armDeadline();
  }

  /** Whether the deadline has passed. */
  get pastDeadline(): boolean {
    return performance.now() >= this.deadlineAt;
  }

  /**
   * Lets requests run `ms` more from now (the cleanup's cancels, which the agent is owed even
   * when the checks ran out of time); a deadline further off is kept.
   */
  extendDeadline(ms: number): void {
    const until = performance.now() + ms;
    if (until <= this.deadlineAt) return;
    this.deadlineAt = until;
    if (this.deadline.signal.aborted) this.deadline = new AbortController();
    this.armDeadline();
  }

  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    const controller = this.deadline;
    this.deadlineTimer = setTimeout(
      () => controller.abort(new DeadlinePassed('the check’s deadline passed')),
      Math.max(0, this.deadlineAt - performance.now()),
    );
    this.deadlineTimer.unref();
  }

  /** The user's headers, for a request to `url`: none unless its origin is trusted. */
  private credentialsFor(url: string, origin: string): Record<string, string> {
    if (Object.keys(this.options.headers).length === 0) return {};
    if (this.options.trusts(url)) return this.options.headers;
    this.withheldFrom.add(origin);
    return {};
  }

  /** Sends one request and reads its whole answer (a stream's too, into `events`). */
  async send(
    method: string,
    url: string,
    { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<Exchange & { events?: SseEvent[] }> {
    await this.admit();
    const origin = URL.canParse(url) ? new URL(url).origin : url;
    const allHeaders = { ...this.credentialsFor(url, origin), ...headers };
    const exchange: Exchange & { events?: SseEvent[] } = {
      request: { method, url, headers: allHeaders, ...(body !== undefined && { body }) },
    };
    this.log.push(exchange);
    // The timeout covers the whole answer: an agent that sends its headers, then a byte a second, is cut too.
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const deadline = this.deadline.signal;
    const signal = AbortSignal.any([timeout, deadline]);
    const cutBy = (error: unknown): string =>
      timeout.aborted || deadline.aborted ? this.cut(exchange, timeout.aborted ? 'timeout' : 'deadline') : describeError(error);
    try {
      this.loggedAs = undefined;
      const answer = this.fetcher(url, {
        method,
        headers: allHeaders,
        ...(body !== undefined && { body }),
        redirect: 'manual',
        signal,
      });
      // The recording fetch numbers the request before its first await.
      if (this.loggedAs !== undefined) exchange.logId = this.loggedAs;
      const response = await answer;
      const read = await readBounded(response.body, MAX_BODY_BYTES, MAX_EVENTS);
      exchange.response = { status: response.status, headers: Object.fromEntries(response.headers), body: read.text };
      if (read.error !== undefined) exchange.error = cutBy(read.error);
      else if (read.overBound) exchange.error = `the answer is larger than ${MAX_BODY_BYTES} bytes: read to there`;
      else if (read.overEvents) exchange.error = `the stream sent more than ${MAX_EVENTS} events: read to there`;
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) exchange.events = await parseSse(read.text);
    } catch (error) {
      exchange.error = cutBy(error);
    }
    return exchange;
  }

  /**
   * One gRPC call of `A2AService` (`method` as the proto names it) at `address` (`host:port`),
   * the request and the answer in their JSON form: what came back, and how the call ended.
   */
  async grpc(
    endpoint: string,
    method: string,
    request: unknown,
    metadata: Record<string, string> = {},
  ): Promise<Exchange & { grpc?: GrpcOutcome }> {
    await this.admit();
    const { address, tls: cardAsksTls } = grpcTarget(endpoint);
    // TLS when asked for here, or when the card's URL says grpcs:// (then never plaintext).
    const tls = this.options.grpcTls ?? (cardAsksTls ? {} : undefined);
    const allMetadata = { ...lowerCased(this.credentialsFor(address, address)), ...lowerCased(metadata) };
    const { definitions, grpc, types, client } = await this.channel(address, tls);
    const definition = definitions[method.charAt(0).toLowerCase() + method.slice(1)];
    if (!definition) throw new Error(`A2AService has no method ${method}`);
    const exchange: Exchange & { grpc?: GrpcOutcome } = {
      request: { method: 'gRPC', url: `${address}${definition.path}`, headers: allMetadata, body: JSON.stringify(request) },
    };
    this.log.push(exchange);
    const grpcMetadata = new grpc.Metadata();
    for (const [name, value] of Object.entries(allMetadata)) grpcMetadata.set(name, value);
    this.loggedAs = undefined;
    const observer = this.observeGrpc?.({
      address,
      path: definition.path,
      metadata: allMetadata,
      request,
      streaming: definition.responseStream,
      tls: tls !== undefined,
    });
    if (this.loggedAs !== undefined) exchange.logId = this.loggedAs;
    const messages: unknown[] = [];
    const deadline = Date.now() + Math.min(this.options.timeoutMs, Math.max(0, this.deadlineAt - performance.now()));
    const received = (message: unknown) => {
      messages.push(message);
      observer?.message?.(message);
    };
    const status = await new Promise<import('@grpc/grpc-js').StatusObject>((resolve) => {
      const options = { deadline };
      const { path, requestSerialize, responseDeserialize } = definition;
      try {
        if (definition.responseStream) {
          const call = client.makeServerStreamRequest(path, requestSerialize, responseDeserialize, request as never, grpcMetadata, options);
          call.on('data', (message: unknown) => (messages.length < MAX_EVENTS ? received(message) : call.cancel()));
          call.on('status', resolve);
          call.on('error', () => undefined);
        } else {
          // A unary call's answer comes to its callback; its status (with the trailers) as an event.
          const call = client.makeUnaryRequest(
            path,
            requestSerialize,
            responseDeserialize,
            request as never,
            grpcMetadata,
            options,
            (error, value) => {
              if (!error) received(value);
            },
          );
          call.on('status', resolve);
        }
      } catch (error) {
        resolve({
          code: grpc.status.INTERNAL,
          details: `the request could not be written: ${(error as Error).message}`,
          metadata: new grpc.Metadata(),
        });
      }
    });
    const [trailer] = (status.metadata.get('grpc-status-details-bin') ?? []) as Buffer[];
    let details: Record<string, unknown>[] = [];
    if (trailer) {
      try {
        details = types.statusDetailsFromBinary(trailer).details as Record<string, unknown>[];
      } catch (error) {
        details = [{ '@type': 'unreadable', reason: (error as Error).message }];
      }
    }
    const name = grpc.status[status.code] ?? String(status.code);
    observer?.end?.({ code: status.code, name, details: status.details, metadata: {} });
    exchange.grpc = { code: status.code, name, message: status.details, details, messages };
    if (name === 'DEADLINE_EXCEEDED') exchange.error = this.cut(exchange, this.pastDeadline ? 'deadline' : 'timeout');
    const body =
      status.code === 0 ? (definition.responseStream ? messages : messages[0]) : { code: name, message: status.details, details };
    exchange.response = { status: status.code, headers: {}, body: JSON.stringify(body) ?? '' };
    return exchange;
  }

  /** Marks an exchange cut by the request's timeout or the check's deadline; what its error says. */
  private cut(exchange: Exchange, by: 'timeout' | 'deadline'): string {
    if (by === 'timeout') {
      exchange.timedOut = true;
      return `timed out: no whole answer within ${this.options.timeoutMs} ms`;
    }
    exchange.pastDeadline = true;
    return 'the check’s deadline passed before the whole answer came';
  }

  /** Closes the gRPC channels the checks opened. */
  async close(): Promise<void> {
    clearTimeout(this.deadlineTimer);
    for (const channel of this.channels.values()) await channel.then(({ client }) => client.close()).catch(() => undefined);
  }

  /** Holds the request to the bounds: at most `maxRequests` in all, `rate` a second. */
  private async admit(): Promise<void> {
    if (this.pastDeadline) throw new DeadlinePassed('the check’s deadline passed');
    if (this.log.length >= this.options.maxRequests)
      throw new Error(`more than ${this.options.maxRequests} requests: the check stopped itself`);
    await this.pace();
  }

  private channel(address: string, tls: GrpcTlsOptions | undefined): Promise<GrpcChannel> {
    const key = `${tls ? 'tls' : 'plaintext'} ${address}`;
    let channel = this.channels.get(key);
    if (!channel) {
      channel = (async () => {
        let grpc: typeof import('@grpc/grpc-js');
        try {
          grpc = await import('@grpc/grpc-js');
        } catch {
          throw new GrpcMissing('checking a gRPC interface needs @grpc/grpc-js installed (npm install @grpc/grpc-js)');
        }
        const types = await import('a2a-types/v1.0/grpc');
        const client = new grpc.Client(address, channelCredentials(grpc, tls), serverNameOptions(tls));
        return { grpc, types, client, definitions: types.grpcClientDefinition() };
      })();
      this.channels.set(key, channel);
    }
    return channel;
  }

  /** Waits until this request may start: requests start at most `rate` a second. */
  private async pace(): Promise<void> {
    const now = performance.now();
    const wait = this.nextStart - now;
    this.nextStart = Math.max(now, this.nextStart) + 1000 / this.options.rate;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

interface GrpcChannel {
  grpc: typeof import('@grpc/grpc-js');
  types: typeof import('a2a-types/v1.0/grpc');
  client: import('@grpc/grpc-js').Client;
  definitions: ReturnType<typeof import('a2a-types/v1.0/grpc').grpcClientDefinition>;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The events of a whole SSE body, read by the client's own reader (eventsource-parser). */
async function parseSse(text: string): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const body = (async function* () {
    yield new TextEncoder().encode(text);
  })();
  for await (const event of readSse(body)) events.push(event);
  return events;
}
