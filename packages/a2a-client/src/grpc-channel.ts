// A gRPC channel's TLS, for the transport and the checker's prober. A module of its own because
// its declarations name @grpc/grpc-js's types: in grpc.ts they made the main entry's types (which
// re-export grpc.ts's) need @grpc/grpc-js, and a client-only project without it failed to compile.
type GrpcModule = typeof import('@grpc/grpc-js');

/** What a channel's TLS is made of (grpc.ts's `GrpcTlsOptions`). */
interface ChannelTls {
  ca?: string | Uint8Array;
  cert?: string | Uint8Array;
  key?: string | Uint8Array;
  serverName?: string;
}

/** A channel's credentials: plaintext without `tls`, else TLS with its CA (or the system's roots) and client certificate. */
export function channelCredentials(grpc: GrpcModule, tls: ChannelTls | undefined): import('@grpc/grpc-js').ChannelCredentials {
  if (!tls) return grpc.credentials.createInsecure();
  const bytes = (pem: string | Uint8Array | undefined) => (pem === undefined ? null : Buffer.from(pem));
  return grpc.credentials.createSsl(bytes(tls.ca), bytes(tls.key), bytes(tls.cert));
}

/** The channel options that hold the server's certificate to `tls.serverName`, when given. */
export function serverNameOptions(tls: ChannelTls | undefined): Record<string, string> {
  if (tls?.serverName === undefined) return {};
  return { 'grpc.ssl_target_name_override': tls.serverName, 'grpc.default_authority': tls.serverName };
}
