// The A2A 0.3 JSON-RPC methods: each maps its params to the core's operations (mapping.ts), calls
// the task service every version calls, and maps the answer back. The tasks are the same tasks.
import { randomUUID } from 'node:crypto';
import { A2AError, ErrorCode, type Validator } from 'a2a-types';
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
import { taskIdAt, type Method, type MethodCall, type StreamingMethod, type UnaryMethod } from '../../core/method.js';
import { openResubscription } from '../../core/resubscription.js';
import { openSendStream } from '../../core/send-stream.js';
import type { StoredPushConfig } from '../../core/model.js';
import type { SendOperation } from '../../core/operations.js';
import type { TaskRecord } from '../../store/records.js';
import type { TurnRules } from '../../core/task-engine.js';
import {
  A2AError03,
  contextIdOf,
  eventsTo03,
  messageTo03,
  pushConfigFrom03,
  pushConfigTo03,
  replyTo03,
  sendParamsFrom03,
  taskTo03,
} from './mapping.js';

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

/** A message without `taskId`: its task id was just made, so the task is new. */
const NEW_TASK: TurnRules = {};

/** A 0.3 send as the core's operation: the message's task (a new one when it names none), in its context. */
const sendFrom03 = (params: MessageSendParams): SendOperation => sendParamsFrom03(params, randomUUID);

/** The rules of a send's turn, after the checks only a 0.3 message needs. */
async function turnRules(params: MessageSendParams, { service, principal }: MethodCall): Promise<TurnRules> {
  const { taskId, contextId } = params.message;
  if (taskId === undefined) return NEW_TASK;
  if (contextId !== undefined) await service.assertContextOf(taskId, contextId, principal);
  return RULES_03;
}

/**
 * message/send: starts or continues a task and answers with the Task once the turn ends, or after
 * `sendWaitMs` as it stands; with the Message alone when the handler answered with a `reply`.
 * `configuration.blocking: false` answers at once, the task `working`.
 */
const messageSend: UnaryMethod<MessageSendParams> = {
  taskIdOf: taskIdAt('message', 'taskId'),
  kind: 'unary',
  operation: 'tasks/send',
  validateParams: validateMessageSendParams,
  idPaths: SEND_ID_PATHS_03,
  toOperation: sendFrom03,
  async run(params, call, asOperation) {
    const send = asOperation as SendOperation;
    const rules = await turnRules(params, call);
    const historyLength = params.configuration?.historyLength;
    if (params.configuration?.blocking === false) {
      const run = await call.service.startTurn(send, call.principal, rules);
      return taskTo03(run.started.record, historyLength);
    }
    const record = await call.service.sendAndWait(send, call.principal, rules);
    return record.replied ? replyTo03(record) : taskTo03(record, historyLength);
  },
};

/**
 * message/stream: the Task as the turn opened (`working`, the message in its history), then the
 * turn's status and artifact updates until its final one (spec 0.3 9.3). The Task is sent with
 * the handler's first update: when that is a `reply`, the Message is the stream's one event.
 */
const messageStream: StreamingMethod<MessageSendParams> = {
  taskIdOf: taskIdAt('message', 'taskId'),
  kind: 'streaming',
  operation: 'tasks/sendSubscribe',
  requires: 'streaming',
  validateParams: validateMessageSendParams,
  idPaths: SEND_ID_PATHS_03,
  toOperation: sendFrom03,
  async open(params, call, asOperation) {
    const historyLength = params.configuration?.historyLength;
    return openSendStream(asOperation as SendOperation, call, await turnRules(params, call), {
      task: (record) => taskTo03(record, historyLength),
      reply: (message, taskId, contextId) => messageTo03(message, undefined, contextId, taskId),
      events: (record) => eventsTo03(contextIdOf(record)),
    });
  },
};

const getTask: UnaryMethod<TaskQueryParams> = {
  kind: 'unary',
  validateParams: validateTaskQueryParams,
  async run(params, { service, principal }) {
    return taskTo03(await service.readTask(params.id, principal), params.historyLength);
  },
};

const cancelTask: UnaryMethod<TaskIdParams> = {
  kind: 'unary',
  validateParams: validateTaskIdParams,
  async run(params, { service, principal }) {
    return taskTo03(await service.cancel(params.id, principal));
  },
};

/** tasks/resubscribe: the core's resubscription (Last-Event-ID replays what was missed), each event in 0.3 form. */
const resubscribe: StreamingMethod<TaskIdParams> = {
  kind: 'streaming',
  requires: 'streaming',
  validateParams: validateTaskIdParams,
  async open(params, call) {
    return openResubscription(params.id, call, (record) => eventsTo03(contextIdOf(record)));
  },
};

// Push configs: a task has several, each with an id unique within the task. `set` with an id
// replaces the config of that id (without one, the id is the task's), `get` names one by id
// (without one: the task's default config, else its oldest), `list` shows them all, `delete`
// removes one by id. Secrets come back masked.

const configNotFound = (taskId: string, configId: string | undefined) =>
  new A2AError(ErrorCode.TaskNotFound, 'Push notification config not found', { taskId, pushNotificationConfigId: configId });

const setPushConfig: UnaryMethod<TaskPushNotificationConfig> = {
  taskIdOf: taskIdAt('taskId'),
  kind: 'unary',
  operation: 'tasks/pushNotification/set',
  requires: 'pushNotifications',
  validateParams: validateTaskPushNotificationConfig,
  idPaths: ['/taskId', '/pushNotificationConfig/id'],
  toOperation: ({ taskId, pushNotificationConfig }) => ({
    id: taskId,
    pushNotificationConfig: pushConfigFrom03(pushNotificationConfig, taskId),
  }),
  async run({ taskId }, { service, principal }, asOperation) {
    const stored = (asOperation as { pushNotificationConfig: StoredPushConfig }).pushNotificationConfig;
    await service.setPushConfig(taskId, stored, principal);
    return { taskId, pushNotificationConfig: pushConfigTo03(stored) };
  },
};

const getPushConfig: UnaryMethod<GetTaskPushNotificationConfigParams> = {
  kind: 'unary',
  operation: 'tasks/pushNotification/get',
  requires: 'pushNotifications',
  validateParams: validateGetTaskPushNotificationConfigParams,
  idPaths: CONFIG_ID_PATHS,
  toOperation: ({ id }) => ({ id }),
  async run({ id, pushNotificationConfigId }, { service, principal }) {
    const config = storedConfig(await service.readTask(id, principal), pushNotificationConfigId);
    if (!config) throw configNotFound(id, pushNotificationConfigId);
    return { taskId: id, pushNotificationConfig: pushConfigTo03(config) };
  },
};

const listPushConfigs: UnaryMethod<TaskIdParams> = {
  kind: 'unary',
  operation: 'tasks/pushNotification/get',
  requires: 'pushNotifications',
  validateParams: validateTaskIdParams,
  toOperation: ({ id }) => ({ id }),
  async run({ id }, { service, principal }) {
    const configs = (await service.readTask(id, principal)).pushConfigs ?? [];
    return configs.map((config) => ({ taskId: id, pushNotificationConfig: pushConfigTo03(config) }));
  },
};

/** Deleting a config the task does not have succeeds: what the client wanted is so. */
const deletePushConfig: UnaryMethod<DeleteTaskPushNotificationConfigParams> = {
  kind: 'unary',
  operation: 'tasks/pushNotification/set',
  requires: 'pushNotifications',
  validateParams: validateDeleteTaskPushNotificationConfigParams,
  idPaths: CONFIG_ID_PATHS,
  toOperation: ({ id, pushNotificationConfigId }) => ({ id, pushNotificationConfig: null, pushNotificationConfigId }),
  async run({ id, pushNotificationConfigId }, { service, principal }) {
    await service.deletePushConfig(id, pushNotificationConfigId, principal);
    return null;
  },
};

/** The task's config of `configId`; without one, the task's default config (its id is the task's), else its oldest. */
function storedConfig(record: TaskRecord, configId: string | undefined): StoredPushConfig | undefined {
  const configs = record.pushConfigs ?? [];
  if (configId !== undefined) return configs.find((config) => config.id === configId);
  return configs.find((config) => config.id === record.task.id) ?? configs[0];
}

const anyParams = Object.assign((_params: unknown): _params is unknown => true, { issues: [] }) as Validator<unknown>;

/** The kit keeps no extended card: -32007 as 0.3 defines it (its card does not claim one). */
const getAuthenticatedExtendedCard: UnaryMethod<unknown> = {
  kind: 'unary',
  validateParams: anyParams,
  idPaths: [],
  async run() {
    throw new A2AError03(ErrorCode03.AuthenticatedExtendedCardNotConfigured, 'Authenticated Extended Card not configured');
  },
};

/** Every A2A 0.3 JSON-RPC method, by name. */
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
};
