// The client's main entry: every version and binding but gRPC, and nothing that needs Node, so
// that a web page bundles it. Node's parts have subpaths of their own: `a2a-client/grpc` (gRPC,
// with TLS), `a2a-client/tls` (HTTPS with a CA and a client certificate),
// `a2a-client/push-receiver` (the push notification verifier), `a2a-client/check`,
// `a2a-client/inspector`, and the `a2a` command line.
export { A2AClient, type A2AClientOptions, type CallOptions, type Departure, type StreamEvent } from './client.js';
export { A2AClient03, type A2AClient03Options, type Binding03, type StreamEvent03 } from './client-03.js';
export { A2AClient10, type A2AClient10Options, type Binding10, type StreamEvent10 } from './client-10.js';
export { type CardKeys, type CardSignatureCheck, type VerifyCardOptions, verifyCardSignature } from './card-signature.js';
export type { GrpcCallObserver, GrpcCallStart, GrpcCallStatus, GrpcHooks, GrpcTransport } from './grpc.js';
export type { CallBinding, CallOutcome, InterceptedCall, Interceptor, ProtocolVersion, StreamOutcome } from './interceptors.js';
export { A2AClientError, HttpError, InvalidResponseError, JsonRpcError, NetworkError, NotAnAgentError, TimeoutError } from './errors.js';
export {
  type CardScheme,
  type ClientCredentials,
  type CredentialFunction,
  type CredentialRequest,
  type Credentials,
  MutualTlsRequiredError,
  OAuthTokenError,
} from './credentials.js';
export type { RetryOptions } from './retries.js';
export { readSse, type SseEvent } from './sse.js';
