// The A2A 1.0 operations, by their JSON-RPC method names: each maps its request to the core's
// operations (mapping.ts), calls the task service every version calls, and maps the answer back.
// The HTTP+JSON binding calls the same table. The tasks are the same tasks.
import { randomUUID } from 'node:crypto';
import { A2AError, ErrorCode, type ValidationIssue, type Validator } from 'a2a-types';
import * as v10 from 'a2a-types/v1.0';
import { TaskEventStream } from '../../core/event-feed.js';
import { streamHolder, taskIdAt, type Method, type MethodCall, type StreamingMethod, type UnaryMethod } from '../../core/method.js';
import { isTerminalState, type StoredPushConfig } from '../../core/model.js';
import type { SendOperation } from '../../core/operations.js';
import { openResubscription } from '../../core/resubscription.js';
import { openSendStream } from '../../core/send-stream.js';
import type { TurnRules } from '../../core/task-engine.js';
import type { StoredEvent } from '../../store/records.js';
import type { TaskListCursor } from '../../store/task-store.js';
import {
  A2AError10,
  eventsTo10,
  messageTo10,
  pushConfigFrom10,
  pushConfigTo10,
  replyTo10,
  sendFrom10,
  stateFrom10,
  taskTo10,
} from './mapping.js';

/**
 * 1.0 sends: a message with a `taskId` continues that task (unknown → -32001), one without starts
 * a new one. A task in a terminal state (completed too) takes no more messages: -32004 (spec 1.0
 * 3.1.1); one waiting for input or authorization continues.
 */
const RULES_10: TurnRules = { existingTaskOnly: true, completedIsTerminal: true };
const NEW_TASK: TurnRules = { completedIsTerminal: true };

const SEND_ID_PATHS: readonly string[] = [
  '/message/messageId',
  '/message/taskId',
  '/message/contextId',
  '/message/referenceTaskIds/*',
  '/configuration/taskPushNotificationConfig/id',
];
const CONFIG_ID_PATHS: readonly string[] = ['/taskId', '/id'];

/** The rules of a send's turn, after the context check only a message naming its task needs. */
async function turnRules(params: v10.SendMessageRequest, { service, principal }: MethodCall): Promise<TurnRules> {
  const { taskId, contextId } = params.message;
  if (!taskId) return NEW_TASK;
  if (contextId) await service.assertContextOf(taskId, contextId, principal);
  return RULES_10;
}

const sendOperation = (params: v10.SendMessageRequest): SendOperation => sendFrom10(params, randomUUID);

/**
 * SendMessage: the Task once the turn ends or waits for input (or after `sendWaitMs`, as it
 * stands); the Message alone when the handler answered with a `reply`. `returnImmediately`
 * answers at once, the task `working` (spec 1.0 3.2.2).
 */
const sendMessage: UnaryMethod<v10.SendMessageRequest> = {
  taskIdOf: taskIdAt('message', 'taskId'),
  kind: 'unary',
  operation: 'tasks/send',
  validateParams: v10.validateSendMessageRequest,
  idPaths: SEND_ID_PATHS,
  toOperation: sendOperation,
  async run(params, call, asOperation) {
    const send = asOperation as SendOperation;
    const rules = await turnRules(params, call);
    const historyLength = params.configuration?.historyLength;
    if (params.configuration?.returnImmediately === true) {
      const run = await call.service.startTurn(send, call.principal, rules);
      return { task: taskTo10(run.started.record, historyLength) };
    }
    const record = await call.service.sendAndWait(send, call.principal, rules);
    return record.replied ? { message: replyTo10(record) } : { task: taskTo10(record, historyLength) };
  },
};

/** SendStreamingMessage: `{task}` as the turn opened, then its updates; a `reply` streams `{message}` alone. */
const sendStreamingMessage: StreamingMethod<v10.SendMessageRequest> = {
  taskIdOf: taskIdAt('message', 'taskId'),
  kind: 'streaming',
  operation: 'tasks/sendSubscribe',
  requires: 'streaming',
  validateParams: v10.validateSendMessageRequest,
  idPaths: SEND_ID_PATHS,
  toOperation: sendOperation,
  async open(params, call, asOperation) {
    const historyLength = params.configuration?.historyLength;
    return openSendStream(asOperation as SendOperation, call, await turnRules(params, call), {
      task: (record) => ({ task: taskTo10(record, historyLength) }),
      reply: (message, taskId, contextId) => ({ message: messageTo10(message, undefined, contextId, taskId) }),
      events: (record) => eventsTo10(record.task.contextId),
    });
  },
};

const getTask: UnaryMethod<v10.GetTaskRequest> = {
  kind: 'unary',
  operation: 'tasks/get',
  validateParams: v10.validateGetTaskRequest,
  toOperation: ({ id, historyLength }) => (historyLength === undefined ? { id } : { id, historyLength }),
  async run(params, { service, principal }) {
    return taskTo10(await service.readTask(params.id, principal), params.historyLength);
  },
};

/** Tasks a page holds when the client names no size (spec 1.0 3.1.4). */
const DEFAULT_PAGE_SIZE = 50;

/**
 * Room kept in an answer for everything around the tasks of a ListTasks page: the JSON-RPC
 * envelope (with a client's request id), the page token, the sizes.
 */
const LIST_ENVELOPE_CHARS = 16 * 1024;

/**
 * ListTasks: the caller's tasks, newest status first, filtered by context, state and status time,
 * a page at a time. Without `historyLength` a task comes without its history (the server's default
 * of spec 1.0 3.2.4: a list is for finding tasks, GetTask for reading one); artifacts only with
 * `includeArtifacts`. A page holds what fits in one answer (`maxResponseBytes`): it ends before
 * the task that would not fit, which starts the next page (the spec lets a page hold fewer tasks
 * than asked). Each task is mapped and measured as the store hands it over, so a page is never
 * built past that bound; a task too large to be listed alone is -32602 naming the params that
 * make it smaller.
 */
const listTasks: UnaryMethod<v10.ListTasksRequest> = {
  kind: 'unary',
  validateParams: v10.validateListTasksRequest,
  idPaths: ['/contextId'],
  async run(params, { service, principal }) {
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    const historyLength = params.historyLength ?? 0;
    const includeArtifacts = params.includeArtifacts === true;
    const room = Math.max(0, service.limits.maxResponseBytes - LIST_ENVELOPE_CHARS);
    const tasks: v10.Task[] = [];
    let used = 0;
    const page = await service.listTasks(
      {
        contextId: params.contextId || undefined,
        state: params.status === undefined ? undefined : stateFrom10(params.status),
        statusAtOrAfterMs: params.statusTimestampAfter === undefined ? undefined : timeOf(params.statusTimestampAfter),
        pageSize,
        after: params.pageToken ? cursorOf(params.pageToken) : undefined,
        accept(record) {
          const task = taskTo10(record, historyLength, includeArtifacts);
          // JSON text and its comma, measured as the answer is (in characters).
          const size = JSON.stringify(task).length + 1;
          if (used + size > room) {
            if (tasks.length === 0)
              throw tooLargeToList(record.task.id, size, service.limits.maxResponseBytes, includeArtifacts, historyLength);
            return false;
          }
          used += size;
          tasks.push(task);
          return true;
        },
      },
      principal,
    );
    return {
      tasks,
      nextPageToken: page.next ? pageTokenOf(page.next) : '',
      pageSize,
      totalSize: page.total,
    };
  },
};

/** -32602 for a task that alone is more than an answer holds, naming what would make it smaller. */
function tooLargeToList(
  taskId: string,
  size: number,
  maxResponseBytes: number,
  includeArtifacts: boolean,
  historyLength: number,
): A2AError {
  const smaller = [includeArtifacts && 'includeArtifacts false', historyLength > 0 && 'a smaller historyLength']
    .filter(Boolean)
    .join(' or ');
  return A2AError.invalidParams([
    {
      path: includeArtifacts ? '/includeArtifacts' : '/historyLength',
      message:
        `task ${taskId} is ${size} characters as listed, more than this agent sends in one answer (maxResponseBytes ${maxResponseBytes})` +
        (smaller ? `: list with ${smaller}, or read it with GetTask` : ''),
      keyword: 'maxResponseBytes',
      params: { taskId, size, maxResponseBytes },
    },
  ]);
}

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

const cancelTask: UnaryMethod<v10.CancelTaskRequest> = {
  kind: 'unary',
  operation: 'tasks/cancel',
  validateParams: v10.validateCancelTaskRequest,
  toOperation: ({ id }) => ({ id }),
  async run(params, { service, principal }) {
    return taskTo10(await service.cancel(params.id, principal));
  },
};

/**
 * SubscribeToTask: the task as it stands, then its updates until a turn's final one (spec 1.0
 * 3.1.6). A task waiting for input stays subscribed through the next turn; a task in a terminal
 * state has nothing to stream: -32004, as a plain error. With `Last-Event-ID` (the kit's
 * resumption, docs/streaming.md), the missed events instead.
 */
const subscribeToTask: StreamingMethod<v10.SubscribeToTaskRequest> = {
  kind: 'streaming',
  operation: 'tasks/resubscribe',
  requires: 'streaming',
  validateParams: v10.validateSubscribeToTaskRequest,
  toOperation: ({ id }) => ({ id }),
  async open(params, call) {
    if (call.lastEventId !== undefined && call.lastEventId !== '') {
      return openResubscription(params.id, call, (record) => eventsTo10(record.task.contextId));
    }
    // The feed is open before the task is read, so that no update falls between the two.
    const feed = await call.service.openFeed(params.id, streamHolder(call));
    try {
      const record = await call.service.readTask(params.id, call.principal);
      const { state } = record.task.status;
      if (isTerminalState(state)) throw A2AError.unsupportedOperation(`task ${params.id} is ${state}: it has no more updates`);
      // The task stands for every event so far; it does not end the stream, even when its turn is over.
      const snapshot: StoredEvent = { id: record.lastEventId, event: { id: record.task.id, status: record.task.status, final: false } };
      const render = eventsTo10(record.task.contextId);
      return new TaskEventStream(feed, [snapshot], record.lastEventId, (stored) =>
        stored === snapshot ? { task: taskTo10(record) } : render(stored),
      );
    } catch (error) {
      feed.close();
      throw error;
    }
  },
};

// Push configs: a task has several, each with an id unique within the task; one created without
// an id gets a new one. Secrets come back masked.

const configNotFound = (taskId: string, configId: string) =>
  new A2AError(ErrorCode.TaskNotFound, 'Push notification config not found', { taskId, pushNotificationConfigId: configId });

/** The params of CreateTaskPushNotificationConfig must name the task (its `taskId` is optional elsewhere). */
const validateCreateConfig = withIssues(
  (params: unknown): params is v10.TaskPushNotificationConfig & { taskId: string } => {
    lastCreateIssues = [];
    if (!v10.validateTaskPushNotificationConfig(params)) {
      lastCreateIssues = v10.validateTaskPushNotificationConfig.issues;
      return false;
    }
    if (typeof params.taskId === 'string' && params.taskId !== '') return true;
    lastCreateIssues = [
      { path: '', message: "must have required property 'taskId'", keyword: 'required', params: { missingProperty: 'taskId' } },
    ];
    return false;
  },
  () => lastCreateIssues,
);
let lastCreateIssues: ValidationIssue[] = [];

/** A validator whose `issues` are read when asked (a getter, not a value taken once). */
function withIssues<P>(guard: (params: unknown) => params is P, issues: () => ValidationIssue[]): Validator<P> {
  Object.defineProperty(guard, 'issues', { get: issues });
  return guard as Validator<P>;
}

const createPushConfig: UnaryMethod<v10.TaskPushNotificationConfig & { taskId: string }> = {
  // `id` is the config's.
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  operation: 'tasks/pushNotification/set',
  requires: 'pushNotifications',
  validateParams: validateCreateConfig,
  idPaths: CONFIG_ID_PATHS,
  toOperation: (config) => ({ id: config.taskId, pushNotificationConfig: pushConfigFrom10(config, randomUUID, '') }),
  async run({ taskId }, { service, principal }, asOperation) {
    const stored = (asOperation as { pushNotificationConfig: StoredPushConfig }).pushNotificationConfig;
    await service.setPushConfig(taskId, stored, principal);
    return pushConfigTo10(stored, taskId);
  },
};

const getPushConfig: UnaryMethod<v10.GetTaskPushNotificationConfigRequest> = {
  // `id` is the config's.
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  operation: 'tasks/pushNotification/get',
  requires: 'pushNotifications',
  validateParams: v10.validateGetTaskPushNotificationConfigRequest,
  idPaths: CONFIG_ID_PATHS,
  toOperation: ({ taskId }) => ({ id: taskId }),
  async run({ taskId, id }, { service, principal }) {
    const config = (await service.readTask(taskId, principal)).pushConfigs?.find((stored) => stored.id === id);
    if (!config) throw configNotFound(taskId, id);
    return pushConfigTo10(config, taskId);
  },
};

/** Every config of the task, on one page: a task keeps at most `MAX_PUSH_CONFIGS_PER_TASK`. */
const listPushConfigs: UnaryMethod<v10.ListTaskPushNotificationConfigsRequest> = {
  // `id` is the config's.
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  operation: 'tasks/pushNotification/get',
  requires: 'pushNotifications',
  validateParams: v10.validateListTaskPushNotificationConfigsRequest,
  idPaths: ['/taskId'],
  toOperation: ({ taskId }) => ({ id: taskId }),
  async run({ taskId }, { service, principal }) {
    const configs = (await service.readTask(taskId, principal)).pushConfigs ?? [];
    return { configs: configs.map((config) => pushConfigTo10(config, taskId)), nextPageToken: '' };
  },
};

/** Deleting a config the task does not have succeeds (spec 1.0 3.1.10: idempotent). */
const deletePushConfig: UnaryMethod<v10.DeleteTaskPushNotificationConfigRequest> = {
  // `id` is the config's.
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  operation: 'tasks/pushNotification/set',
  requires: 'pushNotifications',
  validateParams: v10.validateDeleteTaskPushNotificationConfigRequest,
  idPaths: CONFIG_ID_PATHS,
  toOperation: ({ taskId, id }) => ({ id: taskId, pushNotificationConfig: null, pushNotificationConfigId: id }),
  async run({ taskId, id }, { service, principal }) {
    await service.deletePushConfig(taskId, id, principal);
    return {};
  },
};

/**
 * GetExtendedAgentCard: the fuller card of `extendedCard` for an authenticated caller; -32004 when
 * the card claims none (spec 1.0 3.3.4). The router authenticates every call when `auth` is on,
 * which `extendedCard` requires.
 */
const getExtendedAgentCard: UnaryMethod<v10.GetExtendedAgentCardRequest | undefined> = {
  kind: 'unary',
  validateParams: withIssues(
    (params: unknown): params is v10.GetExtendedAgentCardRequest | undefined =>
      params === undefined || v10.validateGetExtendedAgentCardRequest(params),
    () => v10.validateGetExtendedAgentCardRequest.issues,
  ),
  idPaths: [],
  async run(_params, call) {
    if (!call.extendedCard) {
      throw new A2AError10(v10.ErrorCode10.UnsupportedOperation as ErrorCode, 'This agent has no extended agent card', [
        v10.errorInfo('UNSUPPORTED_OPERATION', { reason: 'the agent card does not declare capabilities.extendedAgentCard' }),
      ]);
    }
    return call.extendedCard();
  },
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
