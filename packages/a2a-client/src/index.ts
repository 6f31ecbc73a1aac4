export { A2AClient, type A2AClientOptions, type CallOptions, type Departure, type StreamEvent } from './client.js';
export { A2AClient03, type StreamEvent03 } from './client-03.js';
export { A2AClient10, type A2AClient10Options, type Binding10, type StreamEvent10 } from './client-10.js';
export { type CardKeys, type CardSignatureCheck, type VerifyCardOptions, verifyCardSignature } from './card-signature.js';
export type { GrpcCallObserver, GrpcCallStart, GrpcCallStatus, GrpcHooks } from './grpc.js';
export { A2AClientError, HttpError, InvalidResponseError, JsonRpcError, NetworkError, NotAnAgentError, TimeoutError } from './errors.js';
export { readSse, type SseEvent } from './sse.js';
// Receiving push notifications, for an Express app that takes them.
export * from 'a2a-push-receiver';
