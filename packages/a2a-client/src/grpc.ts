// A2A 1.0's gRPC binding for A2AClient10: the card's `GRPC` interface (`host:port`) dialled with
// @grpc/grpc-js, each message in its JSON form (so answers are the same objects, held to the same
// schema, as over JSON-RPC and HTTP+JSON), `a2a-version` and the client's headers as metadata, and
// a failed call's ErrorInfo read from its status details into the JsonRpcError 1.0 names it by.
// @grpc/grpc-js is an optional peer dependency, loaded on the first gRPC call only.
import type { ErrorDetail10 } from 'a2a-types/v1.0';
import { ERROR_INFO_TYPE } from 'a2a-types/v1.0';
import { codeOfReason10, JsonRpcError, NetworkError, TimeoutError } from './errors.js';
import type { CallOptions, Check, JsonRpcHttp } from './transport.js';

type GrpcModule = typeof import('@grpc/grpc-js');
type GrpcTypesModule = typeof import('a2a-types/v1.0/grpc');
type Client = import('@grpc/grpc-js').Client;
type Connected = {
  grpc: GrpcModule;
  types: GrpcTypesModule;
  client: Client;
  definitions: ReturnType<GrpcTypesModule['grpcClientDefinition']>;
};

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
  /** The request, in its JSON form (protobuf on the wire). */
  readonly request: unknown;
  readonly streaming: boolean;
}

/** How a gRPC call ended: its status code, the code's name, its message and trailers. */
export interface GrpcCallStatus {
  readonly code: number;
  readonly name: string;
  readonly details: string;
  readonly metadata: Record<string, string>;
}

export interface GrpcCallObserver {
  /** A message of the answer, in its JSON form: the one of a unary call, each of a stream. */
  message?(value: unknown): void;
  end?(status: GrpcCallStatus): void;
}

/** Calls one agent's gRPC interface. */
export class GrpcCalls {
  private client: Promise<Connected> | undefined;

  constructor(
    private readonly address: string,
    private readonly http: JsonRpcHttp,
    private readonly options: { headers: Record<string, string>; timeoutMs: number; hooks?: GrpcHooks },
  ) {}

  /** One unary call of `method` (its proto name), its answer held to `check`. */
  async unary(method: string, params: unknown, check: Check, call: CallOptions = {}): Promise<unknown> {
    const { grpc, types, client, definition } = await this.prepare(method);
    const metadata = this.metadata(grpc, call);
    const observer = this.observe(definition.path, metadata, params, false);
    const answer = await new Promise<unknown>((resolve, reject) => {
      const pending = client.makeUnaryRequest(
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        params as never,
        metadata,
        { deadline: Date.now() + (call.timeoutMs ?? this.options.timeoutMs) },
        (error, value) => {
          if (error) return reject(this.failure(grpc, types, error));
          observer?.message?.(value);
          resolve(value);
        },
      );
      if (observer?.end) pending.on('status', (status) => observer.end!(statusOf(grpc, status)));
      call.signal?.addEventListener('abort', () => pending.cancel(), { once: true });
    });
    this.http.hold(answer, check, `${method} result`);
    return answer;
  }

  /** One server-streaming call: its messages, each held to `check`, until the stream ends. */
  async *stream(method: string, params: unknown, check: Check, call: CallOptions = {}): AsyncGenerator<unknown> {
    const { grpc, types, client, definition } = await this.prepare(method);
    const metadata = this.metadata(grpc, call);
    const observer = this.observe(definition.path, metadata, params, true);
    const stream = client.makeServerStreamRequest(
      definition.path,
      definition.requestSerialize,
      definition.responseDeserialize,
      params as never,
      metadata,
    );
    if (observer?.end) stream.on('status', (status) => observer.end!(statusOf(grpc, status)));
    call.signal?.addEventListener('abort', () => stream.cancel(), { once: true });
    try {
      for await (const message of stream) {
        observer?.message?.(message);
        this.http.hold(message, check, 'stream event');
        yield message;
      }
    } catch (error) {
      throw this.failure(grpc, types, error as import('@grpc/grpc-js').ServiceError);
    } finally {
      stream.cancel();
    }
  }

  close(): void {
    void this.client?.then(({ client }) => client.close()).catch(() => undefined);
  }

  /** The channel, opened on the first call, and how `method` (its proto name) is called on it. */
  private async prepare(method: string) {
    const connected = await this.connect();
    return { ...connected, definition: connected.definitions[lowerFirst(method)]! };
  }

  private connect(): Promise<Connected> {
    this.client ??= (async () => {
      let grpc: GrpcModule;
      try {
        grpc = await import('@grpc/grpc-js');
      } catch (error) {
        throw new NetworkError('calling an agent over gRPC needs @grpc/grpc-js installed', { cause: error });
      }
      const types = await import('a2a-types/v1.0/grpc');
      const client = new grpc.Client(this.address, grpc.credentials.createInsecure());
      return { grpc, types, client, definitions: types.grpcClientDefinition() };
    })();
    return this.client;
  }

  private metadata(grpc: GrpcModule, call: CallOptions): import('@grpc/grpc-js').Metadata {
    const metadata = new grpc.Metadata();
    const entries = { ...this.options.headers, ...this.options.hooks?.metadata?.(), ...call.headers };
    for (const [name, value] of Object.entries(entries)) metadata.set(name.toLowerCase(), value);
    return metadata;
  }

  private observe(path: string, metadata: import('@grpc/grpc-js').Metadata, request: unknown, streaming: boolean) {
    return this.options.hooks?.observe?.({ address: this.address, path, metadata: textEntries(metadata), request, streaming });
  }

  /** A failed call as the client's errors say it: an A2A error by its reason, else the transport's. */
  private failure(grpc: GrpcModule, types: GrpcTypesModule, error: import('@grpc/grpc-js').ServiceError): Error {
    const [trailer] = (error.metadata?.get('grpc-status-details-bin') ?? []) as Buffer[];
    if (trailer) {
      const { message, details } = types.statusDetailsFromBinary(trailer);
      const reason = (details.find((detail) => detail['@type'] === ERROR_INFO_TYPE) as { reason?: string } | undefined)?.reason;
      return new JsonRpcError({
        code: codeOfReason10(reason) ?? -32603,
        message: message || error.details,
        data: details as ErrorDetail10[],
      });
    }
    if (error.code === grpc.status.DEADLINE_EXCEEDED) return new TimeoutError(`no gRPC answer in time from ${this.address}`);
    if (error.code === grpc.status.UNAVAILABLE) return new NetworkError(`${this.address}: ${error.details}`, { cause: error });
    return new JsonRpcError({ code: -32603, message: `gRPC ${grpc.status[error.code] ?? error.code}: ${error.details}` });
  }
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
