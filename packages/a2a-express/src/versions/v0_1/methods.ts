// The A2A 0.1.0 methods, as translations onto the core's operations: each checks its params,
// puts them into the operation they mean (mapping.ts) and the answer back into 0.1.0's words.
// 0.1.0 names a task by the request (`id`, `sessionId`) and creates it when there is none; its
// streams carry the task's events from the turn's opening `working` status on.
import {
  validateTaskIdParams,
  validateTaskPushNotificationConfig,
  validateTaskQueryParams,
  validateTaskSendParams,
  type A2AMethod,
  type PushNotificationConfig,
  type TaskIdParams,
  type TaskPushNotificationConfig,
  type TaskQueryParams,
  type TaskSendParams,
} from 'a2a-types';
import type { CallView } from '../../core/call.js';
import { operation, type Method, type StreamingMethod, type UnaryMethod } from '../../core/method.js';
import type { StoredPushConfig } from '../../model/task.js';
import type { TurnRules } from '../../core/operations.js';
import { withSecretsMasked } from '../../push/push-config.js';
import { eventTo01, pushConfigFrom01, sendFrom01, taskTo01 } from './mapping.js';

/** The ids a send carries: the task's, its session's, and those the newer versions give a message. */
const SEND_ID_PATHS: readonly string[] = [
  '/id',
  '/sessionId',
  '/message/messageId',
  '/message/taskId',
  '/message/contextId',
  '/message/referenceTaskIds/*',
];

/** A message creates the task it names, and reopens a completed one. */
const RULES_01: TurnRules = {};

/** 0.1.0's streams: the task's events as they are, from the turn's opening ones on; no task, no reply of their own. */
const VIEW_01: CallView = { events: () => eventTo01 };

/**
 * tasks/send [7.1]: starts or continues the task, then answers once the turn ends (completed,
 * failed, canceled, input-required) or, for a long turn, after `sendWaitMs` with the task as it
 * stands (`working`); the handler keeps running and the client polls tasks/get.
 */
const send: UnaryMethod<TaskSendParams, 'SendMessage'> = {
  operation: 'SendMessage',
  kind: 'unary',
  validateParams: validateTaskSendParams,
  idPaths: SEND_ID_PATHS,
  turnRules: RULES_01,
  toOperation: (params) => operation('SendMessage', sendFrom01(params)),
  answer: (record, params) => taskTo01(record, params.historyLength),
};

/** tasks/sendSubscribe [7.2]: starts or continues the task and streams its events until the turn's final one. */
const sendSubscribe: StreamingMethod<TaskSendParams> = {
  operation: 'SendStreamingMessage',
  kind: 'streaming',
  validateParams: validateTaskSendParams,
  idPaths: SEND_ID_PATHS,
  turnRules: RULES_01,
  toOperation: (params) => operation('SendStreamingMessage', sendFrom01(params)),
  view: () => VIEW_01,
};

/** tasks/get [7.3]: the task as it stands, with the last `historyLength` messages. */
const get: UnaryMethod<TaskQueryParams, 'GetTask'> = {
  operation: 'GetTask',
  kind: 'unary',
  validateParams: validateTaskQueryParams,
  toOperation: ({ id, historyLength }) => operation('GetTask', historyLength == null ? { id } : { id, historyLength }),
  answer: (record, params) => taskTo01(record, params.historyLength),
};

/**
 * tasks/cancel [7.4]: a task that is not finished becomes `canceled` and its handler's signal
 * aborts; unknown → -32001, completed/failed/canceled → -32002.
 */
const cancel: UnaryMethod<TaskIdParams, 'CancelTask'> = {
  operation: 'CancelTask',
  kind: 'unary',
  validateParams: validateTaskIdParams,
  toOperation: ({ id }) => operation('CancelTask', { id }),
  answer: (record) => taskTo01(record),
};

/** tasks/resubscribe [7.7]: the task's status, then its later events (the core's resubscription). */
const resubscribe: StreamingMethod<TaskQueryParams> = {
  operation: 'SubscribeToTask',
  kind: 'streaming',
  validateParams: validateTaskQueryParams,
  toOperation: ({ id }) => operation('SubscribeToTask', { id, opensWith: 'replay' }),
  view: () => VIEW_01,
};

// Push configs. A task has one in 0.1.0: of its several, the one whose id is the task's (the
// config 0.1.0 sets, and 0.3 sets without an id), else its oldest, so that a config set over 0.3
// under another id is still seen. With push notifications off, both methods answer -32003 before
// looking at their params, and the card says `pushNotifications: false`.

/** The config in 0.1.0's fields (the id and version are the kit's), secrets masked. */
function shown01(stored: StoredPushConfig): PushNotificationConfig {
  const { id: _id, protocol: _protocol, ...fields01 } = stored;
  return withSecretsMasked(fields01);
}

/**
 * tasks/pushNotification/set [7.5]: sets the task's config (URL checks, then stored), or with
 * `pushNotificationConfig: null` removes it. Answers with the config as stored, its token and
 * credentials masked, or `null` once it is removed: the published schema allows a null result but
 * no null config in it.
 */
const pushNotificationSet: UnaryMethod<
  TaskPushNotificationConfig,
  'CreateTaskPushNotificationConfig' | 'DeleteTaskPushNotificationConfig'
> = {
  operation: 'CreateTaskPushNotificationConfig',
  kind: 'unary',
  validateParams: validateTaskPushNotificationConfig,
  toOperation: ({ id, pushNotificationConfig }) =>
    pushNotificationConfig
      ? operation('CreateTaskPushNotificationConfig', { taskId: id, config: pushConfigFrom01(pushNotificationConfig) })
      : operation('DeleteTaskPushNotificationConfig', { taskId: id }),
  answer: (stored, { id }) => (stored ? { id, pushNotificationConfig: shown01(stored) } : null),
};

/**
 * tasks/pushNotification/get [7.6]: the task's config, token and credentials masked. A task with
 * none gets -32001 "Push notification config not found": the spec's `pushNotificationConfig: null`
 * fails the published schema, and the reference Python client refuses the whole answer.
 */
const pushNotificationGet: UnaryMethod<TaskIdParams, 'GetTaskPushNotificationConfig'> = {
  operation: 'GetTaskPushNotificationConfig',
  kind: 'unary',
  validateParams: validateTaskIdParams,
  toOperation: ({ id }) => operation('GetTaskPushNotificationConfig', { taskId: id }),
  answer: (stored, { id }) => ({ id, pushNotificationConfig: shown01(stored) }),
};

/** Every A2A 0.1.0 method, by name. */
export const methods01: Readonly<Record<A2AMethod, Method>> = {
  'tasks/send': send,
  'tasks/sendSubscribe': sendSubscribe,
  'tasks/get': get,
  'tasks/cancel': cancel,
  'tasks/pushNotification/set': pushNotificationSet,
  'tasks/pushNotification/get': pushNotificationGet,
  'tasks/resubscribe': resubscribe,
};
