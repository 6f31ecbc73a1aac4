// The gRPC bindings of A2A 1.0 (for A2AClient10) and 0.3 (for A2AClient03): the card's `GRPC`
// interface (`host:port`) dialled with @grpc/grpc-js, each message in the version's JSON-RPC form
// (1.0's is its proto's JSON form; 0.3's is translated by a2a-types/v0.3/grpc), so answers are the
// same objects, held to the same schema, as over the version's other bindings; the client's
// headers as metadata (with `a2a-version` for 1.0); a failed call's ErrorInfo read from its
// status details into the JsonRpcError the version names it by (from a 0.3 agent that sends
// none, its status code read as the official 0.3 SDK reads it).
// @grpc/grpc-js is an optional peer dependency, loaded on the first gRPC call only. This is the
// `a2a-client/grpc` subpath, off the main entry: a web page bundles that, and gRPC needs Node.
// The channel is plaintext only when nothing asks for TLS: a `tls` option, or a card's
// `grpcs://` or `https://` URL, and then it is TLS or nothing.
import type { ErrorDetail10 } from 'a2a-types/v1.0';
import { ERROR_INFO_TYPE } from 'a2a-types/v1.0';
import { A2AClientError, codeOfReason10, JsonRpcError, NetworkError, TimeoutError } from './errors.js';
import type { Answered, InterceptedCall } from './interceptors.js';
import { interceptStream, interceptUnary } from './interceptors.js';
import type { CallOptions, Check, JsonRpcHttp } from './transport.js';
import { channelCredentials, serverNameOptions } from './grpc-channel.js';

type GrpcModule = typeof import('@grpc/grpc-js');
type Client = import('@grpc/grpc-js').Client;
type ServiceError = import('@grpc/grpc-js').ServiceError;
type Connected = { grpc: GrpcModule; client: Client; service: GrpcService };

/** How a method of a version's service is called: its path, and its messages in the version's JSON-RPC form. */
interface GrpcMethodCall {
  readonly path: string;
  requestSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
  /**
   * The messages in the proto's JSON form, for observers, where that is not the JSON-RPC form
   * (0.3's): what crossed the wire, as grpcurl reads and prints it. None for 1.0, whose JSON-RPC
   * form is its proto's JSON.
   */
  readonly wire?: { request(params: unknown): unknown; answer(bytes: Buffer): unknown };
}

/** A version's service, as the channel calls it. */
interface GrpcService {
  /** The method the client names (1.0: by its proto name; 0.3: by its JSON-RPC name). */
  method(name: string): GrpcMethodCall;
  /** The A2A error a failed call's status says; undefined for a status that is the transport's. */
  errorOf(method: string, error: ServiceError): JsonRpcError | undefined;
}

/** What a client adds to its gRPC calls, and who it tells of them. */
export interface GrpcHooks {
  /** Metadata for each call, read as the call starts (the credentials of the moment, say). */
  metadata?: () => Record<string, string>;
  /** Told of each call as it starts; what it returns is told of the call's messages and its end. */
  observe?: (call: GrpcCallStart) => GrpcCallObserver | undefined;
}

/** A gRPC call as it starts. */
export interface GrpcCallStart {
  /** The `host:port` dialled. */
  readonly address: string;
  /** The method's HTTP/2 path (`/lf.a2a.v1.A2AService/SendMessage`). */
  readonly path: string;
  /** The metadata sent, text entries. */
  readonly metadata: Record<string, string>;
  /** The request, in its proto's JSON form (protobuf on the wire; for 0.3 not its JSON-RPC params). */
  readonly request: unknown;
  readonly streaming: boolean;
  /** Whether the channel is TLS (a `tls` option, or the card's `grpcs://` / `https://` URL). */
  readonly tls: boolean;
}

/** How a gRPC call ended: its status code, the code's name, its message and trailers. */
export interface GrpcCallStatus {
  readonly code: number;
  readonly name: string;
  readonly details: string;
  readonly metadata: Record<string, string>;
}

export interface GrpcCallObserver {
  /** A message of the answer, in its proto's JSON form: the one of a unary call, each of a stream. */
  message?(value: unknown): void;
  end?(status: GrpcCallStatus): void;
}

/** PEM text or bytes. */
export type Pem = string | Uint8Array;

/** TLS for the gRPC channel. */
export interface GrpcTlsOptions {
  /** The CA certificates the server's must chain to, instead of the system's roots. */
  ca?: Pem;
  /** The client's certificate chain, for mutual TLS (with `key`). */
  cert?: Pem;
  /** The client certificate's private key. */
  key?: Pem;
  /** The name the server's certificate must carry when it is not the host dialled (an IP address, a tunnel). */
  serverName?: string;
}

/** HTTP/2 keepalive pings on the channel: how a dead connection is noticed between calls and under long streams. */
export interface GrpcKeepaliveOptions {
  /** Ping after this long without activity, ms. Default: grpc-js's (none). */
  timeMs?: number;
  /** A ping not answered within this is a dead connection, ms. Default 20,000. */
  timeoutMs?: number;
  /** Ping even while no call is under way. Default false (servers may answer that with GOAWAY). */
  withoutCalls?: boolean;
}

export interface GrpcTransportOptions extends GrpcHooks {
  /**
   * TLS: `true` with the system's roots, or given a CA, a client certificate (mTLS) or the
   * server's name. Default: TLS when the card's URL is `grpcs://` or `https://`, plaintext for a
   * bare `host:port`. Asked for either way, it is never given up for plaintext.
   */
  tls?: boolean | GrpcTlsOptions;
  keepalive?: GrpcKeepaliveOptions;
}

/** A gRPC channel to one agent, as A2AClient10 uses it. */
export interface GrpcChannel {
  unary(method: string, params: unknown, check: Check, call?: CallOptions): Promise<unknown>;
  stream(method: string, params: unknown, check: Check, call?: CallOptions): AsyncGenerator<unknown>;
  close(): void;
}

/** What `grpcTransport()` makes, for the `grpc` option of A2AClient10 and A2AClient03: how the client dials a card's gRPC interface. */
export interface GrpcTransport {
  /** Whether the channel presents a client certificate (`tls.cert`): it then meets a card's `mutualTLS` scheme. */
  readonly clientCertificate?: boolean;
  /** `protocol`: the version whose service is called (`lf.a2a.v1.A2AService` for 1.0, the default; `a2a.v1.A2AService` for 0.3). */
  readonly open: (
    address: string,
    http: JsonRpcHttp,
    options: { headers: Record<string, string>; timeoutMs: number; protocol?: '1.0' | '0.3' },
  ) => GrpcChannel;
}

/**
 * gRPC for A2AClient10 and A2AClient03 (`new A2AClient10(url, { grpc: grpcTransport({ tls: { ca } }) })`):
 * the card's `GRPC` interface is called over @grpc/grpc-js, plaintext, or TLS as `tls` and the
 * card's URL say.
 */
export function grpcTransport(options: GrpcTransportOptions = {}): GrpcTransport {
  const tls = typeof options.tls === 'object' ? options.tls : undefined;
  if (tls && (tls.cert === undefined) !== (tls.key === undefined))
    throw new TypeError('grpcTransport: a client certificate needs its key, and a key its certificate (tls.cert and tls.key)');
  return {
    clientCertificate: tls?.cert !== undefined,
    open: (address, http, base) => new GrpcCalls(address, http, { ...base, ...options }),
  };
}

/** Where a card's gRPC URL points, and whether it asks for TLS: `grpcs://` and `https://` do. */
export function grpcTarget(url: string): { address: string; tls: boolean } {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  const address = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/\/+$/, '');
  return { address, tls: scheme === 'grpcs' || scheme === 'https' };
}

type CallsOptions = GrpcTransportOptions & { headers: Record<string, string>; timeoutMs: number; protocol?: '1.0' | '0.3' };

/** Calls one agent's gRPC interface. */
class GrpcCalls implements GrpcChannel {
  private client: Promise<Connected> | undefined;
  private readonly address: string;
  private readonly tls: GrpcTlsOptions | undefined;

  constructor(
    url: string,
    private readonly http: JsonRpcHttp,
    private readonly options: CallsOptions,
  ) {
    const target = grpcTarget(url);
    this.address = target.address;
    const asked = options.tls;
    this.tls = typeof asked === 'object' ? asked : asked === true || target.tls ? {} : undefined;
  }

  /** One unary call of `method` (its proto name), its answer held to `check`. */
  async unary(method: string, params: unknown, check: Check, call: CallOptions = {}): Promise<unknown> {
    return interceptUnary(this.http.interceptors, this.intercepted(method, params, false, call), async (sent, answered) => {
      const { grpc, service, client, definition } = await this.prepare(method);
      const metadata = metadataOf(grpc, sent);
      const observer = this.observe(definition, metadata, params, false);
      const answer = await new Promise<unknown>((resolve, reject) => {
        const pending = client.makeUnaryRequest(
          definition.path,
          definition.requestSerialize,
          observedDeserialize(definition, observer),
          params as never,
          metadata,
          { deadline: Date.now() + (call.timeoutMs ?? this.options.timeoutMs) },
          (error, value) => {
            if (error) {
              answered.status = error.code;
              return reject(this.failure(grpc, service, method, error));
            }
            answered.status = grpc.status.OK;
            if (!definition.wire) observer?.message?.(value);
            resolve(value);
          },
        );
        if (observer?.end) pending.on('status', (status) => observer.end!(statusOf(grpc, status)));
        call.signal?.addEventListener('abort', () => pending.cancel(), { once: true });
      });
      // A method that answers nothing (0.3's push config delete) is null, as over JSON-RPC.
      if (answer == null && check.nullable) return null;
      this.http.hold(answer, check, `${method} result`);
      return answer;
    });
  }

  /** One server-streaming call: its messages, each held to `check`, until the stream ends. */
  stream(method: string, params: unknown, check: Check, call: CallOptions = {}): AsyncGenerator<unknown> {
    return interceptStream(this.http.interceptors, this.intercepted(method, params, true, call), (sent, answered) =>
      this.openStream(method, params, check, sent, call, answered),
    );
  }

  private async *openStream(
    method: string,
    params: unknown,
    check: Check,
    sent: InterceptedCall,
    call: CallOptions,
    answered: Answered,
  ): AsyncGenerator<unknown> {
    const { grpc, service, client, definition } = await this.prepare(method);
    const metadata = metadataOf(grpc, sent);
    const observer = this.observe(definition, metadata, params, true);
    const stream = client.makeServerStreamRequest(
      definition.path,
      definition.requestSerialize,
      observedDeserialize(definition, observer),
      params as never,
      metadata,
    );
    stream.on('status', (status) => {
      answered.status = status.code;
      observer?.end?.(statusOf(grpc, status));
    });
    call.signal?.addEventListener('abort', () => stream.cancel(), { once: true });
    try {
      for await (const message of stream) {
        if (!definition.wire) observer?.message?.(message);
        this.http.hold(message, check, 'stream event');
        yield message;
      }
    } catch (error) {
      if (error instanceof A2AClientError) throw error;
      answered.status ??= (error as import('@grpc/grpc-js').ServiceError).code;
      throw this.failure(grpc, service, method, error as ServiceError);
    } finally {
      stream.cancel();
    }
  }

  close(): void {
    void this.client?.then(({ client }) => client.close()).catch(() => undefined);
  }

  /** The call as interceptors see it: its metadata the client's headers, the hook's and the call's. */
  private intercepted(method: string, params: unknown, streaming: boolean, call: CallOptions): InterceptedCall {
    const headers = { ...this.options.headers, ...this.options.metadata?.() };
    return this.http.intercepted({ method, binding: 'GRPC', url: this.address, params, streaming }, call, headers);
  }

  /** The channel, opened on the first call, and how `method` is called on it. */
  private async prepare(method: string) {
    const connected = await this.connect();
    return { ...connected, definition: connected.service.method(method) };
  }

  private connect(): Promise<Connected> {
    this.client ??= (async () => {
      let grpc: GrpcModule;
      try {
        grpc = await import('@grpc/grpc-js');
      } catch (error) {
        throw new NetworkError('calling an agent over gRPC needs @grpc/grpc-js installed', { cause: error });
      }
      const service = this.options.protocol === '0.3' ? await service03(grpc) : await service10();
      const client = new grpc.Client(this.address, channelCredentials(grpc, this.tls), this.channelOptions());
      return { grpc, client, service };
    })();
    return this.client;
  }

  private channelOptions(): Record<string, string | number> {
    const channel: Record<string, string | number> = {};
    const { keepalive } = this.options;
    if (keepalive?.timeMs !== undefined) channel['grpc.keepalive_time_ms'] = keepalive.timeMs;
    if (keepalive?.timeoutMs !== undefined) channel['grpc.keepalive_timeout_ms'] = keepalive.timeoutMs;
    if (keepalive?.withoutCalls !== undefined) channel['grpc.keepalive_permit_without_calls'] = keepalive.withoutCalls ? 1 : 0;
    return { ...channel, ...serverNameOptions(this.tls) };
  }

  private observe(definition: GrpcMethodCall, metadata: import('@grpc/grpc-js').Metadata, params: unknown, streaming: boolean) {
    if (!this.options.observe) return undefined;
    return this.options.observe({
      address: this.address,
      path: definition.path,
      metadata: textEntries(metadata),
      request: wireRequest(definition, params),
      streaming,
      tls: this.tls !== undefined,
    });
  }

  /** A failed call as the client's errors say it: an A2A error by its reason, else the transport's. */
  private failure(grpc: GrpcModule, service: GrpcService, method: string, error: ServiceError): Error {
    const a2a = service.errorOf(method, error);
    if (a2a) return a2a;
    if (error.code === grpc.status.DEADLINE_EXCEEDED) return new TimeoutError(`no gRPC answer in time from ${this.address}`);
    if (error.code === grpc.status.UNAVAILABLE) {
      // Over TLS, a server that speaks plaintext (or refuses the client's certificate) is a
      // failed handshake: say which side of it the client was on.
      const over = this.tls ? ' (TLS)' : '';
      return new NetworkError(`${this.address}${over}: ${error.details}`, { cause: error });
    }
    return new JsonRpcError({ code: -32603, message: `gRPC ${grpc.status[error.code] ?? error.code}: ${error.details}` });
  }
}

/**
 * The request as the observer is shown it: in the proto's JSON form. Params the proto cannot carry
 * fail the call itself as it serializes them; here they are shown as they were given.
 */
function wireRequest(definition: GrpcMethodCall, params: unknown): unknown {
  if (!definition.wire) return params;
  try {
    return definition.wire.request(params);
  } catch {
    return params;
  }
}

/** Where the proto's JSON form differs from the JSON-RPC one, each answer is shown to the observer as it is read off the wire. */
function observedDeserialize(definition: GrpcMethodCall, observer: GrpcCallObserver | undefined): (bytes: Buffer) => unknown {
  const { wire } = definition;
  if (!wire || !observer?.message) return definition.responseDeserialize;
  return (bytes) => {
    const value = definition.responseDeserialize(bytes);
    observer.message!(wire.answer(bytes));
    return value;
  };
}

/** The metadata of a call: the headers the interceptors left, names in lower case as HTTP/2 has them. */
function metadataOf(grpc: GrpcModule, sent: InterceptedCall): import('@grpc/grpc-js').Metadata {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(sent.headers)) metadata.set(name.toLowerCase(), value);
  return metadata;
}

function statusOf(grpc: GrpcModule, status: import('@grpc/grpc-js').StatusObject): GrpcCallStatus {
  return {
    code: status.code,
    name: grpc.status[status.code] ?? String(status.code),
    details: status.details,
    metadata: textEntries(status.metadata),
  };
}

/** A metadata's text entries (binary `-bin` ones are left out), first value of each. */
function textEntries(metadata: import('@grpc/grpc-js').Metadata): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const [name, value] of Object.entries(metadata.getMap())) if (typeof value === 'string') entries[name] = value;
  return entries;
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** The error details of a failed call, the `google.rpc.Status` its `grpc-status-details-bin` trailer carries. */
function statusTrailer(error: ServiceError): Buffer | undefined {
  return (error.metadata?.get('grpc-status-details-bin') ?? [])[0] as Buffer | undefined;
}

/** 1.0's `lf.a2a.v1.A2AService`, its methods by their proto names; an error by its ErrorInfo reason. */
async function service10(): Promise<GrpcService> {
  const types = await import('a2a-types/v1.0/grpc');
  const definitions = types.grpcClientDefinition();
  return {
    method: (name) => definitions[lowerFirst(name)] as GrpcMethodCall,
    errorOf(_method, error) {
      const trailer = statusTrailer(error);
      if (!trailer) return undefined;
      const { message, details } = types.statusDetailsFromBinary(trailer);
      const reason = (details.find((detail) => detail['@type'] === ERROR_INFO_TYPE) as { reason?: string } | undefined)?.reason;
      return new JsonRpcError({
        code: codeOfReason10(reason) ?? -32603,
        message: message || error.details,
        data: details as ErrorDetail10[],
      });
    },
  };
}

/** The 0.3 JSON-RPC code of each reason an ErrorInfo names, as a 0.3 agent's JSON-RPC answer would give it. */
const CODE_OF_REASON_03: Readonly<Record<string, number>> = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL: -32603,
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  STREAMING_NOT_SUPPORTED: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  INVALID_AGENT_RESPONSE: -32006,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: -32007,
  // Beyond 0.3's own: the codes a2a-express answers them with over 0.3's JSON-RPC.
  UNAUTHENTICATED: -32000,
  EXTENSION_SUPPORT_REQUIRED: -32000,
  PERMISSION_DENIED: -32008,
  INVALID_TASK_STATE: -32009,
  RATE_LIMIT_EXCEEDED: -32010,
  RESOURCE_UNAVAILABLE: -32011,
};

const PUSH_CONFIG_METHODS = new Set([
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
]);

/**
 * 0.3's `a2a.v1.A2AService`, its methods by their 0.3 JSON-RPC names. An error's code is its
 * ErrorInfo reason's, when the status carries one (a2a-express sends it); else read from the
 * status code and the method as the official 0.3 SDK reads them, which is all a 0.3 agent says.
 */
async function service03(grpc: GrpcModule): Promise<GrpcService> {
  const [types, protobuf] = await Promise.all([import('a2a-types/v0.3/grpc'), import('@bufbuild/protobuf')]);
  const definitions = types.grpcClientDefinition03();
  const { status } = grpc;
  /** Bytes as the proto's JSON, as grpcurl prints them (no field at its default). */
  const jsonOf = (schema: import('@bufbuild/protobuf').DescMessage, bytes: Uint8Array) =>
    protobuf.toJson(schema, protobuf.fromBinary(schema, bytes));
  const calls = new Map<string, GrpcMethodCall>();
  for (const [name, definition] of Object.entries(definitions)) {
    const { input, output } = types.A2AService03.methods.find((method) => method.name === definition.originalName)!;
    calls.set(name, {
      ...definition,
      wire: { request: (params) => jsonOf(input, definition.requestSerialize(params)), answer: (bytes) => jsonOf(output, bytes) },
    });
  }
  const codeOfStatus = (method: string, code: number): number | undefined => {
    if (code === status.NOT_FOUND) return -32001;
    if (code === status.FAILED_PRECONDITION) return method === 'agent/getAuthenticatedExtendedCard' ? -32007 : -32002;
    if (code === status.UNIMPLEMENTED) return PUSH_CONFIG_METHODS.has(method) ? -32003 : -32004;
    if (code === status.INVALID_ARGUMENT) return -32602;
    if (code === status.INTERNAL) return -32603;
    return undefined;
  };
  return {
    method: (name) => calls.get(name) as GrpcMethodCall,
    errorOf(method, error) {
      const trailer = statusTrailer(error);
      const { message, reason } = trailer ? types.reasonOfStatusDetails03(trailer) : { message: error.details, reason: undefined };
      const code = (reason !== undefined ? CODE_OF_REASON_03[reason] : undefined) ?? codeOfStatus(method, error.code);
      if (code === undefined) return undefined;
      return new JsonRpcError({ code, message: message || error.details, ...(reason !== undefined && { data: { reason } }) });
    },
  };
}
