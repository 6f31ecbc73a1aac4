// The A2A 1.0 objects as they travel in JSON (the ProtoJSON form of the 1.0 proto, `lf.a2a.v1`):
// camelCase field names, enums by their full names, a `oneof` as the one field that is set.
// Requests are normalized to this form before they are checked (see `normalizeProtoJson`): a
// snake_case field name, an int32 sent as a string and an enum sent as its number are read as the
// proto allows.

export type Metadata = Record<string, unknown>;

export type Role = 'ROLE_USER' | 'ROLE_AGENT';

export type TaskState =
  | 'TASK_STATE_UNSPECIFIED'
  | 'TASK_STATE_SUBMITTED'
  | 'TASK_STATE_WORKING'
  | 'TASK_STATE_COMPLETED'
  | 'TASK_STATE_FAILED'
  | 'TASK_STATE_CANCELED'
  | 'TASK_STATE_INPUT_REQUIRED'
  | 'TASK_STATE_REJECTED'
  | 'TASK_STATE_AUTH_REQUIRED';

interface PartCommon {
  metadata?: Metadata;
  filename?: string;
  mediaType?: string;
}

/** Exactly one of `text`, `raw` (base64), `url` and `data` (any JSON value). */
export type Part =
  | (PartCommon & { text: string })
  | (PartCommon & { raw: string })
  | (PartCommon & { url: string })
  | (PartCommon & { data: unknown });

export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: Metadata;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  /** RFC 3339, UTC (`Z`). */
  timestamp?: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Metadata;
  extensions?: string[];
}

export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: Metadata;
}

export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: Metadata;
}

export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Metadata;
}

/** One event of a stream, one push notification: exactly one of its fields. */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** The answer of `SendMessage`: the task, or a message that is the whole answer. */
export type SendMessageResponse = { task: Task } | { message: Message };

export interface AuthenticationInfo {
  /** An HTTP authentication scheme (`Bearer`, `Basic`, ...). */
  scheme: string;
  credentials?: string;
}

/** A webhook of a task: flat in 1.0 (no nested `pushNotificationConfig`). */
export interface TaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
}

export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: TaskPushNotificationConfig;
  historyLength?: number;
  /** Answer once the task exists rather than when it ends or waits for input. Default false. */
  returnImmediately?: boolean;
}

export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: Metadata;
}

export interface GetTaskRequest {
  tenant?: string;
  id: string;
  historyLength?: number;
}

export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

export interface ListTasksResponse {
  tasks: Task[];
  /** Empty on the last page; always present. */
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

export interface CancelTaskRequest {
  tenant?: string;
  id: string;
  metadata?: Metadata;
}

export interface SubscribeToTaskRequest {
  tenant?: string;
  id: string;
}

export interface GetTaskPushNotificationConfigRequest {
  tenant?: string;
  taskId: string;
  id: string;
}

export type DeleteTaskPushNotificationConfigRequest = GetTaskPushNotificationConfigRequest;

export interface ListTaskPushNotificationConfigsRequest {
  tenant?: string;
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

export interface ListTaskPushNotificationConfigsResponse {
  configs: TaskPushNotificationConfig[];
  nextPageToken?: string;
}

export interface GetExtendedAgentCardRequest {
  tenant?: string;
}

/** `JSONRPC` and `HTTP+JSON` are the bindings this kit serves; `GRPC` is the third core one. */
export interface AgentInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

export interface AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: Metadata;
}

export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  extensions?: AgentExtension[];
  extendedAgentCard?: boolean;
}

export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  securityRequirements?: SecurityRequirement[];
}

/** Scheme name → the scopes it needs (`{ list: [...] }`). */
export interface SecurityRequirement {
  schemes: Record<string, { list?: string[] }>;
}

/** One of the scheme kinds, as the field that names it (`httpAuthSecurityScheme`, ...). */
export type SecurityScheme =
  | { apiKeySecurityScheme: { description?: string; location: string; name: string } }
  | { httpAuthSecurityScheme: { description?: string; scheme: string; bearerFormat?: string } }
  | { oauth2SecurityScheme: { description?: string; flows: Metadata; oauth2MetadataUrl?: string } }
  | { openIdConnectSecurityScheme: { description?: string; openIdConnectUrl: string } }
  | { mtlsSecurityScheme: { description?: string } };

export interface AgentCard {
  name: string;
  description: string;
  supportedInterfaces: AgentInterface[];
  provider?: { url: string; organization: string };
  version: string;
  documentationUrl?: string;
  capabilities: AgentCapabilities;
  securitySchemes?: Record<string, SecurityScheme>;
  securityRequirements?: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  signatures?: { protected: string; signature: string; header?: Metadata }[];
  iconUrl?: string;
}
