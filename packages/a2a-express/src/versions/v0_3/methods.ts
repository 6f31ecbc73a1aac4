// The A2A 0.3 JSON-RPC methods, as translations onto the core's operations: each checks its
// params, puts them into the operation they mean (mapping.ts) and the answer back into 0.3's
// words. The tasks are the same tasks.
import { A2AError, type Validator } from 'a2a-types';
import {
  ErrorCode03,
  validateDeleteTaskPushNotificationConfigParams,
  validateGetTaskPushNotificationConfigParams,
  validateMessageSendParams,
  validateTaskIdParams,
  validateTaskPushNotificationConfig,
  validateTaskQueryParams,
  type DeleteTaskPushNotificationConfigParams,
  type GetTaskPushNotificationConfigParams,
  type MessageSendParams,
  type TaskIdParams,
  type TaskPushNotificationConfig,
  type TaskQueryParams,
} from 'a2a-types/v0.3';
import type { CallView } from '../../core/call.js';
import { operation, taskIdAt, type Method, type StreamingMethod, type UnaryMethod } from '../../core/method.js';
import type { TurnRules } from '../../core/operations.js';
import type { TaskRecord } from '../../model/record.js';
import { eventsTo03, messageTo03, pushConfigFrom03, pushConfigTo03, replyTo03, sendFrom03, taskTo03 } from './mapping.js';

/**
 * 0.3 sends: a message with a `taskId` continues that task (unknown → -32001), one without starts
 * a new task. A completed task is reopened, as over 0.1.0: one task behaves the same whichever
 * version reaches it, and the A2A TCK's mandatory tests continue completed tasks (0.3 spec 7.1
 * says otherwise: docs/protocol-0.3.md). A failed or canceled task refuses with -32009.
 */
const RULES_03: TurnRules = { existingTaskOnly: true };
/** The ids a 0.3 send carries. */
const SEND_ID_PATHS_03: readonly string[] = [
  '/message/messageId',
  '/message/taskId',
  '/message/contextId',
  '/message/referenceTaskIds/*',
  '/configuration/pushNotificationConfig/id',
];
/** The ids of a push config call that names a config. */
const CONFIG_ID_PATHS: readonly string[] = ['/id', '/pushNotificationConfigId'];

/** The events of a task as 0.3 streams them. */
const events03 = (record: TaskRecord) => eventsTo03(record.task.contextId);

/** How 0.3 shows a streamed send: the Task as the turn opened, with the first update; a `reply` as the Message alone. */
function sendView03(historyLength: number | undefined): CallView {
  return {
    task: (record) => taskTo03(record, historyLength),
    reply: (message, taskId, contextId) => messageTo03(message, undefined, contextId, taskId),
    events: events03,
  };
}

/**
 * message/send: starts or continues a task and answers with the Task once the turn ends, or after
 * `sendWaitMs` as it stands; with the Message alone when the handler answered with a `reply`.
 * `configuration.blocking: false` answers at once, the task `working`.
 */
const messageSend: UnaryMethod<MessageSendParams, 'SendMessage'> = {
  operation: 'SendMessage',
  taskIdOf: taskIdAt('message', 'taskId'),
  kind: 'unary',
  validateParams: validateMessageSendParams,
  idPaths: SEND_ID_PATHS_03,
  turnRules: RULES_03,
  toOperation: (params) => operation('SendMessage', sendFrom03(params)),
  answer: (record, params) => (record.replied ? replyTo03(record) : taskTo03(record, params.configuration?.historyLength)),
};

/**
 * message/stream: the Task as the turn opened (`working`, the message in its history), then the
 * turn's status and artifact updates until its final one (spec 0.3 9.3). The Task is sent with
 * the handler's first update: when that is a `reply`, the Message is the stream's one event.
 */
const messageStream: StreamingMethod<MessageSendParams> = {
  operation: 'SendStreamingMessage',
  taskIdOf: taskIdAt('message', 'taskId'),
  kind: 'streaming',
  validateParams: validateMessageSendParams,
  idPaths: SEND_ID_PATHS_03,
  turnRules: RULES_03,
  toOperation: (params) => operation('SendStreamingMessage', sendFrom03(params)),
  view: (params) => sendView03(params.configuration?.historyLength),
};

const getTask: UnaryMethod<TaskQueryParams, 'GetTask'> = {
  operation: 'GetTask',
  kind: 'unary',
  validateParams: validateTaskQueryParams,
  toOperation: ({ id, historyLength }) => operation('GetTask', historyLength == null ? { id } : { id, historyLength }),
  answer: (record, params) => taskTo03(record, params.historyLength),
};

const cancelTask: UnaryMethod<TaskIdParams, 'CancelTask'> = {
  operation: 'CancelTask',
  kind: 'unary',
  validateParams: validateTaskIdParams,
  toOperation: ({ id }) => operation('CancelTask', { id }),
  answer: (record) => taskTo03(record),
};

/** The view of tasks/resubscribe: the task's status first, as 0.1.0's; a `Last-Event-ID` replays what was missed. */
const RESUBSCRIBE_VIEW_03: CallView = { events: events03 };

const resubscribe: StreamingMethod<TaskIdParams> = {
  operation: 'SubscribeToTask',
  kind: 'streaming',
  validateParams: validateTaskIdParams,
  toOperation: ({ id }) => operation('SubscribeToTask', { id, opensWith: 'replay' }),
  view: () => RESUBSCRIBE_VIEW_03,
};

// Push configs: a task has several, each with an id unique within the task. `set` with an id
// replaces the config of that id (without one, the id is the task's), `get` names one by id
// (without one: the task's own config, else its oldest), `list` shows them all, `delete`
// removes one by id. Secrets come back masked.

const setPushConfig: UnaryMethod<TaskPushNotificationConfig, 'CreateTaskPushNotificationConfig'> = {
  operation: 'CreateTaskPushNotificationConfig',
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  validateParams: validateTaskPushNotificationConfig,
  idPaths: ['/taskId', '/pushNotificationConfig/id'],
  toOperation: ({ taskId, pushNotificationConfig }) => {
    const config = pushConfigFrom03(pushNotificationConfig);
    return operation('CreateTaskPushNotificationConfig', { taskId, config: { ...config, id: config.id ?? taskId } });
  },
  answer: (stored, { taskId }) => ({ taskId, pushNotificationConfig: pushConfigTo03(stored) }),
};

const getPushConfig: UnaryMethod<GetTaskPushNotificationConfigParams, 'GetTaskPushNotificationConfig'> = {
  operation: 'GetTaskPushNotificationConfig',
  kind: 'unary',
  validateParams: validateGetTaskPushNotificationConfigParams,
  idPaths: CONFIG_ID_PATHS,
  toOperation: ({ id, pushNotificationConfigId }) =>
    operation('GetTaskPushNotificationConfig', { taskId: id, id: pushNotificationConfigId }),
  answer: (config, { id }) => ({ taskId: id, pushNotificationConfig: pushConfigTo03(config) }),
};

const listPushConfigs: UnaryMethod<TaskIdParams, 'ListTaskPushNotificationConfigs'> = {
  operation: 'ListTaskPushNotificationConfigs',
  kind: 'unary',
  validateParams: validateTaskIdParams,
  toOperation: ({ id }) => operation('ListTaskPushNotificationConfigs', { taskId: id }),
  answer: (configs, { id }) => configs.map((config) => ({ taskId: id, pushNotificationConfig: pushConfigTo03(config) })),
};

/** Deleting a config the task does not have succeeds: what the client wanted is so. */
const deletePushConfig: UnaryMethod<DeleteTaskPushNotificationConfigParams, 'DeleteTaskPushNotificationConfig'> = {
  operation: 'DeleteTaskPushNotificationConfig',
  kind: 'unary',
  validateParams: validateDeleteTaskPushNotificationConfigParams,
  idPaths: CONFIG_ID_PATHS,
  toOperation: ({ id, pushNotificationConfigId }) =>
    operation('DeleteTaskPushNotificationConfig', { taskId: id, id: pushNotificationConfigId }),
  answer: () => null,
};

const anyParams = Object.assign((_params: unknown): _params is unknown => true, { issues: [] }) as Validator<unknown>;

/**
 * The 0.3 card never claims an extended card (0.3's has no place for the 1.0 one): -32007 as 0.3
 * defines it, before anything else.
 */
const getAuthenticatedExtendedCard: UnaryMethod<unknown, 'GetExtendedAgentCard'> = {
  operation: 'GetExtendedAgentCard',
  kind: 'unary',
  validateParams: anyParams,
  idPaths: [],
  toOperation() {
    // 0.3's -32007 is the kit's AuthenticationRequired: the reason says which it is.
    throw new A2AError(
      ErrorCode03.AuthenticatedExtendedCardNotConfigured,
      'Authenticated Extended Card not configured',
      undefined,
      'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    );
  },
  answer: (card) => card,
};

/**
 * The newest tasks `GET /v1/tasks` lists. 0.3's `tasks/list` takes no parameters and has no pages,
 * so an answer is bounded here (and by `maxResponseBytes`, which ends it before a task that would
 * not fit); older tasks are read by id.
 */
export const LISTED_TASKS_03 = 100;

/** How 0.3 lists a task: as `tasks/get` shows it, without its history or artifacts, as 1.0 lists by default. */
const LIST_VIEW_03: CallView = {
  events: events03,
  listed: (record, historyLength, includeArtifacts) => taskTo03(record, historyLength, includeArtifacts),
};

/**
 * tasks/list (HTTP+JSON's `GET /v1/tasks` alone; 0.3's JSON-RPC has no such method): the caller's
 * newest tasks, newest status first, as a bare list. A store that cannot list answers -32004, as
 * 1.0's ListTasks does.
 */
const listTasks: UnaryMethod<unknown, 'ListTasks'> = {
  operation: 'ListTasks',
  kind: 'unary',
  bindings: ['rest'],
  validateParams: anyParams,
  idPaths: [],
  toOperation: () => operation('ListTasks', { pageSize: LISTED_TASKS_03, historyLength: 0, includeArtifacts: false }),
  view: () => LIST_VIEW_03,
  answer: (page) => page.tasks,
};

/** Every A2A 0.3 method, by name: the JSON-RPC methods, and `tasks/list`, which HTTP+JSON alone carries. */
export const methods03: Readonly<Record<string, Method>> = {
  'message/send': messageSend,
  'message/stream': messageStream,
  'tasks/get': getTask,
  'tasks/cancel': cancelTask,
  'tasks/resubscribe': resubscribe,
  'tasks/pushNotificationConfig/set': setPushConfig,
  'tasks/pushNotificationConfig/get': getPushConfig,
  'tasks/pushNotificationConfig/list': listPushConfigs,
  'tasks/pushNotificationConfig/delete': deletePushConfig,
  'agent/getAuthenticatedExtendedCard': getAuthenticatedExtendedCard,
  'tasks/list': listTasks,
};
