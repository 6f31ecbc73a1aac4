// a2a-express/grpc: serves an agent over gRPC, A2A 1.0's third binding (spec 1.0 10,
// `lf.a2a.v1.A2AService`) and 0.3's (`a2a.v1.A2AService`), both on one port of its own, beside its
// HTTP server or without one: the same handler, tasks, store, auth, ownership and
// bounds, each call through the same method runner as JSON-RPC and HTTP+JSON. With it come
// what gRPC users expect of a server: the standard health service (grpc.health.v1) and server
// reflection (so grpcurl and grpcui list and call it without the proto), message size limits in
// line with the router's body limit, keepalive, TLS when given a key and certificate, and a
// graceful shutdown. The 1.0 and 0.3 cards list the server as a `GRPC` interface while it runs.
// @grpc/grpc-js, @grpc/reflection and grpc-health-check are optional peer dependencies: an
// agent that serves no gRPC installs and loads none of them.
import { Server, ServerCredentials, type ChannelOptions } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, service as healthService } from 'grpc-health-check';
import { agentCoreOf, type ServedAgent } from './served-agent.js';
import type { ListedInterface } from './protocol/version.js';
import type { GrpcServerHandle, GrpcServerOptions } from './grpc-options.js';

export type { GrpcServerHandle, GrpcServerOptions } from './grpc-options.js';
import { grpcService } from './transports/grpc.js';

/** A running gRPC server of an agent. */
export interface A2AGrpcServer extends GrpcServerHandle {
  readonly server: Server;
}

const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const DEFAULT_MAX_CONCURRENT_STREAMS = 100;
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);

/**
 * The address a card served at `mountUrl` lists for a gRPC server on `host`:`port`: the one it was
 * told to advertise, else where it listens. Listening on every address (a container's 0.0.0.0),
 * it has no address of its own to list: the card names the host its client fetched it from.
 */
export function listedGrpcAddress(host: string, port: number, advertised: string | undefined, mountUrl: string): string {
  if (advertised !== undefined) return advertised;
  if (WILDCARD_HOSTS.has(host)) return `${new URL(mountUrl).hostname}:${port}`;
  return hostPort(host, port);
}

/** How far past `maxMessageBytes` a request message is still read, to be refused by the entry. */
const OVERSIZE_READ_BYTES = 64 * 1024;

/** `host:port` as gRPC addresses are written: an IPv6 host in brackets. */
function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Starts serving an agent over gRPC; resolves once it listens. The agent is any handle of one: an
 * Express router, a node:http listener, a fetch handler, or, for an agent served over gRPC alone,
 * `a2aAgent(handler, options)`, with no HTTP server at all.
 */
export async function serveGrpc(agent: ServedAgent, options: GrpcServerOptions = {}): Promise<A2AGrpcServer> {
  const core = agentCoreOf(agent);
  const {
    host = '127.0.0.1',
    port = 50051,
    maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
    maxConcurrentStreams = DEFAULT_MAX_CONCURRENT_STREAMS,
  } = options;
  if (!Number.isSafeInteger(maxConcurrentStreams) || maxConcurrentStreams < 1) {
    throw new TypeError(`serveGrpc: maxConcurrentStreams must be a positive whole number, got ${String(maxConcurrentStreams)}`);
  }
  const server = new Server({
    // A message a little past the limit is read, so that its refusal goes through the call entry
    // (logged, counted, traced); grpc-js cuts one further past it by itself.
    'grpc.max_receive_message_length': maxMessageBytes + OVERSIZE_READ_BYTES,
    'grpc.max_send_message_length': maxMessageBytes,
    'grpc.keepalive_time_ms': options.keepalive?.timeMs ?? 2 * 60 * 60 * 1000,
    'grpc.keepalive_timeout_ms': options.keepalive?.timeoutMs ?? 20_000,
    // HTTP/2 lets a client open as many streams on a connection as the server allows, and
    // without this setting that is unlimited: each holds its call's memory.
    'grpc.max_concurrent_streams': maxConcurrentStreams,
    // grpc-js counts every call and socket for channelz unless told not to: work on each call for a
    // channelz service this server does not serve.
    'grpc.enable_channelz': options.channelz ? 1 : 0,
  } satisfies ChannelOptions);
  const served: string[] = [];
  /** What reflection lists and describes: each service served, by its full name. */
  const reflected: Record<string, { fileDescriptorProtos: Buffer[] }> = {
    'grpc.health.v1.Health': { fileDescriptorProtos: Object.values(healthService)[0]!.requestType.fileDescriptorProtos },
  };
  const listed: ListedInterface[] = [];
  for (const endpoint of core.endpoints) {
    if (!endpoint.grpc) continue;
    const binding = await endpoint.grpc();
    const { extendedCard } = endpoint;
    const { definition, implementation } = grpcService({
      binding,
      runner: endpoint.runner,
      entry: endpoint.entry,
      logger: core.logger,
      protocol: endpoint.version.name,
      extendedCardFor: extendedCard && ((principal) => extendedCard(core.agentCard(options.agentUrl), principal)),
      metrics: core.options.metrics,
      maxMessageBytes,
      maxJsonDepth: core.options.maxJsonDepth,
      maxStreamQueueBytes: core.options.maxStreamQueueBytes,
      heartbeatMs: core.options.heartbeatMs,
    });
    server.addService(definition, implementation);
    reflected[binding.serviceName] = { fileDescriptorProtos: binding.fileDescriptors() };
    served.push(binding.serviceName);
    listed.push({ url: '', protocolBinding: 'GRPC', protocolVersion: binding.protocolVersion });
  }
  if (served.length === 0) {
    server.forceShutdown();
    throw new TypeError(
      'serveGrpc: no version the router serves has a gRPC binding (A2A 1.0 and 0.3 have: protocol10 and protocol03 are off)',
    );
  }
  const health = new HealthImplementation(Object.fromEntries([['', 'SERVING'], ...served.map((name) => [name, 'SERVING'])]));
  health.addToServer(server);
  // Reflection reads only each service's file descriptors (its proto and every file it imports).
  new ReflectionService(reflected as ConstructorParameters<typeof ReflectionService>[0]).addToServer(server);

  const credentials = options.tls
    ? ServerCredentials.createSsl(
        options.tls.ca === undefined ? null : Buffer.from(options.tls.ca),
        [{ private_key: Buffer.from(options.tls.key), cert_chain: Buffer.from(options.tls.cert) }],
        options.tls.ca !== undefined,
      )
    : ServerCredentials.createInsecure();
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(hostPort(host, port), credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  const address = options.advertisedAddress ?? hostPort(host, boundPort);
  const unlist = listed.map((entry) =>
    core.listInterface((mountUrl) => ({ ...entry, url: listedGrpcAddress(host, boundPort, options.advertisedAddress, mountUrl) })),
  );
  core.logger.info({ address, services: served, tls: options.tls !== undefined }, 'gRPC listening');

  return {
    server,
    port: boundPort,
    address,
    async close({ graceMs = 10_000 } = {}) {
      for (const off of unlist) off();
      for (const name of ['', ...served]) health.setStatus(name, 'NOT_SERVING');
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => resolve());
      });
      clearTimeout(timer);
    },
  };
}
