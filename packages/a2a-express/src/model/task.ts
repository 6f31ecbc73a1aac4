// The kit's own task model: what the core, the stores and push delivery speak, whichever version
// a client speaks. It holds everything the newest version can say: context ids, message and
// artifact ids, every state (`rejected` and `auth-required` too), a message as the whole answer,
// several push configs per task. Each version maps it to its wire (versions/<v>/), the oldest
// with the most faithful mapping it allows (docs/architecture.md).
//
// Messages, parts and artifacts keep the handler API's shapes (a part's kind is its `type`, as
// the helpers make it); a message keeps the ids the newer versions give it (`messageId`,
// `contextId`, `taskId`, `referenceTaskIds`, `extensions`) where a client sent them. Tasks,
// statuses and events are declared here.
import type * as handlerShapes from 'a2a-types/model';
import type { Artifact, Metadata, PushNotificationConfig } from 'a2a-types/model';

export type { Artifact, Metadata, Part } from 'a2a-types/model';

/** A message: its role and parts, and the ids the newer versions give it, where a client sent them. */
export interface Message extends handlerShapes.Message {
  /** Unique per message, from its sender (0.3, 1.0). A message without one is given one as each version shows it. */
  messageId?: string;
  /** The context the sender meant it for. */
  contextId?: string;
  /** The task the sender meant it for. */
  taskId?: string;
  /** Other tasks it refers to. */
  referenceTaskIds?: string[];
  /** URIs of the extensions it uses. */
  extensions?: string[];
}

/** Every state a task can be in. */
export type TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'auth-required'
  | 'completed'
  | 'canceled'
  | 'failed'
  | 'rejected'
  | 'unknown';

/** States after which a task takes no more work (nothing to cancel). */
const TERMINAL: ReadonlySet<TaskState> = new Set(['completed', 'canceled', 'failed', 'rejected', 'unknown']);
/** States that end a turn: the terminal ones, and those that wait for the client. */
const FINAL: ReadonlySet<TaskState> = new Set([...TERMINAL, 'input-required', 'auth-required']);

/** The states that end a turn, as a list. */
export const FINAL_STATES: readonly TaskState[] = [...FINAL];

export const isTerminalState = (state: TaskState): boolean => TERMINAL.has(state);
export const isFinalState = (state: TaskState): boolean => FINAL.has(state);

export interface TaskStatus {
  state: TaskState;
  message?: Message | null;
  /** ISO 8601, UTC. */
  timestamp?: string | null;
}

/** A task as the core keeps it, without its history (kept apart so it can be sliced). */
export interface Task {
  id: string;
  /** The conversation the task belongs to: 0.1.0's `sessionId`, 0.3's and 1.0's `contextId`. */
  contextId: string;
  status: TaskStatus;
  /** The artifacts, each at its `index` (the kit's artifact id: 0.3 and 1.0 show `artifact-<index>`). */
  artifacts?: Artifact[] | null;
  metadata?: Metadata | null;
}

export interface TaskStatusUpdateEvent {
  /** The task's id. */
  id: string;
  status: TaskStatus;
  /** Whether the event ends the turn (its state is final): what ends a stream. */
  final?: boolean;
  /**
   * The status message is the whole answer, and no task is shown: a handler's `reply`. Versions
   * that can say so (0.3, 1.0) answer with the message alone; 0.1.0 sees a completed task.
   */
  reply?: boolean;
  metadata?: Metadata | null;
}

export interface TaskArtifactUpdateEvent {
  /** The task's id. */
  id: string;
  /** The artifact or chunk; `index` says which, `append` and `lastChunk` how it streams. */
  artifact: Artifact;
  metadata?: Metadata | null;
}

export type TaskEvent = TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

export const isStatusUpdateEvent = (event: TaskEvent): event is TaskStatusUpdateEvent => 'status' in event;

/**
 * A push config as the core keeps it: its `id`, unique within its task (a task has several), and
 * the protocol version it was set over, whose body its webhook gets.
 */
export interface StoredPushConfig extends PushNotificationConfig {
  id: string;
  /** The `name` of the protocol version the config was set over (`ProtocolVersion`). */
  protocol: string;
}

/** Most push configs one task keeps. */
export const MAX_PUSH_CONFIGS_PER_TASK = 10;
