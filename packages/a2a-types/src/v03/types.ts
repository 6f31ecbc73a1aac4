/**
 * TypeScript types for the objects of the A2A protocol, version 0.3.0, that the kit serves beside
 * 0.1.0: what travels in its JSON-RPC binding. They follow the published 0.3.0 JSON Schema
 * (`schema/a2a-0.3.0.schema.json`, with the fixes in `schema/SCHEMA-FIXES.md`).
 */

export type Metadata = Record<string, unknown>;

/** The lifecycle states of a task; 0.3 adds `rejected` and `auth-required` to 0.1.0's. */
export type TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

export interface TextPart {
  kind: 'text';
  text: string;
  metadata?: Metadata;
}

export interface FileWithBytes {
  bytes: string;
  mimeType?: string;
  name?: string;
}

export interface FileWithUri {
  uri: string;
  mimeType?: string;
  name?: string;
}

export interface FilePart {
  kind: 'file';
  file: FileWithBytes | FileWithUri;
  metadata?: Metadata;
}

/** `data` is a JSON object (0.3 allows no bare array). */
export interface DataPart {
  kind: 'data';
  data: Record<string, unknown>;
  metadata?: Metadata;
}

export type Part = TextPart | FilePart | DataPart;

export interface Message {
  kind: 'message';
  messageId: string;
  role: 'user' | 'agent';
  parts: Part[];
  taskId?: string;
  contextId?: string;
  referenceTaskIds?: string[];
  extensions?: string[];
  metadata?: Metadata;
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp?: string;
}

export interface Artifact {
  artifactId: string;
  parts: Part[];
  name?: string;
  description?: string;
  extensions?: string[];
  metadata?: Metadata;
}

export interface Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: Metadata;
}

export interface TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: TaskStatus;
  final: boolean;
  metadata?: Metadata;
}

export interface TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

/** What one event of `message/stream` and `tasks/resubscribe` carries as its `result`. */
export type StreamResult = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

export interface PushNotificationAuthenticationInfo {
  schemes: string[];
  credentials?: string;
}

export interface PushNotificationConfig {
  url: string;
  id?: string;
  token?: string;
  authentication?: PushNotificationAuthenticationInfo;
}

export interface TaskPushNotificationConfig {
  taskId: string;
  pushNotificationConfig: PushNotificationConfig;
}

export interface MessageSendConfiguration {
  acceptedOutputModes?: string[];
  blocking?: boolean;
  historyLength?: number;
  pushNotificationConfig?: PushNotificationConfig;
}

/** Parameters of `message/send` and `message/stream`. */
export interface MessageSendParams {
  message: Message;
  configuration?: MessageSendConfiguration;
  metadata?: Metadata;
}

/** Parameters of `tasks/get`. */
export interface TaskQueryParams {
  id: string;
  historyLength?: number;
  metadata?: Metadata;
}

/** Parameters of `tasks/cancel`, `tasks/resubscribe` and `tasks/pushNotificationConfig/list`. */
export interface TaskIdParams {
  id: string;
  metadata?: Metadata;
}

export interface GetTaskPushNotificationConfigParams {
  id: string;
  pushNotificationConfigId?: string;
  metadata?: Metadata;
}

export interface DeleteTaskPushNotificationConfigParams {
  id: string;
  pushNotificationConfigId: string;
  metadata?: Metadata;
}

export type TransportProtocol = 'JSONRPC' | 'GRPC' | 'HTTP+JSON' | (string & {});

export interface AgentInterface {
  url: string;
  transport: TransportProtocol;
}

export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
  extensions?: { uri: string; description?: string; required?: boolean; params?: Metadata }[];
}

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  security?: Record<string, string[]>[];
}

/** The 0.3 agent card, served at `/.well-known/agent-card.json`. */
export interface AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport?: TransportProtocol;
  additionalInterfaces?: AgentInterface[];
  version: string;
  capabilities: AgentCapabilities;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  securitySchemes?: Record<string, Record<string, unknown>>;
  security?: Record<string, string[]>[];
  supportsAuthenticatedExtendedCard?: boolean;
  [extra: string]: unknown;
}

/** The 0.3 JSON-RPC method names. */
export type A2AMethod03 =
  | 'message/send'
  | 'message/stream'
  | 'tasks/get'
  | 'tasks/cancel'
  | 'tasks/resubscribe'
  | 'tasks/pushNotificationConfig/set'
  | 'tasks/pushNotificationConfig/get'
  | 'tasks/pushNotificationConfig/list'
  | 'tasks/pushNotificationConfig/delete'
  | 'agent/getAuthenticatedExtendedCard';

/**
 * Error codes whose meaning 0.3 changed or added: -32006 and -32007 mean something else in 0.3
 * than in 0.1.0 (there: streaming not supported, authentication required).
 */
export const ErrorCode03 = {
  InvalidAgentResponse: -32006,
  AuthenticatedExtendedCardNotConfigured: -32007,
} as const;
