// A2A 0.3's HTTP+JSON binding carries the objects of the 0.3 proto (package `a2a.v1`) in their
// proto JSON form: the binding is the HTTP transcoding of the proto's `google.api.http` routes,
// which is where the spec's REST URLs come from, and what the official SDKs send and read. The
// differences from the JSON-RPC objects: no `kind` (a part is `{ text }`, `{ file }` or
// `{ data: { data } }`, a stream event is wrapped by its case), a message's parts are `content`,
// roles and states are enum names (`ROLE_USER`, `TASK_STATE_WORKING`), a push config is named by
// its resource (`tasks/{id}/pushNotificationConfigs/{configId}`). Both directions live here so
// that the server and the client read exactly what the other writes; the gRPC binding (./grpc)
// reads and writes its bytes through this form too, so both bindings map objects by these rules.
//
// Reading is lenient, as proto JSON parsers are: a field's proto name (`context_id`) is taken as
// well as its JSON name, an enum by its number too, and the JSON-RPC spelling of an object
// (`parts`, `kind`, `role: 'user'`) is kept as it is; a field 0.3 requires that proto3 leaves out
// when it holds its zero (an empty id, an unspecified state) reads as that zero; whatever cannot
// be read is passed on as it came, for the 0.3 schema to refuse with a field path. Reading never
// throws.
import type {
  Artifact,
  Message,
  MessageSendParams,
  Part,
  PushNotificationConfig,
  StreamResult,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from './types.js';

type Json = Record<string, unknown>;

const STATE_NAMES: Readonly<Record<TaskState, string>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELLED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};
/** The proto's enum numbers, in its order (`TASK_STATE_UNSPECIFIED` is 0). */
const STATES_BY_NUMBER: readonly TaskState[] = [
  'unknown',
  'submitted',
  'working',
  'completed',
  'failed',
  'canceled',
  'input-required',
  'rejected',
  'auth-required',
];
const STATES_BY_NAME: ReadonlyMap<string, TaskState> = new Map(
  Object.entries(STATE_NAMES).map(([state, name]) => [name, state as TaskState]),
);

const ROLE_NAMES: Readonly<Record<string, string>> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field under its JSON name, else its proto name. */
function field(json: Json, name: string, protoName?: string): unknown {
  const value = json[name];
  if (value !== undefined && value !== null) return value;
  return protoName === undefined ? undefined : (json[protoName] ?? undefined);
}

/**
 * A string field 0.3 requires: proto3 leaves an empty string out, so one that is not there is
 * empty (as the official SDKs' servers leave out a status update's empty `contextId`).
 */
function requiredText(json: Json, name: string, protoName?: string): unknown {
  return field(json, name, protoName) ?? '';
}

/** Sets `name` when `value` is present: proto JSON leaves out what is not set. */
function put(target: Json, name: string, value: unknown): void {
  if (value !== undefined) target[name] = value;
}

// ---------------------------------------------------------------------------------------------
// 0.3 JSON → proto JSON

/**
 * A part. The 0.3 proto has no field for a part's `metadata` nor a file's `name`: they are not
 * carried (a parser that refuses unknown fields would refuse the whole message).
 */
export function partToProtoJson03(part: Part): Json {
  if (part.kind === 'text') return { text: part.text };
  if (part.kind === 'data') return { data: { data: part.data } };
  const { file } = part;
  const protoFile: Json = 'uri' in file ? { fileWithUri: file.uri } : { fileWithBytes: file.bytes };
  put(protoFile, 'mimeType', file.mimeType);
  return { file: protoFile };
}

/** A message; `referenceTaskIds` has no field in the 0.3 proto and is not carried. */
export function messageToProtoJson03(message: Message): Json {
  const json: Json = { messageId: message.messageId };
  put(json, 'contextId', message.contextId);
  put(json, 'taskId', message.taskId);
  // A role that is neither is not made one: unspecified, for the reader to refuse.
  json.role = ROLE_NAMES[message.role] ?? 'ROLE_UNSPECIFIED';
  json.content = message.parts.map(partToProtoJson03);
  put(json, 'metadata', message.metadata);
  if (message.extensions?.length) json.extensions = message.extensions;
  return json;
}

function statusToProtoJson03(status: TaskStatus): Json {
  const json: Json = { state: STATE_NAMES[status.state] ?? 'TASK_STATE_UNSPECIFIED' };
  if (status.message) json.message = messageToProtoJson03(status.message);
  put(json, 'timestamp', status.timestamp);
  return json;
}

function artifactToProtoJson03(artifact: Artifact): Json {
  const json: Json = { artifactId: artifact.artifactId };
  put(json, 'name', artifact.name);
  put(json, 'description', artifact.description);
  json.parts = artifact.parts.map(partToProtoJson03);
  put(json, 'metadata', artifact.metadata);
  if (artifact.extensions?.length) json.extensions = artifact.extensions;
  return json;
}

export function taskToProtoJson03(task: Task): Json {
  const json: Json = { id: task.id, contextId: task.contextId, status: statusToProtoJson03(task.status) };
  if (task.artifacts?.length) json.artifacts = task.artifacts.map(artifactToProtoJson03);
  if (task.history?.length) json.history = task.history.map(messageToProtoJson03);
  put(json, 'metadata', task.metadata);
  return json;
}

function statusUpdateToProtoJson03(event: TaskStatusUpdateEvent): Json {
  const json: Json = { taskId: event.taskId, contextId: event.contextId, status: statusToProtoJson03(event.status) };
  if (event.final) json.final = true;
  put(json, 'metadata', event.metadata);
  return json;
}

function artifactUpdateToProtoJson03(event: TaskArtifactUpdateEvent): Json {
  const json: Json = { taskId: event.taskId, contextId: event.contextId, artifact: artifactToProtoJson03(event.artifact) };
  if (event.append) json.append = true;
  if (event.lastChunk) json.lastChunk = true;
  put(json, 'metadata', event.metadata);
  return json;
}

/** The answer of `message:send` (the proto's `SendMessageResponse`): `{ task }` or `{ message }`. */
export function sendResultToProtoJson03(result: Task | Message): Json {
  return result.kind === 'message' ? { message: messageToProtoJson03(result) } : { task: taskToProtoJson03(result) };
}

/** One event of a stream (the proto's `StreamResponse`): the object under the name of its case. */
export function streamResultToProtoJson03(result: StreamResult): Json {
  switch (result.kind) {
    case 'task':
      return { task: taskToProtoJson03(result) };
    case 'message':
      return { message: messageToProtoJson03(result) };
    case 'status-update':
      return { statusUpdate: statusUpdateToProtoJson03(result) };
    case 'artifact-update':
      return { artifactUpdate: artifactUpdateToProtoJson03(result) };
  }
}

export function pushConfigToProtoJson03(config: PushNotificationConfig): Json {
  const json: Json = {};
  put(json, 'id', config.id);
  json.url = config.url;
  put(json, 'token', config.token);
  if (config.authentication) {
    const authentication: Json = { schemes: config.authentication.schemes };
    put(authentication, 'credentials', config.authentication.credentials);
    json.authentication = authentication;
  }
  return json;
}

// Resource names: a task is `tasks/{id}`, its push config `tasks/{id}/pushNotificationConfigs/{configId}`.

/** A task's resource name, as the proto's requests name it. */
export function taskName03(taskId: string): string {
  return `tasks/${taskId}`;
}

/** The resource name of a task's push config; one without an id ends in `/` (read back, it has none). */
export function pushConfigName03(taskId: string, configId: string | undefined): string {
  return `tasks/${taskId}/pushNotificationConfigs/${configId ?? ''}`;
}

/** The id a task's resource name (`tasks/{id}`) gives, if it is one. */
export function taskIdOfName03(name: unknown): string | undefined {
  return typeof name === 'string' ? /^tasks\/([^/]+)$/.exec(name)?.[1] : undefined;
}

/**
 * The task a push config's parent names: `tasks/{id}`, or `tasks/{id}/pushNotificationConfigs` as
 * the proto's HTTP annotation writes the collection.
 */
export function pushConfigsParentTaskId03(parent: unknown): string | undefined {
  return typeof parent === 'string' ? /^tasks?\/([^/]+)(?:\/pushNotificationConfigs)?$/.exec(parent)?.[1] : undefined;
}

/** A task's push config (the proto's `TaskPushNotificationConfig`: its resource name, and the config). */
export function taskPushConfigToProtoJson03(config: TaskPushNotificationConfig): Json {
  return {
    name: pushConfigName03(config.taskId, config.pushNotificationConfig.id),
    pushNotificationConfig: pushConfigToProtoJson03(config.pushNotificationConfig),
  };
}

/**
 * A new push config (the proto's `CreateTaskPushNotificationConfigRequest`): its task as `parent`,
 * its id as `configId` when it has one (what the official JS SDK's server reads), and the config.
 */
export function setPushConfigRequestToProtoJson03(config: TaskPushNotificationConfig): Json {
  const json: Json = { parent: taskName03(config.taskId) };
  put(json, 'configId', config.pushNotificationConfig.id);
  json.config = taskPushConfigToProtoJson03(config);
  return json;
}

/** The body of `message:send` and `message:stream` (the proto's `SendMessageRequest`). */
export function sendParamsToProtoJson03(params: MessageSendParams): Json {
  const json: Json = { message: messageToProtoJson03(params.message) };
  const { configuration } = params;
  if (configuration) {
    const protoConfiguration: Json = {};
    if (configuration.acceptedOutputModes?.length) protoConfiguration.acceptedOutputModes = configuration.acceptedOutputModes;
    if (configuration.pushNotificationConfig)
      protoConfiguration.pushNotification = pushConfigToProtoJson03(configuration.pushNotificationConfig);
    put(protoConfiguration, 'historyLength', configuration.historyLength);
    // Said even when true: proto3 reads an absent bool as false, and 0.3's absent `blocking` means blocking.
    protoConfiguration.blocking = configuration.blocking !== false;
    json.configuration = protoConfiguration;
  }
  put(json, 'metadata', params.metadata);
  return json;
}

// ---------------------------------------------------------------------------------------------
// proto JSON → 0.3 JSON

function roleFromProtoJson(role: unknown): unknown {
  if (role === 'ROLE_USER' || role === 1) return 'user';
  if (role === 'ROLE_AGENT' || role === 2) return 'agent';
  return role;
}

function stateFromProtoJson(state: unknown): unknown {
  if (typeof state === 'number') return STATES_BY_NUMBER[state] ?? state;
  if (typeof state === 'string') return STATES_BY_NAME.get(state) ?? state;
  return state;
}

export function partFromProtoJson03(json: unknown): unknown {
  if (!isObject(json) || json.kind !== undefined) return json;
  let part: Json;
  const file = json.file;
  if (json.text !== undefined) part = { kind: 'text', text: json.text };
  else if (isObject(file)) {
    const uri = field(file, 'fileWithUri', 'file_with_uri');
    const bytes = field(file, 'fileWithBytes', 'file_with_bytes');
    const protoFile: Json = uri !== undefined ? { uri } : bytes !== undefined ? { bytes } : { ...file };
    put(protoFile, 'mimeType', field(file, 'mimeType', 'mime_type'));
    put(protoFile, 'name', field(file, 'name'));
    part = { kind: 'file', file: protoFile };
  } else if (json.data !== undefined) {
    // The proto's DataPart wraps its Struct (`{ data: { data: {...} } }`).
    const data = json.data;
    part = { kind: 'data', data: isObject(data) && isObject(data.data) && Object.keys(data).length === 1 ? data.data : data };
  } else return json;
  put(part, 'metadata', field(json, 'metadata'));
  return part;
}

export function messageFromProtoJson03(json: unknown): unknown {
  if (!isObject(json)) return json;
  const parts = field(json, 'parts') ?? field(json, 'content');
  const message: Json = { kind: 'message' };
  message.messageId = requiredText(json, 'messageId', 'message_id');
  put(message, 'contextId', emptyAsAbsent(field(json, 'contextId', 'context_id')));
  put(message, 'taskId', emptyAsAbsent(field(json, 'taskId', 'task_id')));
  put(message, 'role', roleFromProtoJson(field(json, 'role')));
  message.parts = Array.isArray(parts) ? parts.map(partFromProtoJson03) : (parts ?? []);
  put(message, 'referenceTaskIds', field(json, 'referenceTaskIds', 'reference_task_ids'));
  put(message, 'metadata', field(json, 'metadata'));
  const extensions = field(json, 'extensions');
  if (!Array.isArray(extensions) || extensions.length > 0) put(message, 'extensions', extensions);
  return message;
}

/** An int32, which proto JSON may send as its decimal text; anything else as it came. */
export function int32FromProtoJson(value: unknown): unknown {
  return typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value;
}

/**
 * A `historyLength`: 0 is proto3's unset int32, the whole history (as over gRPC), not none; text
 * is read as its number.
 */
export function historyLengthFromProtoJson(value: unknown): unknown {
  const read = int32FromProtoJson(value);
  return read === 0 ? undefined : read;
}

/** An empty string is proto JSON's unset string: an id that is not there. */
function emptyAsAbsent(value: unknown): unknown {
  return value === '' ? undefined : value;
}

function statusFromProtoJson(json: unknown): unknown {
  if (!isObject(json)) return json;
  // proto3 leaves its zero out: no state is TASK_STATE_UNSPECIFIED, 0.3's `unknown`.
  const status: Json = { state: stateFromProtoJson(field(json, 'state') ?? 'TASK_STATE_UNSPECIFIED') };
  const message = field(json, 'message') ?? field(json, 'update');
  if (message !== undefined) status.message = messageFromProtoJson03(message);
  put(status, 'timestamp', field(json, 'timestamp'));
  return status;
}

function artifactFromProtoJson(json: unknown): unknown {
  if (!isObject(json)) return json;
  const artifact: Json = { artifactId: requiredText(json, 'artifactId', 'artifact_id') };
  put(artifact, 'name', emptyAsAbsent(field(json, 'name')));
  put(artifact, 'description', emptyAsAbsent(field(json, 'description')));
  const parts = field(json, 'parts');
  artifact.parts = Array.isArray(parts) ? parts.map(partFromProtoJson03) : (parts ?? []);
  put(artifact, 'metadata', field(json, 'metadata'));
  const extensions = field(json, 'extensions');
  if (!Array.isArray(extensions) || extensions.length > 0) put(artifact, 'extensions', extensions);
  return artifact;
}

export function taskFromProtoJson03(json: unknown): unknown {
  if (!isObject(json)) return json;
  const task: Json = { kind: 'task', id: requiredText(json, 'id'), contextId: requiredText(json, 'contextId', 'context_id') };
  task.status = statusFromProtoJson(field(json, 'status'));
  const artifacts = field(json, 'artifacts');
  if (artifacts !== undefined) task.artifacts = Array.isArray(artifacts) ? artifacts.map(artifactFromProtoJson) : artifacts;
  const history = field(json, 'history');
  if (history !== undefined) task.history = Array.isArray(history) ? history.map(messageFromProtoJson03) : history;
  put(task, 'metadata', field(json, 'metadata'));
  return task;
}

/** The answer of `message:send`: the Task or the Message it wraps (or what came, when it wraps neither). */
export function sendResultFromProtoJson03(json: unknown): unknown {
  if (!isObject(json)) return json;
  if (json.task !== undefined) return taskFromProtoJson03(json.task);
  const message = json.message ?? json.msg;
  if (message !== undefined) return messageFromProtoJson03(message);
  return json;
}

/** One event of a stream, unwrapped from its case. */
export function streamResultFromProtoJson03(json: unknown): unknown {
  if (!isObject(json)) return json;
  if (json.kind !== undefined) return json;
  const statusUpdate = field(json, 'statusUpdate', 'status_update');
  if (isObject(statusUpdate)) {
    const event: Json = {
      kind: 'status-update',
      taskId: requiredText(statusUpdate, 'taskId', 'task_id'),
      contextId: requiredText(statusUpdate, 'contextId', 'context_id'),
      status: statusFromProtoJson(field(statusUpdate, 'status')),
      final: field(statusUpdate, 'final') ?? false,
    };
    put(event, 'metadata', field(statusUpdate, 'metadata'));
    return event;
  }
  const artifactUpdate = field(json, 'artifactUpdate', 'artifact_update');
  if (isObject(artifactUpdate)) {
    const event: Json = {
      kind: 'artifact-update',
      taskId: requiredText(artifactUpdate, 'taskId', 'task_id'),
      contextId: requiredText(artifactUpdate, 'contextId', 'context_id'),
      artifact: artifactFromProtoJson(field(artifactUpdate, 'artifact')),
    };
    put(event, 'append', field(artifactUpdate, 'append'));
    put(event, 'lastChunk', field(artifactUpdate, 'lastChunk', 'last_chunk'));
    put(event, 'metadata', field(artifactUpdate, 'metadata'));
    return event;
  }
  return sendResultFromProtoJson03(json);
}

export function pushConfigFromProtoJson03(json: unknown): unknown {
  if (!isObject(json)) return json;
  const config: Json = { url: requiredText(json, 'url') };
  put(config, 'id', emptyAsAbsent(field(json, 'id')));
  put(config, 'token', emptyAsAbsent(field(json, 'token')));
  const authentication = field(json, 'authentication');
  if (isObject(authentication)) {
    const info: Json = { schemes: field(authentication, 'schemes') ?? [] };
    put(info, 'credentials', emptyAsAbsent(field(authentication, 'credentials')));
    config.authentication = info;
  } else put(config, 'authentication', authentication);
  return config;
}

/** The task and config ids a push config's resource name gives (`tasks/{id}/pushNotificationConfigs/{configId}`). */
export function pushConfigNameParts03(name: unknown): { taskId: string; configId?: string } | undefined {
  if (typeof name !== 'string') return undefined;
  const match = /^tasks\/([^/]+)(?:\/pushNotificationConfigs\/([^/]*))?$/.exec(name);
  if (!match) return undefined;
  return match[2] ? { taskId: match[1]!, configId: match[2] } : { taskId: match[1]! };
}

/**
 * A task's push config: `{ name, pushNotificationConfig }` as the proto has it, or `{ taskId,
 * pushNotificationConfig }` as JSON-RPC does. Its task is `taskId` when the name gives none.
 */
export function taskPushConfigFromProtoJson03(json: unknown, taskId?: string): unknown {
  if (!isObject(json)) return json;
  const named = pushConfigNameParts03(field(json, 'name'));
  const config = pushConfigFromProtoJson03(field(json, 'pushNotificationConfig', 'push_notification_config'));
  if (isObject(config) && config.id === undefined && named?.configId !== undefined) config.id = named.configId;
  return { taskId: field(json, 'taskId', 'task_id') ?? named?.taskId ?? taskId, pushNotificationConfig: config };
}

/**
 * A new push config as the params of `tasks/pushNotificationConfig/set`: the proto's
 * `CreateTaskPushNotificationConfigRequest` (`{ parent, configId, config }`), or the
 * TaskPushNotificationConfig alone, which the official JS SDK's REST client sends. Its task is
 * `taskId` (where the binding names it otherwise, as a REST path does), else its `parent`'s; its id
 * the config's own, else its name's, else `configId`.
 */
export function setPushConfigParamsFromProtoJson03(json: Json, taskId?: string): unknown {
  const config = field(json, 'config') ?? json;
  const read = taskPushConfigFromProtoJson03(config, taskId) as Json;
  const pushNotificationConfig = read.pushNotificationConfig;
  const configId = field(json, 'configId', 'config_id');
  if (isObject(pushNotificationConfig) && pushNotificationConfig.id === undefined && typeof configId === 'string' && configId !== '')
    pushNotificationConfig.id = configId;
  return { ...read, taskId: taskId ?? pushConfigsParentTaskId03(field(json, 'parent')) ?? read.taskId };
}

/** The body of `message:send` and `message:stream` as the 0.3 `MessageSendParams`. */
export function sendParamsFromProtoJson03(json: Json): unknown {
  const params: Json = {};
  const message = field(json, 'message') ?? field(json, 'request');
  put(params, 'message', messageFromProtoJson03(message));
  const configuration = field(json, 'configuration');
  if (isObject(configuration)) {
    const read: Json = {};
    const modes = field(configuration, 'acceptedOutputModes', 'accepted_output_modes');
    put(read, 'acceptedOutputModes', modes);
    const push =
      field(configuration, 'pushNotificationConfig', 'push_notification_config') ??
      field(configuration, 'pushNotification', 'push_notification');
    if (push !== undefined) read.pushNotificationConfig = pushConfigFromProtoJson03(push);
    put(read, 'historyLength', historyLengthFromProtoJson(field(configuration, 'historyLength', 'history_length')));
    // proto3 leaves a false bool out: a configuration without `blocking` asks not to block (the
    // official SDKs send `configuration: {}` for `blocking: false`). No configuration at all blocks.
    read.blocking = field(configuration, 'blocking') ?? false;
    params.configuration = read;
  } else put(params, 'configuration', configuration);
  put(params, 'metadata', field(json, 'metadata'));
  return params;
}
