/**
 * TypeScript types for every object of the A2A protocol, version 0.1.0.
 *
 * They follow the specification text (section numbers in brackets), which is stricter than
 * the published JSON Schema in places; see `schema/SCHEMA-FIXES.md`.
 */

/** Free-form JSON metadata carried by most objects. */
export type Metadata = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Agent card [5.5]

/** [5.5.1] The organization behind an agent. */
export interface AgentProvider {
  organization: string;
  url?: string | null;
}

/** [5.5.2] Optional protocol features an agent supports. */
export interface AgentCapabilities {
  streaming?: boolean;
  pushNotifications?: boolean;
  stateTransitionHistory?: boolean;
}

/** [5.5.3] Authentication schemes required by the agent's endpoint. Never holds secrets. */
export interface AgentAuthentication {
  schemes: string[];
  credentials?: string | null;
}

/** [5.5.4] One skill the agent offers. */
export interface AgentSkill {
  id: string;
  name: string;
  description?: string | null;
  tags?: string[] | null;
  examples?: string[] | null;
  inputModes?: string[] | null;
  outputModes?: string[] | null;
}

/** [5.5] What an agent publishes at `/.well-known/agent.json`. */
export interface AgentCard {
  name: string;
  description?: string | null;
  url: string;
  provider?: AgentProvider | null;
  version: string;
  documentationUrl?: string | null;
  capabilities: AgentCapabilities;
  authentication?: AgentAuthentication | null;
  defaultInputModes?: string[];
  defaultOutputModes?: string[];
  skills: AgentSkill[];
}

// ---------------------------------------------------------------------------------------------
// Tasks, messages, parts, artifacts [6]

/** [6.3] The lifecycle states of a task. */
export type TaskState = 'submitted' | 'working' | 'input-required' | 'completed' | 'canceled' | 'failed' | 'unknown';

/** [6.5.1] */
export interface TextPart {
  type: 'text';
  text: string;
  metadata?: Metadata | null;
}

/** [6.6] A file's content or reference: at most one of `bytes` (base64) and `uri`. */
export interface FileContent {
  name?: string | null;
  mimeType?: string | null;
  bytes?: string | null;
  uri?: string | null;
}

/** [6.5.2] */
export interface FilePart {
  type: 'file';
  file: FileContent;
  metadata?: Metadata | null;
}

/** [6.5.3] `data` is a JSON object or array. */
export interface DataPart {
  type: 'data';
  data: Record<string, unknown> | unknown[];
  metadata?: Metadata | null;
}

/** [6.5] */
export type Part = TextPart | FilePart | DataPart;

/** [6.4] One turn of communication; always at least one part. */
export interface Message {
  role: 'user' | 'agent';
  parts: Part[];
  metadata?: Metadata | null;
}

/** [6.2] */
export interface TaskStatus {
  state: TaskState;
  message?: Message | null;
  /** ISO 8601, UTC. */
  timestamp?: string | null;
}

/** [6.7] An output of a task; `append`/`lastChunk` only matter in streaming events. */
export interface Artifact {
  name?: string | null;
  description?: string | null;
  parts: Part[];
  index?: number;
  append?: boolean | null;
  lastChunk?: boolean | null;
  metadata?: Metadata | null;
}

/** [6.1] */
export interface Task {
  id: string;
  sessionId?: string | null;
  status: TaskStatus;
  artifacts?: Artifact[] | null;
  /** Present only when the client asked for it with `historyLength`. Oldest first. */
  history?: Message[] | null;
  metadata?: Metadata | null;
}

/** [6.9] How the server authenticates itself to a client's webhook. */
export interface AuthenticationInfo {
  schemes: string[];
  credentials?: string | null;
  [extra: string]: unknown;
}

/** [6.8] */
export interface PushNotificationConfig {
  url: string;
  token?: string | null;
  authentication?: AuthenticationInfo | null;
}

/** [6.10] */
export interface TaskPushNotificationConfig {
  id: string;
  pushNotificationConfig: PushNotificationConfig | null;
}

// ---------------------------------------------------------------------------------------------
// Method parameters [7]

/** [7.1.1] Parameters of `tasks/send` and `tasks/sendSubscribe`. */
export interface TaskSendParams {
  id: string;
  sessionId?: string | null;
  message: Message;
  pushNotification?: PushNotificationConfig | null;
  historyLength?: number | null;
  metadata?: Metadata | null;
}

/** [7.3.1] Parameters of `tasks/get` and `tasks/resubscribe`. */
export interface TaskQueryParams {
  id: string;
  historyLength?: number | null;
  metadata?: Metadata | null;
}

/** [7.4.1] Parameters of `tasks/cancel` and `tasks/pushNotification/get`. */
export interface TaskIdParams {
  id: string;
  metadata?: Metadata | null;
}

/** [7.2.2] */
export interface TaskStatusUpdateEvent {
  id: string;
  status: TaskStatus;
  final?: boolean;
  metadata?: Metadata | null;
}

/** [7.2.3] */
export interface TaskArtifactUpdateEvent {
  id: string;
  artifact: Artifact;
  metadata?: Metadata | null;
}

/** Either event a stream carries. */
export type TaskEvent = TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

// ---------------------------------------------------------------------------------------------
// JSON-RPC 2.0 envelopes [6.11, 6.12]

/** A JSON-RPC id: a string, a number, or null (only when the request's id was unreadable). */
export type JSONRPCId = string | number | null;

/** [6.12] */
export interface JSONRPCError {
  code: number;
  message: string;
  data?: unknown;
}

/** [6.11.1] */
export interface JSONRPCRequest<M extends string = string, P = unknown> {
  jsonrpc: '2.0';
  id?: JSONRPCId;
  method: M;
  params?: P;
}

/** [6.11.2] A success. */
export interface JSONRPCSuccessResponse<R = unknown> {
  jsonrpc: '2.0';
  id: JSONRPCId;
  result: R;
}

/** [6.11.2] A failure. */
export interface JSONRPCErrorResponse {
  jsonrpc: '2.0';
  id: JSONRPCId;
  error: JSONRPCError;
}

/** [6.11.2] Exactly one of `result` and `error`. */
export type JSONRPCResponse<R = unknown> = JSONRPCSuccessResponse<R> | JSONRPCErrorResponse;

/** The method names of A2A 0.1.0 and their parameter and result types. */
export interface A2AMethods {
  'tasks/send': { params: TaskSendParams; result: Task };
  'tasks/sendSubscribe': { params: TaskSendParams; result: TaskEvent };
  'tasks/get': { params: TaskQueryParams; result: Task };
  'tasks/cancel': { params: TaskIdParams; result: Task };
  'tasks/pushNotification/set': {
    params: TaskPushNotificationConfig;
    result: TaskPushNotificationConfig;
  };
  'tasks/pushNotification/get': { params: TaskIdParams; result: TaskPushNotificationConfig };
  'tasks/resubscribe': { params: TaskQueryParams; result: TaskEvent };
}

export type A2AMethod = keyof A2AMethods;

/** Requests of every A2A method, discriminated by `method`. */
export type A2ARequest = {
  [M in A2AMethod]: JSONRPCRequest<M, A2AMethods[M]['params']>;
}[A2AMethod];

/** [7.2.1] One SSE `data:` payload of `tasks/sendSubscribe` and `tasks/resubscribe`. */
export type SendTaskStreamingResponse = JSONRPCSuccessResponse<TaskEvent> | JSONRPCErrorResponse;

/**
 * The body of one push notification as a2a-express sends it: one POST per status change of a
 * task. The 0.1.0 specification leaves the body to the agent; this is ours (see the README's
 * push notification section), typed here so that a receiver that uses only a2a-client or
 * a2a-push-receiver can name it.
 */
export interface PushNotificationPayload {
  eventType: 'taskStatusUpdate';
  taskId: string;
  sessionId: string | null | undefined;
  status: TaskStatus;
  /** True when the status ends the turn (completed, failed, canceled, input-required). */
  final: boolean;
  /** The event's id in the task's log, the SSE id: increases with every event of the task. */
  eventId: number;
}

/** The states after which a task does no more work. */
export const TERMINAL_STATES: readonly TaskState[] = ['completed', 'canceled', 'failed', 'unknown'];

/** The states that end one turn of a task: its stream sends `final: true` on them [7.2.2]. */
export const FINAL_STATES: readonly TaskState[] = [...TERMINAL_STATES, 'input-required'];

export function isTerminalState(state: TaskState): boolean {
  return TERMINAL_STATES.includes(state);
}

export function isFinalState(state: TaskState): boolean {
  return FINAL_STATES.includes(state);
}

export function isStatusUpdateEvent(event: TaskEvent): event is TaskStatusUpdateEvent {
  return 'status' in event;
}

export function isArtifactUpdateEvent(event: TaskEvent): event is TaskArtifactUpdateEvent {
  return 'artifact' in event;
}
