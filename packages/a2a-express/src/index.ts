export { a2aRouter, SHUTDOWN_MESSAGE, type A2ARouter, type DrainReport } from './router.js';
export type { A2ARouterOptions, AgentCardInput } from './options.js';
export { EVENT_IDS_PREFERENCE, type StreamEventIds } from './sse.js';
export {
  apiKey,
  AuthenticationError,
  bearerJwt,
  customAuth,
  type ApiKeyOptions,
  type AuthOptions,
  type AuthorizeHook,
  type AuthStrategy,
  type BearerJwtOptions,
  type Principal,
} from './auth.js';
export {
  agentMessage,
  artifact,
  completed,
  dataPart,
  failed,
  filePart,
  inputRequired,
  textOf,
  textPart,
  working,
  type ArtifactOptions,
  type ArtifactUpdate,
  type HandlerState,
  type MessageContent,
  type StatusUpdate,
  type TaskContext,
  type TaskHandler,
  type TaskUpdate,
} from './handler.js';
export {
  InMemoryTaskStore,
  isSharedTaskStore,
  type EventListener,
  type SharedTaskStore,
  type TurnEnded,
  type InMemoryTaskStoreOptions,
  type StoredEvent,
  type TaskChange,
  type TaskRecord,
  type TaskStore,
  type TaskUpdateResult,
} from './task-store.js';
export { applyEvents, mergeArtifact, taskSnapshot } from './task-state.js';
export {
  MASKED,
  maskSecrets,
  type PushNotificationOptions,
} from './push/push-notifier.js';
export type { SigningKeyInput } from './push/signer.js';
// RedisTaskStore and taskStoreFromEnv: import them from 'a2a-express/redis'.
export { authOptionsFromEnv, integerFromEnv, pushNotificationOptionsFromEnv } from './env.js';
export { serveAgent, type ServeOptions } from './serve.js';
export { isPublicAddress, type Resolver } from './push/url-guard.js';
// The protocol's types and errors, so that an agent needs one import.
export * from 'a2a-types';
