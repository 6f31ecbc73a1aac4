// The A2A 1.0 HTTP+JSON binding (spec 1.0 11): each route and the 1.0 operation it calls, and
// errors as the `google.rpc.Status` body of 11.6 with the HTTP statuses of 5.4. The routes are
// those of the proto's `google.api.http` annotations, below the interface's URL; subscribing is
// served on GET (the proto) and POST (the specification text). Each route is also served below a
// tenant's segment (`/{tenant}/message:send`, the proto's `additional_bindings`): transports/rest.ts.
import type { A2AError } from 'a2a-types/model';
import type { ErrorBody10, ErrorDetail10 } from 'a2a-types/v1.0';
import { statusesOf10, errorTo10 } from './mapping.js';
import type { RestBinding, RestRoute } from '../../protocol/version.js';

/** The query as the method's params: a single value per name (the schema reads numbers and booleans from their text). */
function fromQuery(query: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    if (name === 'A2A-Version' || name === 'a2a-version') continue;
    params[name] = Array.isArray(value) ? value[value.length - 1] : value;
  }
  return params;
}

/** The body without the fields the path gives: the path names the resource (google.api.http). */
function without(body: Record<string, unknown>, ...names: string[]): Record<string, unknown> {
  const rest = { ...body };
  for (const name of names) delete rest[name];
  return rest;
}

const TASK = '([^/]+?)';
const CONFIGS = `^/tasks/${TASK}/pushNotificationConfigs`;

const routes: RestRoute[] = [
  { verb: 'POST', path: /^\/message:send$/, method: 'SendMessage', hasBody: true, params: (_path, _query, body) => body },
  { verb: 'POST', path: /^\/message:stream$/, method: 'SendStreamingMessage', hasBody: true, params: (_path, _query, body) => body },
  {
    verb: 'POST',
    path: new RegExp(`^/tasks/${TASK}:cancel$`),
    method: 'CancelTask',
    hasBody: true,
    params: ([id], _query, body) => ({ ...without(body, 'id'), id }),
  },
  { verb: 'GET', path: new RegExp(`^/tasks/${TASK}:subscribe$`), method: 'SubscribeToTask', params: ([id]) => ({ id }) },
  { verb: 'POST', path: new RegExp(`^/tasks/${TASK}:subscribe$`), method: 'SubscribeToTask', hasBody: true, params: ([id]) => ({ id }) },
  {
    verb: 'POST',
    path: new RegExp(`${CONFIGS}$`),
    method: 'CreateTaskPushNotificationConfig',
    hasBody: true,
    params: ([taskId], _query, body) => ({ ...without(body, 'taskId', 'task_id'), taskId }),
  },
  {
    verb: 'GET',
    path: new RegExp(`${CONFIGS}$`),
    method: 'ListTaskPushNotificationConfigs',
    params: ([taskId], query) => ({ ...fromQuery(query), taskId }),
  },
  {
    verb: 'GET',
    path: new RegExp(`${CONFIGS}/([^/]+)$`),
    method: 'GetTaskPushNotificationConfig',
    params: ([taskId, id]) => ({ taskId, id }),
  },
  {
    verb: 'DELETE',
    path: new RegExp(`${CONFIGS}/([^/]+)$`),
    method: 'DeleteTaskPushNotificationConfig',
    params: ([taskId, id]) => ({ taskId, id }),
  },
  { verb: 'GET', path: /^\/tasks\/([^/]+)$/, method: 'GetTask', params: ([id], query) => ({ ...fromQuery(query), id }) },
  { verb: 'GET', path: /^\/tasks$/, method: 'ListTasks', params: (_path, query) => fromQuery(query) },
  { verb: 'GET', path: /^\/extendedAgentCard$/, method: 'GetExtendedAgentCard', params: () => ({}) },
];

/**
 * An error as the HTTP+JSON binding answers it (spec 1.0 11.6): the HTTP status of its reason (or
 * HTTP's own), repeated as the body's `code`, the gRPC status name, and 1.0's details.
 */
function errorAnswer10(error: A2AError, httpStatus?: number): { status: number; body: ErrorBody10 } {
  const worded = errorTo10(error);
  const statuses = statusesOf10(worded);
  const status = httpStatus ?? statuses.httpStatus;
  const details = worded.data as ErrorDetail10[];
  return { status, body: { error: { code: status, status: statuses.grpcStatus, message: worded.message, details } } };
}

export const rest10: RestBinding = {
  routes,
  errorAnswer: errorAnswer10,
  mediaTypes: ['application/a2a+json', 'application/json'],
  tenantPaths: true,
};
