// The A2A 0.3 HTTP+JSON binding (spec 0.3 3.2.3, the REST tab of each method in 7): each route
// and the 0.3 JSON-RPC method it calls, below the 0.3 interface's URL (`/v0.3/v1/message:send`).
// Bodies are the 0.3 proto's objects in proto JSON (a2a-types/v0.3's proto-json.ts says why); a
// body in the JSON-RPC spelling is read too. An error is the JSONRPCError object 7.1 names for
// every transport, `{ code, message, data }` with 0.3's codes, under the HTTP status of its reason.
import type { A2AError, ErrorReason } from 'a2a-types/model';
import {
  historyLengthFromProtoJson,
  sendParamsFromProtoJson03,
  sendResultToProtoJson03,
  setPushConfigParamsFromProtoJson03,
  streamResultToProtoJson03,
  taskPushConfigToProtoJson03,
  taskToProtoJson03,
  type Message,
  type StreamResult,
  type Task,
  type TaskPushNotificationConfig,
} from 'a2a-types/v0.3';
import type { RestBinding, RestRoute } from '../../protocol/version.js';
import { errorTo03 } from './mapping.js';

const TASK = '([^/]+?)';
const CONFIGS = `^/v1/tasks/${TASK}/pushNotificationConfigs`;

/** The one value of a query parameter (the last, when it is repeated). */
function queryValue(query: Readonly<Record<string, unknown>>, name: string): unknown {
  const value = query[name];
  return Array.isArray(value) ? value[value.length - 1] : value;
}

const answerConfig = (result: unknown) => taskPushConfigToProtoJson03(result as TaskPushNotificationConfig);

const routes: RestRoute[] = [
  {
    verb: 'POST',
    path: /^\/v1\/message:send$/,
    method: 'message/send',
    hasBody: true,
    params: (_path, _query, body) => sendParamsFromProtoJson03(body),
    answer: (result) => sendResultToProtoJson03(result as Task | Message),
  },
  {
    verb: 'POST',
    path: /^\/v1\/message:stream$/,
    method: 'message/stream',
    hasBody: true,
    params: (_path, _query, body) => sendParamsFromProtoJson03(body),
  },
  {
    verb: 'POST',
    path: new RegExp(`^/v1/tasks/${TASK}:cancel$`),
    method: 'tasks/cancel',
    hasBody: true,
    params: ([id]) => ({ id }),
    answer: (result) => taskToProtoJson03(result as Task),
  },
  // The spec subscribes with POST; the official JS SDK's server takes GET too.
  {
    verb: 'POST',
    path: new RegExp(`^/v1/tasks/${TASK}:subscribe$`),
    method: 'tasks/resubscribe',
    hasBody: true,
    params: ([id]) => ({ id }),
  },
  { verb: 'GET', path: new RegExp(`^/v1/tasks/${TASK}:subscribe$`), method: 'tasks/resubscribe', params: ([id]) => ({ id }) },
  {
    verb: 'POST',
    path: new RegExp(`${CONFIGS}$`),
    method: 'tasks/pushNotificationConfig/set',
    hasBody: true,
    // The spec's `{ config }`, or the config alone as the official JS SDK's client sends it; the path names the task.
    params: ([taskId], _query, body) => setPushConfigParamsFromProtoJson03(body, taskId),
    answer: answerConfig,
  },
  {
    verb: 'GET',
    path: new RegExp(`${CONFIGS}$`),
    method: 'tasks/pushNotificationConfig/list',
    params: ([id]) => ({ id }),
    // The proto's ListTaskPushNotificationConfigResponse, which the SDKs read (the spec's REST
    // tab shows a bare array: docs/protocol-0.3.md).
    answer: (result) => ({ configs: (result as TaskPushNotificationConfig[]).map((config) => taskPushConfigToProtoJson03(config)) }),
  },
  {
    verb: 'GET',
    path: new RegExp(`${CONFIGS}/([^/]+)$`),
    method: 'tasks/pushNotificationConfig/get',
    params: ([id, pushNotificationConfigId]) => ({ id, pushNotificationConfigId }),
    answer: answerConfig,
  },
  {
    verb: 'DELETE',
    path: new RegExp(`${CONFIGS}/([^/]+)$`),
    method: 'tasks/pushNotificationConfig/delete',
    params: ([id, pushNotificationConfigId]) => ({ id, pushNotificationConfigId }),
    // google.protobuf.Empty.
    answer: () => ({}),
  },
  // The caller's newest tasks, a bare list (the spec's `[Task]`): methods.ts says how many.
  {
    verb: 'GET',
    path: /^\/v1\/tasks$/,
    method: 'tasks/list',
    params: () => ({}),
    answer: (result) => (result as Task[]).map(taskToProtoJson03),
  },
  {
    verb: 'GET',
    path: new RegExp(`^/v1/tasks/${TASK}$`),
    method: 'tasks/get',
    params: ([id], query) => {
      const historyLength = queryValue(query, 'historyLength') ?? queryValue(query, 'history_length');
      const read = historyLengthFromProtoJson(historyLength);
      return read === undefined ? { id } : { id, historyLength: read };
    },
    answer: (result) => taskToProtoJson03(result as Task),
  },
  // Answered -32007 as over JSON-RPC: the 0.3 card claims no extended card.
  { verb: 'GET', path: /^\/v1\/card$/, method: 'agent/getAuthenticatedExtendedCard', params: () => ({}) },
];

/**
 * The HTTP status of each reason (spec 0.3 3.2.3: "appropriate HTTP status codes ... that
 * correspond to A2A error types"); a task that cannot be canceled is a conflict with its state,
 * as the official JS SDK answers it. A reason not listed is 500.
 */
const STATUS_OF_REASON: Readonly<Partial<Record<ErrorReason, number>>> = {
  PARSE_ERROR: 400,
  INVALID_REQUEST: 400,
  INVALID_PARAMS: 400,
  METHOD_NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  TASK_NOT_CANCELABLE: 409,
  PUSH_NOTIFICATION_NOT_SUPPORTED: 400,
  UNSUPPORTED_OPERATION: 400,
  STREAMING_NOT_SUPPORTED: 400,
  CONTENT_TYPE_NOT_SUPPORTED: 400,
  INVALID_TASK_STATE: 400,
  EXTENSION_SUPPORT_REQUIRED: 400,
  VERSION_NOT_SUPPORTED: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 404,
  RATE_LIMIT_EXCEEDED: 429,
  RESOURCE_UNAVAILABLE: 503,
};

function errorAnswer03(error: A2AError, httpStatus?: number): { status: number; body: unknown } {
  const worded = errorTo03(error);
  const status = httpStatus ?? (worded.reason && STATUS_OF_REASON[worded.reason]) ?? 500;
  return { status, body: worded.toJSON() };
}

export const rest03: RestBinding = {
  routes,
  errorAnswer: errorAnswer03,
  mediaTypes: ['application/json'],
  streamEvent: (event) => streamResultToProtoJson03(event as StreamResult),
};
