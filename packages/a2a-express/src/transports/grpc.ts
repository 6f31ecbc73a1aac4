// A version's gRPC binding, served with @grpc/grpc-js: each method of the service calls the
// method runner like JSON-RPC and HTTP+JSON do (the same methods, checks, log line, metric and
// span), with the call's metadata as its headers. What differs is only on the wire: a status
// code says how a call went, its details in the `grpc-status-details-bin` trailer, and a stream's
// events are the messages of a server stream. Imported by the `a2a-express/grpc` entry alone.
import { constants as http2Constants, type Http2Stream } from 'node:http2';
import {
  Metadata,
  status as GrpcStatus,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type StatusObject,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { A2AError } from 'a2a-types/model';
import type { Logger } from 'pino';
import type { Principal } from '../core/auth.js';
import { CallerPresence, type CallHeaders } from '../core/call.js';
import { SeveralEvents, type TaskEventStream } from '../core/event-feed.js';
import type { GrpcBinding, GrpcMethod } from '../protocol/version.js';
import type { StoredEvent } from '../model/record.js';
import type { A2AMetrics } from '../telemetry/metrics.js';
import { A2A_ATTRIBUTES, grpcCallTracer, type Span } from '../telemetry/tracing.js';
import { nestingExceeds } from './nesting.js';
import { startHeartbeat, stopHeartbeat, type Beating } from './sse.js';
import type { ExtensionsEcho } from '../core/extensions.js';
import type { MethodRunner, RequestContext } from './method-runner.js';
import { isRefusal, requestRefusal, versionNamed, type CallEntry, type Refusal } from './call-entry.js';

export interface GrpcEndpointSettings {
  readonly binding: GrpcBinding;
  readonly runner: MethodRunner;
  /**
   * The way into the version's calls, shared with its HTTP bindings: it lets a call in or refuses
   * it (a draining agent's refusal is UNAVAILABLE, so that the client tries another replica), and
   * accounts for each refusal.
   */
  readonly entry: CallEntry;
  readonly logger: Logger;
  /** The protocol version the binding speaks, for its metrics. */
  readonly protocol: string;
  /** The version's extended card for a caller; absent when the agent has none. */
  readonly extendedCardFor?: (principal: Principal) => Promise<unknown>;
  readonly metrics?: A2AMetrics;
  /**
   * The largest request message taken, bytes: one larger is refused through the entry, as an
   * HTTP body past the limit is (grpc-js is set to read a little more than this, so that the
   * refusal is ours to log and count; past that it cuts the call itself).
   */
  readonly maxMessageBytes: number;
  /** The deepest nesting of objects and arrays accepted in a request's JSON form (the router's `maxJsonDepth`). */
  readonly maxJsonDepth: number;
  /** Most bytes a stream holds for a client that does not read (the router's `maxStreamQueueBytes`); see {@link StreamWrites}. */
  readonly maxStreamQueueBytes: number;
  /** How often a stream whose client is behind is looked at (the router's `heartbeatMs`). */
  readonly heartbeatMs: number;
}

/** The service as grpc-js serves it: its definition (requests as bytes, answers already encoded) and its handlers. */
export function grpcService(settings: GrpcEndpointSettings): {
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
} {
  const definition: Record<string, ServiceDefinition[string]> = {};
  const implementation: UntypedServiceImplementation = {};
  const attributes = { [A2A_ATTRIBUTES.protocolVersion]: settings.protocol, [A2A_ATTRIBUTES.binding]: 'grpc' };
  for (const method of settings.binding.methods) {
    const traceCall = grpcCallTracer(settings.binding.serviceName, method.method, attributes);
    definition[method.localName] = {
      path: method.path,
      originalName: method.method,
      requestStream: false,
      responseStream: method.responseStream,
      // The request stays bytes until the handler reads it: one that is not the request message
      // is then the client's mistake (INVALID_ARGUMENT), not a failure of the server.
      requestSerialize: (value: Buffer) => value,
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: (value: Buffer) => value,
      responseDeserialize: (bytes: Buffer) => bytes,
    };
    implementation[method.localName] = method.responseStream
      ? (call: ServerWritableStream<Buffer, Buffer>) => {
          const headers = headersOf(call.metadata);
          traceCall(headers, (span, end) => {
            call.once('finish', () => end(GrpcStatus.OK));
            call.once('error', (error: GrpcError) => end(error.code ?? GrpcStatus.UNKNOWN));
            call.once('cancelled', () => end(GrpcStatus.CANCELLED));
            void serveStream(settings, method, call, { headers, span });
          });
        }
      : (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
          const headers = headersOf(call.metadata);
          traceCall(headers, (span, end) => {
            // grpc-js says 'cancelled' for a client's cancel and for a deadline that passed alike.
            const caller = new CallerPresence();
            call.once('cancelled', () => {
              caller.leave();
              end(GrpcStatus.CANCELLED);
            });
            void serveUnary(
              settings,
              method,
              call,
              (error, value) => {
                end(error?.code ?? GrpcStatus.OK);
                callback(error, value);
              },
              { headers, span, caller },
            );
          });
        };
  }
  return { definition: definition as ServiceDefinition, implementation };
}

/** What every step of a call reads: its metadata as headers, its server span, and (a unary call) whether its caller is gone. */
interface CallBasis {
  readonly headers: CallHeaders;
  readonly span: Span;
  readonly caller?: CallerPresence;
}

async function serveUnary(
  settings: GrpcEndpointSettings,
  method: GrpcMethod,
  call: ServerUnaryCall<Buffer, Buffer>,
  callback: (error: GrpcError | null, value?: Buffer) => void,
  basis: CallBasis,
): Promise<void> {
  try {
    const read = await readCall(settings, method, call, basis);
    if ('refused' in read) return callback(read.refused);
    const outcome = await settings.runner.run(method.tableMethod ?? method.method, read.params, read.context);
    if (outcome.kind === 'error') return callback(grpcError(settings, outcome.error));
    if (outcome.kind === 'stream') throw new Error(`${method.method} streamed its answer on a unary method`);
    read.echo?.send(call);
    callback(null, method.answer(outcome.result));
  } catch (error) {
    settings.logger.error({ err: error, method: method.method }, 'unexpected error in the gRPC endpoint');
    callback(grpcError(settings, A2AError.internalError()));
  }
}

async function serveStream(
  settings: GrpcEndpointSettings,
  method: GrpcMethod,
  call: ServerWritableStream<Buffer, Buffer>,
  basis: CallBasis,
): Promise<void> {
  try {
    const read = await readCall(settings, method, call, basis);
    if ('refused' in read) {
      failStream(call, read.refused);
      return;
    }
    const outcome = await settings.runner.run(method.tableMethod ?? method.method, read.params, read.context);
    if (outcome.kind === 'error') {
      failStream(call, grpcError(settings, outcome.error));
      return;
    }
    if (outcome.kind !== 'stream') throw new Error(`${method.method} answered once on a streaming method`);
    writeEvents(settings, method, call, outcome.events, outcome.finished, read.echo);
  } catch (error) {
    settings.logger.error({ err: error, method: method.method }, 'unexpected error in the gRPC endpoint');
    failStream(call, grpcError(settings, A2AError.internalError()));
  }
}

/**
 * Writes a stream's events as the call's messages until the final one, or until the call is over
 * otherwise: the client cancels (or its deadline passes, or its connection drops), which closes
 * the stream and lets go of the task's feed, also when that came before the stream started; or
 * the client reads too slowly (see {@link StreamWrites}). An event that cannot be written ends
 * the call with its error.
 */
function writeEvents(
  settings: GrpcEndpointSettings,
  method: GrpcMethod,
  call: ServerWritableStream<Buffer, Buffer>,
  events: TaskEventStream,
  finished: (details: Record<string, unknown>) => void,
  echo: GrpcExtensionsEcho | undefined,
): void {
  let sent = 0;
  /** The id of the last event written: a stream ended for its client to resubscribe says it. */
  let lastEventId: number | undefined;
  let over = false;
  const end = (reason: string) => {
    if (over) return;
    over = true;
    writes.stop();
    events.close();
    settings.metrics?.streamClosed(settings.protocol, sent);
    finished({ events: sent, stream: reason });
  };
  const writes = new StreamWrites(call, settings, () => {
    settings.logger.info(
      { method: method.method, maxStreamQueueBytes: settings.maxStreamQueueBytes },
      'a gRPC stream cut: its client reads too slowly',
    );
    end('overflow');
    resetStream(call);
  });
  settings.metrics?.streamOpened(settings.protocol);
  call.on('cancelled', () => end('client-closed'));
  // grpc-js says 'cancelled' once: a call cancelled while the stream was being prepared (its
  // credentials, the store) has said it already, and would keep its place among the task's and
  // the client's streams until the task's final event.
  if (call.cancelled) {
    end('client-closed');
    return;
  }
  const write = (value: unknown) => {
    echo?.send(call);
    writes.write(method.answer(value));
    sent++;
  };
  events.start(
    (stored: StoredEvent) => {
      lastEventId = stored.id;
      const rendered = events.render(stored);
      if (rendered instanceof SeveralEvents) for (const { value } of rendered.values) write(value);
      else write(rendered);
    },
    (ending) => {
      if (over) return;
      if (ending?.reconnect) {
        end('handed-over');
        failStream(call, reconnectStatus(lastEventId));
        return;
      }
      if (ending) {
        settings.logger.error({ err: ending.error }, 'a gRPC stream failed');
        end('failed');
        failStream(call, grpcError(settings, A2AError.internalError('an event of the stream could not be sent')));
        return;
      }
      end('ended');
      call.end();
    },
  );
}

/**
 * The messages a stream has handed to its call, bounded by `maxStreamQueueBytes` as an SSE
 * stream's queue is (SseStream): grpc-js takes every message it is given, and holds what HTTP/2
 * flow control does not let it send yet, so a client that does not read would hold every event
 * of the task. Two ways past the bound: messages written while the call's buffer is full
 * (`write` returned false, until 'drain') are counted as they come, and the stream is cut as soon
 * as they pass it; and every byte not yet sent counts (a subscription's first message is the
 * whole task), so that a stream still holding more than the bound at two heartbeats in a row is
 * cut then. A client that reads takes even a task larger than the bound.
 */
class StreamWrites implements Beating {
  /** Bytes handed to the call and not yet sent, and each message's size, oldest first (grpc-js sends them in order). */
  private unsentBytes = 0;
  private readonly unsentSizes: number[] = [];
  /** Bytes written since the call's buffer was full; undefined while it is not. */
  private queuedWhileFull: number | undefined;
  private beatsBehind = 0;
  private watched = false;
  private stopped = false;

  constructor(
    private readonly call: ServerWritableStream<Buffer, Buffer>,
    private readonly limits: Pick<GrpcEndpointSettings, 'maxStreamQueueBytes' | 'heartbeatMs'>,
    private readonly overflow: () => void,
  ) {}

  write(message: Buffer): void {
    if (this.stopped) return;
    const { length } = message;
    this.unsentSizes.push(length);
    this.unsentBytes += length;
    if (this.queuedWhileFull !== undefined) {
      this.queuedWhileFull += length;
      if (this.queuedWhileFull > this.limits.maxStreamQueueBytes) {
        this.overflow();
        return;
      }
    }
    if (!this.call.write(message, this.sentOne) && this.queuedWhileFull === undefined) {
      this.queuedWhileFull = 0;
      this.call.once('drain', this.drained);
    }
    if (!this.watched && this.unsentBytes > this.limits.maxStreamQueueBytes) {
      this.watched = true;
      this.beatsBehind = 0;
      startHeartbeat(this, this.limits.heartbeatMs);
    }
  }

  /** Looked at once a heartbeat while it holds more than the bound: still so at the next one, it is cut. */
  beat(): void {
    if (this.unsentBytes <= this.limits.maxStreamQueueBytes) this.unwatch();
    else if (++this.beatsBehind >= 2) this.overflow();
  }

  stop(): void {
    this.stopped = true;
    this.unwatch();
  }

  private readonly sentOne = () => {
    this.unsentBytes -= this.unsentSizes.shift()!;
  };

  private readonly drained = () => {
    this.queuedWhileFull = undefined;
  };

  private unwatch(): void {
    if (!this.watched) return;
    this.watched = false;
    stopHeartbeat(this, this.limits.heartbeatMs);
  }
}

/**
 * Resets a stream's HTTP/2 stream with ENHANCE_YOUR_CALM, which clients read as
 * RESOURCE_EXHAUSTED: the one end a client that does not read sees, and what lets go of the
 * messages HTTP/2 still holds for it. A status would wait behind those messages. grpc-js has no
 * public way to reset a call's stream, so this reaches for the one it keeps; should a release of
 * grpc-js keep it elsewhere, the call ends with RESOURCE_EXHAUSTED as a status instead.
 */
function resetStream(call: ServerWritableStream<Buffer, Buffer>): void {
  const stream = (call as unknown as { call?: { stream?: Partial<Http2Stream> } }).call?.stream;
  if (typeof stream?.close === 'function') {
    if (!stream.closed) stream.close(http2Constants.NGHTTP2_ENHANCE_YOUR_CALM);
    return;
  }
  const error = Object.assign(new Error('the client reads too slowly'), {
    code: GrpcStatus.RESOURCE_EXHAUSTED,
    details: 'the client reads too slowly',
  });
  failStream(call, error);
}

type ReadCall = { params: unknown; context: RequestContext; echo: GrpcExtensionsEcho | undefined } | { refused: GrpcError };

/**
 * The extensions the agent activated for a call, sent as the response's `a2a-extensions`
 * metadata with its first message (a stream's: those activated before it).
 */
class GrpcExtensionsEcho implements ExtensionsEcho {
  activated: readonly string[] = [];

  echoExtensions(activated: readonly string[]): void {
    this.activated = activated;
  }
  #sent = false;

  /** Sends the metadata, once, if there is something to say. */
  send(call: { sendMetadata(metadata: Metadata): void }): void {
    if (this.#sent || this.activated.length === 0) return;
    this.#sent = true;
    const metadata = new Metadata();
    metadata.set('a2a-extensions', this.activated.join(','));
    call.sendMetadata(metadata);
  }
}

/** The call's params and context, or the status it is refused with: the entry lets it in from its metadata, then its message is read. */
async function readCall(
  settings: GrpcEndpointSettings,
  method: GrpcMethod,
  call: ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>,
  { headers, span, caller }: CallBasis,
): Promise<ReadCall> {
  const started = performance.now();
  const refuse = (refusal: Refusal, principal?: Principal): ReadCall => {
    settings.entry.refused(refusal, { binding: 'grpc', span, started, headers, principal });
    const refused = grpcError(settings, refusal.error);
    if (refusal.tooLarge) refused.code = GrpcStatus.RESOURCE_EXHAUSTED;
    return { refused };
  };
  const requested = headers['a2a-version'];
  let admission = settings.entry.admit({ headers }, versionNamed(typeof requested === 'string' ? requested : undefined));
  if (admission instanceof Promise) admission = await admission;
  if (isRefusal(admission)) return refuse(admission);
  const { principal } = admission;
  if (call.request.length > settings.maxMessageBytes) {
    const reason = `the request message is larger than ${settings.maxMessageBytes} bytes`;
    return refuse(
      requestRefusal(A2AError.invalidRequest({ reason }), { tooLarge: true, details: { bytes: call.request.length } }),
      principal,
    );
  }
  let params: unknown;
  try {
    params = method.params(call.request);
  } catch (error) {
    if (!(error instanceof A2AError)) throw error;
    return refuse(requestRefusal(error), principal);
  }
  // As over HTTP: what nests deeper is refused before it is stored and echoed.
  if (nestingExceeds(params, settings.maxJsonDepth)) {
    return refuse(
      requestRefusal(A2AError.invalidRequest({ reason: `the request nests deeper than ${settings.maxJsonDepth} levels` })),
      principal,
    );
  }
  const { extendedCardFor } = settings;
  const lastEventId = headers['last-event-id'];
  // A call that asks for no extension has none activated: nothing to echo (most calls).
  const echo = headers['a2a-extensions'] === undefined ? undefined : new GrpcExtensionsEcho();
  return {
    params,
    echo,
    context: {
      extensionsEcho: echo,
      principal,
      headers,
      lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
      extendedCard: extendedCardFor && principal && (() => extendedCardFor(principal)),
      clientAddress: () => addressOfPeer(call.getPeer()),
      binding: 'grpc',
      span,
      caller,
    },
  };
}

/**
 * The client's address without its port: grpc-js names a peer `address:port`, and the port differs
 * for each connection, where the streams a client holds are counted by its address (as `req.ip`
 * over HTTP).
 */
function addressOfPeer(peer: string): string {
  const colon = peer.lastIndexOf(':');
  return colon === -1 ? peer : peer.slice(0, colon);
}

/** The call's metadata as headers: text entries by their lower-case names (binary `-bin` entries are not headers). */
function headersOf(metadata: Metadata): CallHeaders {
  const headers: Record<string, string | string[]> = {};
  // toJSON hands out grpc-js's own value lists (getMap would copy every binary value first).
  const all = metadata.toJSON();
  for (const name in all) {
    if (name.endsWith('-bin')) continue;
    const values = all[name]!;
    if (values.length === 1 && typeof values[0] === 'string') headers[name] = values[0];
    else {
      const texts = values.filter((value): value is string => typeof value === 'string');
      if (texts.length > 0) headers[name] = texts.length === 1 ? texts[0]! : texts;
    }
  }
  return headers;
}

/** What grpc-js ends a call with: an Error with the call's status. */
type GrpcError = Error & Partial<StatusObject>;

/** An error as the binding writes it: the gRPC status of its reason, its message, and its details in the trailer. */
function grpcError(settings: GrpcEndpointSettings, error: A2AError): GrpcError {
  const { code, message, details } = settings.binding.errorStatus(error);
  const metadata = new Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(details));
  return Object.assign(new Error(message), { code: code as GrpcStatus, details: message, metadata });
}

/**
 * The status of a stream a draining replica ends for its client to resubscribe elsewhere:
 * UNAVAILABLE, gRPC's code for "try again" (the turn goes on on another replica), with the id of
 * the last event sent in the trailer `last-event-id`: given back as a SubscribeToTask's
 * `last-event-id` metadata, the next stream starts right after it.
 */
function reconnectStatus(lastEventId: number | undefined): GrpcError {
  const message = 'this agent replica is stopping and another goes on with the task: subscribe to the task again';
  const metadata = new Metadata();
  if (lastEventId !== undefined) metadata.set('last-event-id', String(lastEventId));
  return Object.assign(new Error(message), { code: GrpcStatus.UNAVAILABLE, details: message, metadata });
}

/**
 * Ends a server stream with an error status. Through its 'error' event, which grpc-js turns into
 * the call's status: `destroy()` would end the stream before that status is sent, and leave the
 * client waiting until its deadline.
 */
function failStream(call: ServerWritableStream<Buffer, Buffer>, error: GrpcError): void {
  call.emit('error', error);
}
