// The one place where the kit's task model (model/task.ts) meets A2A 0.3: requests come in as
// 0.3 and are mapped to the core's operations here; records and events go out as 0.3 from here.
// docs/protocol-0.3.md says what maps to what, and what cannot be mapped.
//
// Nothing a 0.3 client sends is dropped on the way in: the message fields the handler API has no
// place for (`messageId`, `contextId`, `taskId`, `referenceTaskIds`, `extensions`, unknown extras)
// stay on the stored message and come back out as they were.
import { A2AError, ErrorCode, setOwnField } from 'a2a-types/model';
import type * as v03 from 'a2a-types/v0.3';
import type { PushBody } from '../../push/push-notifier.js';
import { messageFrom03 } from 'a2a-types/v0.3';
import { withPathsRenamed } from '../../core/error-paths.js';
import { partFieldIssues } from '../../core/message-fields.js';
import { artifactIdOf, derivedMessageId } from '../../core/message-ids.js';
import type { Artifact, Message, Part, StoredPushConfig, TaskEvent, TaskStatus } from '../../model/task.js';
import type { PushConfigInput, SendMessageParams } from '../../core/operations.js';
import { withSecretsMasked } from '../../push/push-config.js';
import { taskSnapshot, type StoredEvent, type TaskRecord } from '../../model/record.js';

/** The protocol version this binding speaks, as its card says it. */
export const PROTOCOL_VERSION_03 = '0.3.0';
/** How the kit names this version: in logs, and on the push configs set over it. */
export const PROTOCOL_NAME_03 = '0.3';

// ---------------------------------------------------------------------------------------------
// 0.3 → the core (requests)

/** A 0.3 push config as the core takes it; without an `id`, the task's own config. */
export function pushConfigFrom03(config: v03.PushNotificationConfig): PushConfigInput {
  return { ...config, protocol: PROTOCOL_NAME_03 } as PushConfigInput;
}

/**
 * A 0.3 `message/send` or `message/stream` in the core's model. A message without `taskId`
 * starts a new task, whose id the server makes; `contextId` is the task's context.
 * `configuration.blocking: false` answers at once.
 */
export function sendFrom03(params: v03.MessageSendParams): SendMessageParams {
  const { message, configuration, metadata } = params;
  // `type` is the handler API's name for a part's `kind`, the one the kit stores it under.
  const crossed = partFieldIssues(message.parts, '/message/parts', 'type');
  if (crossed.length > 0) throw A2AError.invalidParams(crossed);
  const send: SendMessageParams = { message: messageFrom03(message) };
  if (configuration) {
    send.configuration = {};
    const { pushNotificationConfig, historyLength, blocking, acceptedOutputModes } = configuration;
    if (acceptedOutputModes) send.configuration.acceptedOutputModes = [...acceptedOutputModes];
    if (pushNotificationConfig) send.configuration.taskPushNotificationConfig = pushConfigFrom03(pushNotificationConfig);
    if (historyLength != null) send.configuration.historyLength = historyLength;
    if (blocking === false) send.configuration.returnImmediately = true;
  }
  if (metadata !== undefined) send.metadata = metadata;
  return send;
}

// ---------------------------------------------------------------------------------------------
// the core → 0.3 (answers, events, notifications)

/** The 0.3 `contextId` of a task. */
function contextIdOf(record: TaskRecord): string {
  return record.task.contextId;
}

export function partTo03(part: Part): v03.Part {
  const mapped: Record<string, unknown> = { kind: part.type };
  // The part's own type, even over a `kind` that a record stored before this was refused holds.
  copyFieldsInto(mapped, part, PART_FIELDS_SET_APART);
  if (part.metadata != null) mapped.metadata = part.metadata;
  if (part.type === 'file') mapped.file = fileTo03(part.file);
  // 0.3 takes an object only; a bare array (0.1.0 spec 6.5.3, from a 0.1.0 client) is wrapped.
  if (part.type === 'data' && Array.isArray(part.data)) mapped.data = { items: part.data };
  return mapped as unknown as v03.Part;
}

const PART_FIELDS_SET_APART = new Set(['type', 'kind', 'metadata']);

/** A file without content (0.1.0 allows a bare reference) gets an empty `bytes`: 0.3 needs one of the two. */
function fileTo03(file: Extract<Part, { type: 'file' }>['file']): v03.FileWithBytes | v03.FileWithUri {
  const mapped = withoutNulls(file) as Record<string, unknown>;
  if (mapped.bytes === undefined && mapped.uri === undefined) mapped.bytes = '';
  return mapped as unknown as v03.FileWithBytes;
}

/**
 * A message of a task as 0.3 sends it, in the task's context. Without `taskId`, a message that is
 * the whole answer (a `reply`): it names no task (its id is still derived from the task's).
 */
export function messageTo03(message: Message, taskId: string | undefined, contextId: string, idSource = taskId ?? ''): v03.Message {
  const mapped: Record<string, unknown> = {};
  // A stored `taskId` is the task's own, set again below; a reply names no task.
  copyFieldsInto(mapped, message, taskId === undefined ? MESSAGE_FIELDS_SET_APART_IN_A_REPLY : MESSAGE_FIELDS_SET_APART);
  mapped.kind = 'message';
  mapped.messageId = typeof message.messageId === 'string' ? message.messageId : derivedMessageId(idSource, message);
  mapped.parts = message.parts.map(partTo03);
  mapped.contextId = contextId;
  if (taskId !== undefined) mapped.taskId = taskId;
  if (message.metadata != null) mapped.metadata = message.metadata;
  return mapped as unknown as v03.Message;
}

const MESSAGE_FIELDS_SET_APART = new Set(['parts', 'metadata']);
const MESSAGE_FIELDS_SET_APART_IN_A_REPLY = new Set(['parts', 'metadata', 'taskId']);

/** The answer of a turn that ended with a `reply`: its message alone. */
export function replyTo03(record: TaskRecord): v03.Message {
  const { message } = record.task.status;
  if (!message) throw new Error(`task ${record.task.id} replied without a message`);
  return messageTo03(message, undefined, contextIdOf(record), record.task.id);
}

function statusTo03(status: TaskStatus, taskId: string, contextId: string): v03.TaskStatus {
  const mapped: v03.TaskStatus = { state: status.state };
  if (status.message != null) mapped.message = messageTo03(status.message, taskId, contextId);
  if (status.timestamp != null) mapped.timestamp = status.timestamp;
  return mapped;
}

/** An artifact without the core's streaming fields (`index`, `append`, `lastChunk`), named by `artifactId`. */
function artifactTo03(artifact: Artifact): v03.Artifact {
  const mapped: Record<string, unknown> = {};
  copyFieldsInto(mapped, artifact, ARTIFACT_FIELDS_SET_APART);
  mapped.artifactId = artifactIdOf(artifact.index);
  mapped.parts = artifact.parts.map(partTo03);
  return mapped as unknown as v03.Artifact;
}

const ARTIFACT_FIELDS_SET_APART = new Set(['index', 'append', 'lastChunk', 'parts']);

/**
 * The task as a 0.3 answer carries it. `historyLength` N keeps the last N messages and 0 none;
 * without it the whole history comes along (a 0.3 Task carries its history).
 */
export function taskTo03(record: TaskRecord, historyLength?: number, withArtifacts = true): v03.Task {
  const snapshot = taskSnapshot(record, historyLength ?? record.history.length);
  const contextId = contextIdOf(record);
  const { id } = snapshot;
  const task: v03.Task = { kind: 'task', id, contextId, status: statusTo03(snapshot.status, id, contextId) };
  if (withArtifacts && snapshot.artifacts) task.artifacts = snapshot.artifacts.map(artifactTo03);
  if (snapshot.history) task.history = snapshot.history.map((m) => messageTo03(m, id, contextId));
  if (snapshot.metadata) task.metadata = snapshot.metadata;
  return task;
}

/** A stored event as a 0.3 stream sends it. */
export function eventTo03(event: TaskEvent, contextId: string): v03.TaskStatusUpdateEvent | v03.TaskArtifactUpdateEvent {
  const taskId = event.id;
  if ('status' in event) {
    const mapped: v03.TaskStatusUpdateEvent = {
      kind: 'status-update',
      taskId,
      contextId,
      status: statusTo03(event.status, taskId, contextId),
      final: event.final === true,
    };
    if (event.metadata != null) mapped.metadata = event.metadata;
    return mapped;
  }
  const { artifact } = event;
  const mapped: v03.TaskArtifactUpdateEvent = { kind: 'artifact-update', taskId, contextId, artifact: artifactTo03(artifact) };
  if (artifact.append != null) mapped.append = artifact.append;
  if (artifact.lastChunk != null) mapped.lastChunk = artifact.lastChunk;
  if (event.metadata != null) mapped.metadata = event.metadata;
  return mapped;
}

/** The body of a push notification to a webhook set over 0.3: the Task with the new status (spec 0.3 9.5). */
export const pushBodyTo03: PushBody = (record, event): v03.Task => {
  const { id } = record.task;
  const contextId = contextIdOf(record);
  return { kind: 'task', id, contextId, status: statusTo03(event.status, id, contextId) };
};

/** Renders a stream's stored events as 0.3 events of the task in `contextId`. */
export function eventsTo03(contextId: string): (stored: StoredEvent) => unknown {
  return (stored) => eventTo03(stored.event, contextId);
}

/** A stored push config as 0.3 shows it: with its `id`, secrets masked. */
export function pushConfigTo03(config: StoredPushConfig): v03.PushNotificationConfig {
  const { protocol: _protocol, id, authentication, ...fields } = withSecretsMasked(config);
  const mapped = { ...withoutNulls(fields), id } as v03.PushNotificationConfig;
  if (authentication != null) mapped.authentication = withoutNulls(authentication) as v03.PushNotificationAuthenticationInfo;
  return mapped;
}

/**
 * An error as a 0.3 client gets it. 0.1.0's -32006 (streaming not supported) and -32007
 * (authentication required) mean something else in 0.3 (an invalid agent response; no extended
 * card), and 0.3 clients read them so: streaming off becomes 0.3's -32004, and a refused
 * credential -32000, the JSON-RPC code left to servers (with HTTP 401 and `WWW-Authenticate`, as
 * in 0.1.0). Every other code means the same in both.
 */
export function errorTo03(error: A2AError): A2AError {
  const renamed = withPathsRenamed(error, PATHS_03);
  if (renamed) return errorTo03(renamed);
  switch (error.reason) {
    case 'STREAMING_NOT_SUPPORTED':
      return new A2AError(
        ErrorCode.UnsupportedOperation,
        'Streaming is not supported',
        { reason: 'this agent does not stream' },
        error.reason,
      );
    case 'UNAUTHENTICATED':
    // 0.3 names no error for a required extension a call does not ask for.
    case 'EXTENSION_SUPPORT_REQUIRED':
      return new A2AError(SERVER_ERROR as ErrorCode, error.message, error.data, error.reason);
    default:
      // Every other reason has the same code in 0.3 as the kit gives it (0.3's own, such as
      // EXTENDED_AGENT_CARD_NOT_CONFIGURED, are made with 0.3's code).
      return error;
  }
}

/** Where 0.3 sends what the core's operations name otherwise. */
const PATHS_03: Readonly<Record<string, string>> = { '/configuration/taskPushNotificationConfig': '/configuration/pushNotificationConfig' };

/** JSON-RPC 2.0's first implementation-defined server error, which no A2A version gives a meaning. */
const SERVER_ERROR = -32000;

/**
 * Copies the fields of `source` that 0.3 sends as they are: its own, but those `setApart` (which
 * the caller sets itself) and those holding null (0.1.0 allows null where 0.3 wants the field left
 * out), in their order. Written for the hot path: every message, part and artifact of an answer
 * or an event goes through it, and destructuring with a rest, then spreading, cost several times
 * as much.
 */
function copyFieldsInto(target: Record<string, unknown>, source: object, setApart: ReadonlySet<string>): void {
  for (const key in source) {
    if (setApart.has(key) || !Object.hasOwn(source, key)) continue;
    const field = (source as Record<string, unknown>)[key];
    if (field != null) setOwnField(target, key, field);
  }
}

/** The object without its null-valued fields: 0.1.0 allows null where 0.3 wants the field left out. */
function withoutNulls<T extends object>(value: T): T {
  const copy: Record<string, unknown> = {};
  copyFieldsInto(copy, value, NO_FIELDS);
  return copy as T;
}

const NO_FIELDS: ReadonlySet<string> = new Set();
