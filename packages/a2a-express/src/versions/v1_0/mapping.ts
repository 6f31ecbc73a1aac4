// The one place where the kit's task model (model/task.ts) meets A2A 1.0: requests come in as
// 1.0 and are mapped to the core's operations here; records and events go out as 1.0 from here.
// docs/versions.md says what maps to what, and what cannot be mapped.
//
// 1.0 objects are closed (the published schema refuses a field it does not define), so what goes
// out is built field by field; a request field 1.0 does not define is ignored (spec 1.0 5.7).
import type { PushBody } from '../../push/push-notifier.js';
import { A2AError, ErrorCode, type ErrorReason, type ValidationIssue } from 'a2a-types';
import * as v10 from 'a2a-types/v1.0';
import { artifactIdOf, derivedMessageId } from '../../core/message-ids.js';
import type { Artifact, Message, Part, StoredPushConfig, TaskEvent, TaskState, TaskStatus } from '../../model/task.js';
import type { SendMessageParams } from '../../core/operations.js';
import { withSecretsMasked } from '../../push/push-config.js';
import { taskSnapshot, type StoredEvent, type TaskRecord } from '../../model/record.js';

/** The protocol version this binding speaks, as its card and `A2A-Version` say it. */
export const PROTOCOL_VERSION_10 = '1.0';
/** How the kit names this version: in logs, and on the push configs set over it. */
export const PROTOCOL_NAME_10 = '1.0';

const STATES: Readonly<Record<TaskState, v10.TaskState>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};
const STATES_BY_NAME = new Map(Object.entries(STATES).map(([state, name]) => [name, state as TaskState]));

/** The core's state of a 1.0 state name (a `status` filter). */
export function stateFrom10(state: v10.TaskState): TaskState | undefined {
  return state === 'TASK_STATE_UNSPECIFIED' ? undefined : STATES_BY_NAME.get(state);
}

// ---------------------------------------------------------------------------------------------
// 1.0 → the core (requests)

/**
 * A 1.0 part as the handler API has it. Text stays text, `raw` and `url` become a file (bytes or
 * URI, with its media type and name), `data` stays data. A part's `mediaType` and `filename` on a
 * text or data part are kept beside it, for 1.0 to show them again.
 */
function partFrom10(part: v10.Part, at: string, issues: ValidationIssue[]): Part {
  const { metadata, mediaType, filename } = part;
  const common: Record<string, unknown> = {};
  if (metadata !== undefined) common.metadata = metadata;
  if ('text' in part) return { type: 'text', text: part.text, ...common, ...besides(mediaType, filename) } as Part;
  if ('data' in part) {
    // The handler API, 0.1.0 and 0.3 carry an object or an array; a bare value cannot be shown
    // to their clients as it was sent, so it is refused rather than changed.
    if (part.data === null || typeof part.data !== 'object') {
      issues.push({
        path: `${at}/data`,
        message: 'must be an object or an array on this agent',
        keyword: 'type',
        params: { type: 'object' },
      });
    }
    return { type: 'data', data: part.data as Record<string, unknown>, ...common, ...besides(mediaType, filename) } as Part;
  }
  // Bytes in URL-safe base64 (which ProtoJSON parsers read too) are kept in the standard alphabet.
  const file: Record<string, unknown> = 'raw' in part ? { bytes: part.raw.replaceAll('-', '+').replaceAll('_', '/') } : { uri: part.url };
  if (mediaType !== undefined) file.mimeType = mediaType;
  if (filename !== undefined) file.name = filename;
  return { type: 'file', file, ...common } as Part;
}

function besides(mediaType: string | undefined, filename: string | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  if (mediaType !== undefined) kept.mediaType = mediaType;
  if (filename !== undefined) kept.filename = filename;
  return kept;
}

/** A 1.0 message as the core keeps it: the handler API's parts and role, its ids beside them. */
function messageFrom10(message: v10.Message, at = '/message'): Message {
  const issues: ValidationIssue[] = [];
  const parts = message.parts.map((part, i) => partFrom10(part, `${at}/parts/${i}`, issues));
  if (issues.length > 0) throw A2AError.invalidParams(issues);
  const mapped: Message = { role: message.role === 'ROLE_AGENT' ? 'agent' : 'user', parts, messageId: message.messageId };
  if (message.contextId) mapped.contextId = message.contextId;
  if (message.taskId) mapped.taskId = message.taskId;
  if (message.metadata !== undefined) mapped.metadata = message.metadata;
  if (message.extensions?.length) mapped.extensions = message.extensions;
  if (message.referenceTaskIds?.length) mapped.referenceTaskIds = message.referenceTaskIds;
  return mapped;
}

/**
 * A 1.0 push config as the store keeps it; without an id, it gets `defaultId()`. What goes into a
 * header of every notification (the token, the scheme and credentials) must be sendable as one:
 * -32602 otherwise, rather than a webhook that never gets a notification.
 */
export function pushConfigFrom10(config: v10.TaskPushNotificationConfig, defaultId: () => string, at: string): StoredPushConfig {
  const issues: ValidationIssue[] = [];
  const headerValue = (value: string | undefined, path: string, pattern: RegExp, what: string) => {
    if (value !== undefined && !pattern.test(value)) {
      issues.push({ path: `${at}${path}`, message: `must be ${what}`, keyword: 'pattern', params: { pattern: pattern.source } });
    }
  };
  headerValue(config.token, '/token', FIELD_VALUE, 'text an HTTP header can carry (no line breaks or control characters)');
  headerValue(config.authentication?.scheme, '/authentication/scheme', TOKEN, 'an HTTP authentication scheme name (Bearer, Basic, ...)');
  headerValue(config.authentication?.credentials, '/authentication/credentials', FIELD_VALUE, 'text an HTTP header can carry');
  if (issues.length > 0) throw A2AError.invalidParams(issues);
  const stored: StoredPushConfig = { url: config.url, id: config.id || defaultId(), protocol: PROTOCOL_NAME_10 };
  if (config.token) stored.token = config.token;
  if (config.authentication) {
    stored.authentication = { schemes: [config.authentication.scheme] };
    if (config.authentication.credentials !== undefined) stored.authentication.credentials = config.authentication.credentials;
  }
  return stored;
}

/** RFC 9110 5.6.2 `token`. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 5.5 field value: visible characters, spaces and tabs. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * `SendMessage` or `SendStreamingMessage` in the core's model. A message without `taskId` starts
 * a new task, whose id the server makes; `contextId` is the task's context.
 */
export function sendFrom10(params: v10.SendMessageRequest): SendMessageParams {
  const { message, configuration, metadata } = params;
  const send: SendMessageParams = { message: messageFrom10(message) };
  const config = configuration?.taskPushNotificationConfig;
  const { historyLength, returnImmediately, acceptedOutputModes } = configuration ?? {};
  if (config || historyLength !== undefined || returnImmediately !== undefined || acceptedOutputModes?.length) {
    send.configuration = {};
    // Proto3 has no absent list: an empty one is "not said".
    if (acceptedOutputModes?.length) send.configuration.acceptedOutputModes = [...acceptedOutputModes];
    // Without an id, the task's own config (see `PushConfigInput`).
    if (config)
      send.configuration.taskPushNotificationConfig = pushConfigFrom10(config, () => '', '/configuration/taskPushNotificationConfig');
    if (historyLength !== undefined) send.configuration.historyLength = historyLength;
    if (returnImmediately !== undefined) send.configuration.returnImmediately = returnImmediately;
  }
  if (metadata !== undefined) send.metadata = metadata;
  return send;
}

// ---------------------------------------------------------------------------------------------
// the core → 1.0 (answers, events, notifications)

function partTo10(part: Part): v10.Part {
  const extras = part as Part & { mediaType?: unknown; filename?: unknown };
  const common: Record<string, unknown> = {};
  if (part.metadata != null) common.metadata = part.metadata;
  if (part.type === 'file') {
    const { file } = part;
    const mapped: Record<string, unknown> = file.uri != null ? { url: file.uri } : { raw: file.bytes ?? '' };
    if (file.mimeType != null) mapped.mediaType = file.mimeType;
    if (file.name != null) mapped.filename = file.name;
    return { ...mapped, ...common } as unknown as v10.Part;
  }
  const mapped: Record<string, unknown> = part.type === 'text' ? { text: part.text } : { data: part.data };
  if (typeof extras.mediaType === 'string') mapped.mediaType = extras.mediaType;
  if (typeof extras.filename === 'string') mapped.filename = extras.filename;
  return { ...mapped, ...common } as unknown as v10.Part;
}

/**
 * A message as 1.0 sends it, in the task's context. Without `taskId`, a message that is the whole
 * answer (a `reply`): it names no task (its id is still derived from the task's).
 */
export function messageTo10(message: Message, taskId: string | undefined, contextId: string, idSource = taskId ?? ''): v10.Message {
  const mapped: v10.Message = {
    messageId: typeof message.messageId === 'string' ? message.messageId : derivedMessageId(idSource, message),
    contextId,
    role: message.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: message.parts.map(partTo10),
  };
  if (taskId !== undefined) mapped.taskId = taskId;
  if (message.metadata != null) mapped.metadata = message.metadata;
  if (Array.isArray(message.extensions) && message.extensions.length > 0) mapped.extensions = message.extensions;
  if (Array.isArray(message.referenceTaskIds) && message.referenceTaskIds.length > 0) mapped.referenceTaskIds = message.referenceTaskIds;
  return mapped;
}

function statusTo10(status: TaskStatus, taskId: string, contextId: string): v10.TaskStatus {
  const mapped: v10.TaskStatus = { state: STATES[status.state] };
  if (status.message != null) mapped.message = messageTo10(status.message, taskId, contextId);
  if (status.timestamp != null) mapped.timestamp = status.timestamp;
  return mapped;
}

function artifactTo10(artifact: Artifact): v10.Artifact {
  const mapped: v10.Artifact = { artifactId: artifactIdOf(artifact.index), parts: artifact.parts.map(partTo10) };
  if (artifact.name != null) mapped.name = artifact.name;
  if (artifact.description != null) mapped.description = artifact.description;
  if (artifact.metadata != null) mapped.metadata = artifact.metadata;
  return mapped;
}

/**
 * The task as a 1.0 answer carries it. `historyLength` N keeps the last N messages and 0 none;
 * without it the whole history comes along. `withArtifacts: false` leaves `artifacts` out
 * (ListTasks without `includeArtifacts`).
 */
export function taskTo10(record: TaskRecord, historyLength?: number, withArtifacts = true): v10.Task {
  const snapshot = taskSnapshot(record, historyLength ?? record.history.length);
  const { id, contextId } = snapshot;
  const task: v10.Task = { id, contextId, status: statusTo10(snapshot.status, id, contextId) };
  if (withArtifacts && snapshot.artifacts) task.artifacts = snapshot.artifacts.map(artifactTo10);
  if (snapshot.history) task.history = snapshot.history.map((m) => messageTo10(m, id, contextId));
  if (snapshot.metadata) task.metadata = snapshot.metadata;
  return task;
}

/** The answer of a turn that ended with a `reply`: its message alone. */
export function replyTo10(record: TaskRecord): v10.Message {
  const { message } = record.task.status;
  if (!message) throw new Error(`task ${record.task.id} replied without a message`);
  return messageTo10(message, undefined, record.task.contextId, record.task.id);
}

/** A stored event as a 1.0 stream sends it (a `StreamResponse`; 1.0 has no `final`: the stream's end says it). */
function eventTo10(event: TaskEvent, contextId: string): v10.StreamResponse {
  const taskId = event.id;
  if ('status' in event) {
    const statusUpdate: v10.TaskStatusUpdateEvent = { taskId, contextId, status: statusTo10(event.status, taskId, contextId) };
    if (event.metadata != null) statusUpdate.metadata = event.metadata;
    return { statusUpdate };
  }
  const { artifact } = event;
  const artifactUpdate: v10.TaskArtifactUpdateEvent = { taskId, contextId, artifact: artifactTo10(artifact) };
  if (artifact.append) artifactUpdate.append = true;
  if (artifact.lastChunk) artifactUpdate.lastChunk = true;
  if (event.metadata != null) artifactUpdate.metadata = event.metadata;
  return { artifactUpdate };
}

/** Renders a stream's stored events as 1.0 events of the task in `contextId`. */
export function eventsTo10(contextId: string): (stored: StoredEvent) => unknown {
  return (stored) => eventTo10(stored.event, contextId);
}

/** The body of a push notification to a webhook set over 1.0: a `StreamResponse` (spec 1.0 4.3.3). */
export const pushBodyTo10: PushBody = (record, event): v10.StreamResponse => {
  const { id, contextId } = record.task;
  return { statusUpdate: { taskId: id, contextId, status: statusTo10(event.status, id, contextId) } };
};

/** A stored push config as 1.0 shows it, flat, with its task's id; secrets masked. */
export function pushConfigTo10(config: StoredPushConfig, taskId: string): v10.TaskPushNotificationConfig {
  const masked = withSecretsMasked(config);
  const mapped: v10.TaskPushNotificationConfig = { taskId, id: config.id, url: masked.url };
  if (masked.token != null) mapped.token = masked.token;
  const scheme = masked.authentication?.schemes[0];
  if (scheme !== undefined) {
    mapped.authentication = { scheme };
    if (masked.authentication?.credentials != null) mapped.authentication.credentials = masked.authentication.credentials;
  }
  return mapped;
}

// ---------------------------------------------------------------------------------------------
// errors

/** How 1.0 answers an error of one reason on each binding: its JSON-RPC code, HTTP status and gRPC status (spec 1.0 5.4). */
interface Binding10 {
  readonly code: number;
  readonly httpStatus: number;
  readonly grpcStatus: string;
}

/**
 * 1.0's one table of errors: every `ErrorInfo` reason 1.0 sends (those of the spec's table, and
 * those the kit adds), with what each binding answers it with. 1.0 has no JSON-RPC code for a
 * refused credential or permission (spec 1.0 3.3.2: a custom error): -32000, the first code
 * JSON-RPC leaves to servers, with the gRPC name as its reason; the limits keep the kit's codes.
 */
const REASONS_10: ReadonlyMap<string, Binding10> = new Map([
  ...Object.entries(v10.ERROR_BINDINGS_10).map(
    ([code, { reason, httpStatus, grpcStatus }]) => [reason, { code: Number(code), httpStatus, grpcStatus }] as const,
  ),
  ['UNAUTHENTICATED', { code: -32000, httpStatus: 401, grpcStatus: 'UNAUTHENTICATED' }],
  ['PERMISSION_DENIED', { code: -32000, httpStatus: 403, grpcStatus: 'PERMISSION_DENIED' }],
  ['RATE_LIMIT_EXCEEDED', { code: ErrorCode.RateLimitExceeded, httpStatus: 429, grpcStatus: 'RESOURCE_EXHAUSTED' }],
  ['RESOURCE_UNAVAILABLE', { code: ErrorCode.ResourceUnavailable, httpStatus: 503, grpcStatus: 'UNAVAILABLE' }],
]);

/**
 * The kit's reasons 1.0 says with another: streaming off, and a message to a task that cannot
 * take one (ended, or still working), are operations not supported (spec 1.0 3.1.1).
 */
const SAID_AS_10: Partial<Record<ErrorReason, { reason: ErrorReason; message?: string }>> = {
  STREAMING_NOT_SUPPORTED: { reason: 'UNSUPPORTED_OPERATION', message: 'Streaming is not supported' },
  INVALID_TASK_STATE: { reason: 'UNSUPPORTED_OPERATION' },
};

/** The statuses of an error HTTP+JSON and gRPC answer. */
export type Statuses10 = Pick<Binding10, 'httpStatus' | 'grpcStatus'>;

/** An error of a reason 1.0 does not name (a handler's own code): a server's failure, to HTTP and gRPC. */
const UNNAMED_10: Statuses10 = { httpStatus: 500, grpcStatus: 'INTERNAL' };

/**
 * The HTTP and gRPC statuses of an error 1.0 has worded (`errorTo10`), by its reason: those of
 * 1.0's table, or a server's failure for a reason it does not name.
 */
export function statusesOf10(worded: A2AError): Statuses10 {
  return (worded.reason && REASONS_10.get(worded.reason)) || UNNAMED_10;
}

/**
 * An error as a 1.0 client gets it, by its reason: 1.0's reason and code, and in `data` the typed
 * details 1.0 carries (spec 1.0 9.5): a `google.rpc.ErrorInfo` naming the error (what the kit said
 * in `data`, as its string metadata), and for invalid params a `google.rpc.BadRequest` with each
 * issue. The reason stays on the error, for the HTTP+JSON and gRPC bindings to find their status by.
 */
export function errorTo10(error: A2AError): A2AError {
  const said = error.reason && SAID_AS_10[error.reason];
  const reason = said?.reason ?? error.reason;
  // An error of a code the kit does not define (a handler's own) keeps its code.
  const code = reason === undefined ? error.code : (REASONS_10.get(reason)?.code ?? error.code);
  const details: v10.ErrorDetail10[] = [v10.errorInfo(reason ?? 'UNKNOWN', metadataOf(error.data))];
  const info = details[0] as v10.ErrorInfo;
  // The kit's words for states are its model's; a 1.0 client reads 1.0's.
  const state = info.metadata?.state;
  if (state !== undefined && Object.hasOwn(STATES, state)) info.metadata!.state = STATES[state as TaskState];
  const issues = issuesOf(error.data);
  if (issues) {
    details.push({
      '@type': v10.BAD_REQUEST_TYPE,
      fieldViolations: issues.map((issue) => ({ field: issue.path, description: issue.message, reason: issue.keyword })),
    });
  }
  return new A2AError(code as ErrorCode, said?.message ?? error.message, details, reason);
}

function issuesOf(data: unknown): ValidationIssue[] | undefined {
  const list = Array.isArray(data) ? data : (data as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(list) || !list.every((item) => item && typeof item === 'object' && typeof item.path === 'string')) return undefined;
  return list as ValidationIssue[];
}

/** `ErrorInfo.metadata` holds strings: the kit's `data` fields, each as a string. */
function metadataOf(data: unknown): Record<string, string> | undefined {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    metadata[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return metadata;
}
