// Agents served over HTTP (every version) and gRPC at once, and a client of their gRPC service, for
// the tests that check one behaviour over every binding. Loopback only; `close` lets go of all.
import * as grpc from '@grpc/grpc-js';
import { serverPool } from 'a2a-testing';
import { grpcClientDefinition, statusDetailsFromBinary } from 'a2a-types/v1.0/grpc';
import type { TaskHandler } from '../src/index.js';
import { serveGrpc, type A2AGrpcServer, type GrpcServerOptions } from '../src/grpc.js';
import { appWith } from './helpers.js';

type Json = Record<string, unknown>;
export type GrpcClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

const A2AClientConstructor = grpc.makeGenericClientConstructor(grpcClientDefinition() as grpc.ServiceDefinition, 'A2AService');

/** Starts agents and remembers what to close: call `close` in `afterAll`. */
export function grpcAgents() {
  const { serve, closeAll } = serverPool();
  const servers: A2AGrpcServer[] = [];
  const clients: grpc.Client[] = [];
  /** A client of the gRPC server at `address` on a connection of its own (grpc-js would share one between clients). */
  const client = (address: string): GrpcClient => {
    const made = new A2AClientConstructor(address, grpc.credentials.createInsecure(), {
      'grpc.use_local_subchannel_pool': 1,
    }) as GrpcClient;
    clients.push(made);
    return made;
  };
  return {
    serve,
    /** The agent of `handler`, over HTTP at `url` and over gRPC at `address` through `client`. */
    async agent(handler: TaskHandler, options: Parameters<typeof appWith>[1] = {}, grpcOptions: GrpcServerOptions = {}) {
      const { app, router } = appWith(handler, options);
      const http = await serve(app);
      const server = await serveGrpc(router, { port: 0, agentUrl: http.url, ...grpcOptions });
      servers.push(server);
      return { url: http.url, client: client(server.address), router, address: server.address };
    },
    client,
    async close() {
      for (const client of clients) client.close();
      await Promise.all(servers.map((server) => server.close({ graceMs: 100 })));
      await closeAll();
    },
  };
}

/** A unary gRPC call with `metadata`: the answer or the error, and the response's initial metadata. */
export function unary(
  client: GrpcClient,
  method: string,
  request: Json,
  metadata: Record<string, string>,
): Promise<{ value?: Json; error?: grpc.ServiceError; headers: grpc.Metadata }> {
  return new Promise((resolve) => {
    const md = new grpc.Metadata();
    for (const [key, value] of Object.entries(metadata)) md.set(key, value);
    let headers = new grpc.Metadata();
    const call = client[method]!(request, md, (error: grpc.ServiceError | null, value: Json) =>
      resolve(error ? { error, headers } : { value, headers }),
    ) as grpc.ClientUnaryCall;
    call.on('metadata', (received: grpc.Metadata) => (headers = received));
  });
}

/** The `google.rpc.ErrorInfo` of a gRPC error's status details. */
export function errorInfoOf(error: grpc.ServiceError): Json | undefined {
  const [bytes] = error.metadata.get('grpc-status-details-bin') as Buffer[];
  return bytes && (statusDetailsFromBinary(bytes).details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') as Json);
}
