// The A2A 1.0 operations, by their JSON-RPC method names: each checks its request, puts it into
// the core's operation of the same name (mapping.ts) and the answer back into 1.0's words. The
// HTTP+JSON binding calls the same table. The tasks are the same tasks.
import { A2AError, type ValidationIssue, type Validator } from 'a2a-types';
import * as v10 from 'a2a-types/v1.0';
import type { CallView } from '../../core/call.js';
import { operation, taskIdAt, type Method, type StreamingMethod, type UnaryMethod } from '../../core/method.js';
import type { TaskListCursor } from '../../store/task-store.js';
import { eventsTo10, messageTo10, pushConfigFrom10, pushConfigTo10, replyTo10, sendFrom10, stateFrom10, taskTo10 } from './mapping.js';

const SEND_ID_PATHS: readonly string[] = [
  '/message/messageId',
  '/message/taskId',
  '/message/contextId',
  '/message/referenceTaskIds/*',
  '/configuration/taskPushNotificationConfig/id',
];
const CONFIG_ID_PATHS: readonly string[] = ['/taskId', '/id'];

/** How 1.0 shows a stream: the Task first, a `reply` as the Message alone, `StreamResponse`s after. */
function view10(historyLength?: number): CallView {
  return {
    task: (record) => ({ task: taskTo10(record, historyLength) }),
    reply: (message, taskId, contextId) => ({ message: messageTo10(message, undefined, contextId, taskId) }),
    events: (record) => eventsTo10(record.task.contextId),
    listed: (record, history, includeArtifacts) => taskTo10(record, history, includeArtifacts),
  };
}
const VIEW_10 = view10();

/**
 * SendMessage: the Task once the turn ends or waits for input (or after `sendWaitMs`, as it
 * stands); the Message alone when the handler answered with a `reply`. `returnImmediately`
 * answers at once, the task `working` (spec 1.0 3.2.2). A message with a `taskId` continues that
 * task (unknown → -32001); a task in a terminal state (completed too) takes no more (-32004).
 */
const sendMessage: UnaryMethod<v10.SendMessageRequest, 'SendMessage'> = {
  operation: 'SendMessage',
  taskIdOf: taskIdAt('message', 'taskId'),
  kind: 'unary',
  validateParams: v10.validateSendMessageRequest,
  idPaths: SEND_ID_PATHS,
  toOperation: (params) => operation('SendMessage', sendFrom10(params)),
  answer: (record, params) =>
    record.replied ? { message: replyTo10(record) } : { task: taskTo10(record, params.configuration?.historyLength) },
};

/** SendStreamingMessage: `{task}` as the turn opened, then its updates; a `reply` streams `{message}` alone. */
const sendStreamingMessage: StreamingMethod<v10.SendMessageRequest> = {
  operation: 'SendStreamingMessage',
  taskIdOf: taskIdAt('message', 'taskId'),
  kind: 'streaming',
  validateParams: v10.validateSendMessageRequest,
  idPaths: SEND_ID_PATHS,
  toOperation: (params) => operation('SendStreamingMessage', sendFrom10(params)),
  view: (params) => view10(params.configuration?.historyLength),
};

const getTask: UnaryMethod<v10.GetTaskRequest, 'GetTask'> = {
  operation: 'GetTask',
  kind: 'unary',
  validateParams: v10.validateGetTaskRequest,
  toOperation: ({ id, historyLength }) => operation('GetTask', historyLength === undefined ? { id } : { id, historyLength }),
  answer: (record, params) => taskTo10(record, params.historyLength),
};

/** Tasks a page holds when the client names no size (spec 1.0 3.1.4). */
const DEFAULT_PAGE_SIZE = 50;

/**
 * ListTasks: the caller's tasks, newest status first, filtered by context, state and status time,
 * a page at a time (see the core's ListTasks for how a page stays within one answer). Without
 * `historyLength` a task comes without its history (the server's default of spec 1.0 3.2.4: a
 * list is for finding tasks, GetTask for reading one); artifacts only with `includeArtifacts`.
 */
const listTasks: UnaryMethod<v10.ListTasksRequest, 'ListTasks'> = {
  operation: 'ListTasks',
  kind: 'unary',
  validateParams: v10.validateListTasksRequest,
  idPaths: ['/contextId'],
  toOperation: (params) =>
    operation('ListTasks', {
      contextId: params.contextId || undefined,
      status: params.status === undefined ? undefined : stateFrom10(params.status),
      statusTimestampAfterMs: params.statusTimestampAfter === undefined ? undefined : timeOf(params.statusTimestampAfter),
      pageSize: params.pageSize ?? DEFAULT_PAGE_SIZE,
      after: params.pageToken ? cursorOf(params.pageToken) : undefined,
      historyLength: params.historyLength ?? 0,
      includeArtifacts: params.includeArtifacts === true,
    }),
  view: () => VIEW_10,
  answer: (page, params) => ({
    tasks: page.tasks,
    nextPageToken: page.next ? pageTokenOf(page.next) : '',
    pageSize: params.pageSize ?? DEFAULT_PAGE_SIZE,
    totalSize: page.total,
  }),
};

/** A date-time the schema let through that JavaScript cannot read (a leap second) is refused, never ignored. */
function timeOf(dateTime: string): number {
  const ms = Date.parse(dateTime);
  if (Number.isFinite(ms)) return ms;
  throw A2AError.invalidParams([
    {
      path: '/statusTimestampAfter',
      message: 'must be a date-time this agent can compare (no leap second)',
      keyword: 'format',
      params: {},
    },
  ]);
}

/** A page token: where the next page starts, opaque to the client. */
function pageTokenOf(cursor: TaskListCursor): string {
  return Buffer.from(`${cursor.statusMs}:${cursor.taskId}`).toString('base64url');
}

function cursorOf(token: string): TaskListCursor {
  const match = /^(\d{1,15}):(.+)$/s.exec(Buffer.from(token, 'base64url').toString());
  if (!match || Buffer.from(match[0]).toString('base64url') !== token) {
    throw A2AError.invalidParams([
      {
        path: '/pageToken',
        message: 'is not a page token this agent gave: pass nextPageToken as it came',
        keyword: 'pageToken',
        params: {},
      },
    ]);
  }
  return { statusMs: Number(match[1]), taskId: match[2]! };
}

const cancelTask: UnaryMethod<v10.CancelTaskRequest, 'CancelTask'> = {
  operation: 'CancelTask',
  kind: 'unary',
  validateParams: v10.validateCancelTaskRequest,
  toOperation: ({ id }) => operation('CancelTask', { id }),
  answer: (record) => taskTo10(record),
};

/**
 * SubscribeToTask: the task as it stands, then its updates until a turn's final one (spec 1.0
 * 3.1.6); a task in a terminal state has nothing to stream: -32004, as a plain error. With
 * `Last-Event-ID` (the kit's resumption, docs/streaming.md), the missed events instead.
 */
const subscribeToTask: StreamingMethod<v10.SubscribeToTaskRequest> = {
  operation: 'SubscribeToTask',
  kind: 'streaming',
  validateParams: v10.validateSubscribeToTaskRequest,
  toOperation: ({ id }) => operation('SubscribeToTask', { id, opensWith: 'task' }),
  view: () => VIEW_10,
};

// Push configs: a task has several, each with an id unique within the task; one created without
// an id gets a new one. Secrets come back masked.

/** The params of CreateTaskPushNotificationConfig must name the task (its `taskId` is optional elsewhere). */
const validateCreateConfig: Validator<v10.TaskPushNotificationConfig & { taskId: string }> = Object.defineProperties(
  (params: unknown): params is v10.TaskPushNotificationConfig & { taskId: string } =>
    v10.validateTaskPushNotificationConfig(params) && typeof params.taskId === 'string' && params.taskId !== '',
  {
    issues: {
      get: (): ValidationIssue[] =>
        v10.validateTaskPushNotificationConfig.issues.length > 0
          ? v10.validateTaskPushNotificationConfig.issues
          : [{ path: '', message: "must have required property 'taskId'", keyword: 'required', params: { missingProperty: 'taskId' } }],
    },
  },
) as Validator<v10.TaskPushNotificationConfig & { taskId: string }>;

const createPushConfig: UnaryMethod<v10.TaskPushNotificationConfig & { taskId: string }, 'CreateTaskPushNotificationConfig'> = {
  operation: 'CreateTaskPushNotificationConfig',
  // `id` is the config's.
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  validateParams: validateCreateConfig,
  idPaths: CONFIG_ID_PATHS,
  toOperation: (config) =>
    operation('CreateTaskPushNotificationConfig', {
      taskId: config.taskId,
      config: pushConfigFrom10(config, () => crypto.randomUUID(), ''),
    }),
  answer: (stored, { taskId }) => pushConfigTo10(stored, taskId),
};

const getPushConfig: UnaryMethod<v10.GetTaskPushNotificationConfigRequest, 'GetTaskPushNotificationConfig'> = {
  operation: 'GetTaskPushNotificationConfig',
  // `id` is the config's.
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  validateParams: v10.validateGetTaskPushNotificationConfigRequest,
  idPaths: CONFIG_ID_PATHS,
  toOperation: ({ taskId, id }) => operation('GetTaskPushNotificationConfig', { taskId, id }),
  answer: (config, { taskId }) => pushConfigTo10(config, taskId),
};

/** Every config of the task, on one page: a task keeps at most `MAX_PUSH_CONFIGS_PER_TASK`. */
const listPushConfigs: UnaryMethod<v10.ListTaskPushNotificationConfigsRequest, 'ListTaskPushNotificationConfigs'> = {
  operation: 'ListTaskPushNotificationConfigs',
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  validateParams: v10.validateListTaskPushNotificationConfigsRequest,
  idPaths: ['/taskId'],
  toOperation: ({ taskId }) => operation('ListTaskPushNotificationConfigs', { taskId }),
  answer: (configs, { taskId }) => ({ configs: configs.map((config) => pushConfigTo10(config, taskId)), nextPageToken: '' }),
};

/** Deleting a config the task does not have succeeds (spec 1.0 3.1.10: idempotent). */
const deletePushConfig: UnaryMethod<v10.DeleteTaskPushNotificationConfigRequest, 'DeleteTaskPushNotificationConfig'> = {
  operation: 'DeleteTaskPushNotificationConfig',
  // `id` is the config's.
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  validateParams: v10.validateDeleteTaskPushNotificationConfigRequest,
  idPaths: CONFIG_ID_PATHS,
  toOperation: ({ taskId, id }) => operation('DeleteTaskPushNotificationConfig', { taskId, id }),
  answer: () => ({}),
};

/**
 * GetExtendedAgentCard: the fuller card of `extendedCard` for an authenticated caller; -32004 when
 * the card claims none (spec 1.0 3.3.4). The router authenticates every call when `auth` is on,
 * which `extendedCard` requires.
 */
const getExtendedAgentCard: UnaryMethod<v10.GetExtendedAgentCardRequest | undefined, 'GetExtendedAgentCard'> = {
  operation: 'GetExtendedAgentCard',
  kind: 'unary',
  validateParams: Object.defineProperty(
    (params: unknown): params is v10.GetExtendedAgentCardRequest | undefined =>
      params === undefined || v10.validateGetExtendedAgentCardRequest(params),
    'issues',
    { get: () => v10.validateGetExtendedAgentCardRequest.issues },
  ) as Validator<v10.GetExtendedAgentCardRequest | undefined>,
  idPaths: [],
  toOperation: () => operation('GetExtendedAgentCard', {}),
  answer: (card) => card,
};

/** Every A2A 1.0 operation, by its JSON-RPC method name. */
export const methods10: Readonly<Record<string, Method>> = {
  SendMessage: sendMessage,
  SendStreamingMessage: sendStreamingMessage,
  GetTask: getTask,
  ListTasks: listTasks,
  CancelTask: cancelTask,
  SubscribeToTask: subscribeToTask,
  CreateTaskPushNotificationConfig: createPushConfig,
  GetTaskPushNotificationConfig: getPushConfig,
  ListTaskPushNotificationConfigs: listPushConfigs,
  DeleteTaskPushNotificationConfig: deletePushConfig,
  GetExtendedAgentCard: getExtendedAgentCard,
};
