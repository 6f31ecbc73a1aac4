/**
 * TypeScript types for every object of the A2A protocol, version 0.1.0.
 *
 * They follow the specification text (section numbers in brackets), which is stricter than
 * the published JSON Schema in places; see `schema/SCHEMA-FIXES.md`. The card, messages, parts,
 * artifacts and push configs are the shapes agents write (./model/shapes.ts), whatever version
 * their clients speak: 0.1.0's wire has them as they are.
 */
import type { Artifact, Message, Metadata, PushNotificationConfig } from './model/shapes.js';

export type * from './model/shapes.js';

// ---------------------------------------------------------------------------------------------
// Agent card [5.5]

// ---------------------------------------------------------------------------------------------
// Tasks, messages, parts, artifacts [6]

/** [6.3] The lifecycle states of a task. */
export type TaskState = 'submitted' | 'working' | 'input-required' | 'completed' | 'canceled' | 'failed' | 'unknown';

/** [6.2] */
export interface TaskStatus {
  state: TaskState;
  message?: Message | null;
  /** ISO 8601, UTC. */
  timestamp?: string | null;
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
