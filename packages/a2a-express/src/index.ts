// a2a-express: what an agent author needs. Stores are in 'a2a-express/store' and
// 'a2a-express/redis', the environment helpers of the samples in 'a2a-express/env'.
export { a2aRouter, SHUTDOWN_MESSAGE, type A2ARouter, type DrainReport, type ServedAgent, type ServedVersionPath } from './router.js';
export { a2aAgent, type A2AAgentOptions } from './agent.js';
export type { A2ARouterOptions, AgentCardInput, CorsOptions } from './options.js';
export type {
  AgentCard03Input,
  AgentCard10Input,
  ExtendedCardOption,
  Protocol03Options,
  Protocol10Options,
  VersionOptions,
} from './versions/index.js';
export type { InspectorOptions } from './inspector.js';
export type { StreamEventIds } from './transports/sse.js';
export {
  apiKey,
  AuthenticationError,
  bearerJwt,
  customAuth,
  headerOf,
  type ApiKeyOptions,
  type AuthOptions,
  type AuthorizeHook,
  type AuthorizeRequest,
  type AuthRequest,
  type AuthStrategy,
  type BearerJwtOptions,
  type DeclaredScheme,
  type OAuthFlowsOption,
  type Principal,
} from './core/auth.js';
export { oauth2Bearer, oidcBearer, requireScopes, scopesOf, type OAuth2BearerOptions, type OidcBearerOptions } from './core/oauth.js';
export type { CallHeaders, CallOrigin } from './core/call.js';
export type {
  CreatePushConfigParams,
  GetTaskParams,
  ListTasksParams,
  OperationName,
  OperationParams,
  PushConfigInput,
  PushConfigRef,
  SendMessageParams,
  TaskIdParams,
} from './core/operations.js';
export {
  agentMessage,
  artifact,
  authRequired,
  completed,
  dataPart,
  failed,
  filePart,
  inputRequired,
  rejected,
  reply,
  textOf,
  textPart,
  withCheckpoint,
  working,
  type ArtifactOptions,
  type ArtifactUpdate,
  type HandlerState,
  type MessageContent,
  type MessageReply,
  type StatusUpdate,
  type TaskContext,
  type TaskHandler,
  type TaskUpdate,
  type TaskView,
  type TurnResumed,
} from './core/handler.js';
export type { JsonValue } from './model/plain-json.js';
export type { TaskStore } from './store/task-store.js';
export type { PushNotificationOptions } from './push/push-notifier.js';
export type { SigningKeyInput } from './push/signer.js';
export type { ResolvedAddress, Resolver } from './push/url-guard.js';
export { serveAgent, type ServeOptions } from './serve.js';
export {
  A2AMetrics,
  a2aMetrics,
  type A2AMetricsOptions,
  type BindingName,
  type PushOutcome,
  type StoreMetrics,
} from './telemetry/metrics.js';
export type { HealthEndpoints, ReadinessReport } from './telemetry/health.js';
export { requestedExporters, startTracingFromEnv, TRACING_PACKAGES, type TracingSdk } from './telemetry/sdk.js';
// The protocol's types, and the error a handler throws, so that an agent needs one import.
export { A2AError, ErrorCode } from 'a2a-types';
export type * from 'a2a-types';
