// The operations the core performs, named as A2A 1.0 names them and with params in the core's
// model: what every version and binding is translated into, and what the `authorize` hook is
// shown, so that one rule written in 1.0's words holds on every version and binding.
import type { Message, Metadata, StoredPushConfig, TaskState } from '../model/task.js';
import type { TaskListCursor } from '../store/task-store.js';

export type OperationName =
  | 'SendMessage'
  | 'SendStreamingMessage'
  | 'GetTask'
  | 'ListTasks'
  | 'CancelTask'
  | 'SubscribeToTask'
  | 'CreateTaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfig'
  | 'ListTaskPushNotificationConfigs'
  | 'DeleteTaskPushNotificationConfig'
  | 'GetExtendedAgentCard';

/** How a message may start a turn; by default it creates the task it names when there is none. */
export interface TurnRules {
  /** Refuse (-32001) a message to a task that does not exist, instead of creating it. Default false. */
  readonly existingTaskOnly?: boolean;
  /**
   * Refuse (-32009) a message to a completed task, instead of reopening it: for a version whose
   * spec makes every completed task terminal (1.0 3.1.1). Default false.
   */
  readonly completedIsTerminal?: boolean;
}

/** A push config as a client sends it; one sent with a message without an id is the task's own (its id the task's). */
export type PushConfigInput = Omit<StoredPushConfig, 'id'> & { id?: string };

/** SendMessage and SendStreamingMessage: 1.0's `SendMessageRequest` in the core's model. */
export interface SendMessageParams {
  /**
   * The message, as its sender wrote it. Its `taskId` names the task it continues (none: a new
   * task, with an id the agent makes), its `contextId` the context.
   */
  message: Message;
  /**
   * The task, named by the request beside its message, as A2A 0.1.0 does (`id`, `sessionId`): a
   * task of that id is created when there is none. Read before the message's own ids.
   */
  task?: { id: string; contextId?: string };
  configuration?: {
    /** The media types the client takes in the answer's parts (1.0 and 0.3; 0.1.0 has no way to say). */
    acceptedOutputModes?: string[];
    taskPushNotificationConfig?: PushConfigInput;
    /** How many of the task's newest messages the answer shows. */
    historyLength?: number;
    /** Answer as soon as the turn has started, with the task `working` (0.3's `blocking: false`). */
    returnImmediately?: boolean;
  };
  metadata?: Metadata;
}

export interface GetTaskParams {
  id: string;
  historyLength?: number;
}

export interface TaskIdParams {
  id: string;
}

/** SubscribeToTask: the task, and what its stream opens with. */
export interface SubscribeParams {
  id: string;
  /**
   * `'task'`: the task as it stands, then its updates until a turn's final one; a task with no
   * more updates is refused (1.0). `'replay'`: the task's events from its log, the task's status
   * first, and a task whose turn is over gets its final event (0.1.0's and 0.3's resubscribe).
   * A call that names a `Last-Event-ID` replays from there either way.
   */
  opensWith: 'task' | 'replay';
}

/** ListTasks: the caller's tasks, newest status first, a page at a time. */
export interface ListTasksParams {
  contextId?: string;
  status?: TaskState;
  /** Only tasks whose status changed at or after this time (ms since the epoch). */
  statusTimestampAfterMs?: number;
  pageSize: number;
  /** Where the page starts: the `next` of the page before. */
  after?: TaskListCursor;
  /** Messages of each task's history to show; 0 none. */
  historyLength: number;
  includeArtifacts: boolean;
}

export interface CreatePushConfigParams {
  taskId: string;
  /** Without an id, it replaces the task's own config (its id the task's), else its oldest, keeping that one's id. */
  config: PushConfigInput;
}

/** One push config of a task; without `id`, the task's own config (its id the task's), else its oldest. */
export interface PushConfigRef {
  taskId: string;
  id?: string;
}

/** Each operation's params. */
export interface OperationParams {
  SendMessage: SendMessageParams;
  SendStreamingMessage: SendMessageParams;
  GetTask: GetTaskParams;
  ListTasks: ListTasksParams;
  CancelTask: TaskIdParams;
  SubscribeToTask: SubscribeParams;
  CreateTaskPushNotificationConfig: CreatePushConfigParams;
  GetTaskPushNotificationConfig: PushConfigRef;
  ListTaskPushNotificationConfigs: { taskId: string };
  DeleteTaskPushNotificationConfig: PushConfigRef;
  GetExtendedAgentCard: Record<string, never>;
}

/** A call of one operation with its params: what a version's request is translated into. */
export type Operation = { [O in OperationName]: { readonly name: O; readonly params: OperationParams[O] } }[OperationName];

/** The task an operation is about, for its log line, metrics, span and the authorize hook. */
export function taskIdOfOperation(operation: Operation): string | undefined {
  switch (operation.name) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return operation.params.task?.id ?? operation.params.message.taskId;
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
      return operation.params.id;
    case 'ListTasks':
    case 'GetExtendedAgentCard':
      return undefined;
    default:
      return operation.params.taskId;
  }
}

/** The capability an operation needs; without it, every call of the operation gets that capability's error. */
export const CAPABILITY_OF: Readonly<Partial<Record<OperationName, 'streaming' | 'pushNotifications'>>> = {
  SendStreamingMessage: 'streaming',
  SubscribeToTask: 'streaming',
  CreateTaskPushNotificationConfig: 'pushNotifications',
  GetTaskPushNotificationConfig: 'pushNotifications',
  ListTaskPushNotificationConfigs: 'pushNotifications',
  DeleteTaskPushNotificationConfig: 'pushNotifications',
};
