// The options of the gRPC server (`a2a-express/grpc`) and what serveAgent holds of one, apart
// from it: their types name nothing of @grpc/grpc-js, so that an app that serves no gRPC (and
// has none installed) compiles `serveAgent`'s types with skipLibCheck off.

export interface GrpcServerOptions {
  /** The port to listen on; 0 for any free one. Default 50051. */
  port?: number;
  /** The address to listen on. Default `127.0.0.1`: plaintext stays on this machine unless asked. */
  host?: string;
  /** Serve over TLS with this key and certificate (PEM); `ca` asks clients for certificates it signed. Default: plaintext. */
  tls?: { key: string | Buffer; cert: string | Buffer; ca?: string | Buffer };
  /**
   * The address the agent card lists for gRPC (`host:port`, as gRPC clients dial it). Default the
   * one the server listens on; listening on every address (`0.0.0.0`, `::`, as in a container),
   * the host the card was fetched from, with the gRPC port. Behind a proxy or a load balancer
   * that moves the port, the address clients reach.
   */
  advertisedAddress?: string;
  /** The URL of the router's mount: what the extended card (GetExtendedAgentCard) names. Default the card's own `url`. */
  agentUrl?: string;
  /** Largest message received or sent, bytes. Default 10 MiB (the router's default body limit). */
  maxMessageBytes?: number;
  /**
   * Most calls (streams and unary calls alike) one connection has under way at once, as HTTP/2's
   * SETTINGS_MAX_CONCURRENT_STREAMS: a client's further calls wait for one to end. Default 100.
   */
  maxConcurrentStreams?: number;
  /** Keepalive pings on idle connections, milliseconds between them and to wait for the answer. Default 2 hours and 20 seconds (gRPC's). */
  keepalive?: { timeMs?: number; timeoutMs?: number };
  /**
   * Keep grpc-js's channelz counts of calls and sockets, for a channelz service the app registers
   * on `A2AGrpcServer.server` itself. Default off: they cost every call.
   */
  channelz?: boolean;
}

/** A running gRPC server of an agent, as serveAgent sees it (its grpc-js `Server` is on `A2AGrpcServer`). */
export interface GrpcServerHandle {
  /** The port it listens on (the one it got, for port 0). */
  readonly port: number;
  /** The address the agent card lists (`host:port`). */
  readonly address: string;
  /**
   * Stops it: health says NOT_SERVING, no new call is taken, the calls under way get until
   * `graceMs` (default 10,000) to finish, then the rest are cut. The card stops listing it.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}
