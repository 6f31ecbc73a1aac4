// A2A 0.3's gRPC binding: `import { ... } from 'a2a-types/v0.3/grpc'`. The messages and the
// `a2a.v1.A2AService` are generated from the 0.3 proto at build time (./gen, by protoc-gen-es: see
// scripts/generate-grpc.mjs). Unlike 1.0's, the 0.3 proto's JSON form is not 0.3's JSON-RPC form
// (a message's parts are its `content`, a part is a oneof rather than a `kind`, states and roles
// are enum names, a push config is named by a resource name), so this module translates each
// request and answer between the two: a server reads a request as the params of the 0.3 JSON-RPC
// method it means and writes that method's result back, and a client does the reverse, both in
// the objects 0.3's JSON-RPC has. What the proto has no field for is lost on the way: a part's
// metadata, a file's name, a message's `referenceTaskIds`, the card's `iconUrl`. It imports no
// gRPC library.
import { create, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { anyPack, anyUnpack, FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { A2AError } from '../../errors.js';
import { A2AService, file_a2a_v1_a2a } from './gen/a2a/v1/a2a_pb.js';
import { ErrorInfoSchema } from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';

export { A2AService as A2AService03 };

/** The gRPC service's full name (`a2a.v1.A2AService`), as paths, health and reflection name it. */
export const A2A_SERVICE_NAME_03 = A2AService.typeName;

/** An object of either JSON form, as the translations read and write it. */
type Json = { [key: string]: unknown };

/** One method of 0.3's `A2AService`, and the 0.3 JSON-RPC method it is. */
export interface A2AMethod03 {
  /** As the proto names it (`SendMessage`). */
  readonly name: string;
  /** In lower camel case, as grpc-js keys a service (`sendMessage`). */
  readonly localName: string;
  /** Its HTTP/2 path (`/a2a.v1.A2AService/SendMessage`). */
  readonly path: string;
  readonly responseStream: boolean;
  /** The 0.3 JSON-RPC method it performs (`message/send`). */
  readonly jsonRpcMethod: string;
  /** The request message's full name (`a2a.v1.SendMessageRequest`). */
  readonly requestType: string;
  /** The request's bytes as that method's params; throws an A2AError (-32602) for a resource name it cannot read. */
  paramsFromBinary(bytes: Uint8Array): unknown;
  /** That method's params as the request's bytes. */
  paramsToBinary(params: unknown): Uint8Array;
  /** The answer's bytes (one message of a stream) as that method's result. */
  resultFromBinary(bytes: Uint8Array): unknown;
  /** That method's result (one event of a stream) as the answer's bytes. */
  resultToBinary(result: unknown): Uint8Array;
}

/** How each method's request and answer read as 0.3 JSON-RPC: params from and to the request, result from and to the answer. */
interface Translation {
  readonly jsonRpcMethod: string;
  params(request: Json): unknown;
  request(params: Json): Json;
  result(answer: Json): unknown;
  answer(result: unknown): Json;
}

const TRANSLATIONS: Readonly<Record<string, Translation>> = {
  SendMessage: {
    jsonRpcMethod: 'message/send',
    params: sendParamsFromProto,
    request: sendRequestToProto,
    result: (answer) =>
      answer.message !== undefined ? messageFromProto(answer.message as Json) : taskFromProto((answer.task ?? {}) as Json),
    answer: (result) =>
      (result as Json).kind === 'message' ? { message: messageToProto(result as Json) } : { task: taskToProto(result as Json) },
  },
  SendStreamingMessage: {
    jsonRpcMethod: 'message/stream',
    params: sendParamsFromProto,
    request: sendRequestToProto,
    result: streamEventFromProto,
    answer: streamEventToProto,
  },
  GetTask: {
    jsonRpcMethod: 'tasks/get',
    // 0 is the proto's "not set" (proto3 int32 has no presence): the whole history.
    params: ({ name, historyLength }) => ({ id: taskIdOf(name), ...(historyLength ? { historyLength } : {}) }),
    request: ({ id, historyLength }) => ({ name: taskName(id), ...(historyLength != null && { historyLength }) }),
    result: taskFromProto,
    answer: (result) => taskToProto(result as Json),
  },
  CancelTask: {
    jsonRpcMethod: 'tasks/cancel',
    params: ({ name }) => ({ id: taskIdOf(name) }),
    request: ({ id }) => ({ name: taskName(id) }),
    result: taskFromProto,
    answer: (result) => taskToProto(result as Json),
  },
  TaskSubscription: {
    jsonRpcMethod: 'tasks/resubscribe',
    params: ({ name }) => ({ id: taskIdOf(name) }),
    request: ({ id }) => ({ name: taskName(id) }),
    result: streamEventFromProto,
    answer: streamEventToProto,
  },
  CreateTaskPushNotificationConfig: {
    jsonRpcMethod: 'tasks/pushNotificationConfig/set',
    params: ({ parent, configId, config }) => {
      const pushConfig = (config as Json | undefined)?.pushNotificationConfig as Json | undefined;
      const id = configId || pushConfig?.id;
      return {
        taskId: taskIdOf(parent, PUSH_CONFIGS_PARENT),
        ...(pushConfig && { pushNotificationConfig: { ...pushConfigFromProto(pushConfig), ...(id ? { id } : {}) } }),
      };
    },
    request: ({ taskId, pushNotificationConfig }) => {
      const config = pushNotificationConfig as Json;
      return defined({
        parent: taskName(taskId),
        configId: config.id,
        config: { name: pushConfigName(taskId, config.id ?? taskId), pushNotificationConfig: pushConfigToProto(config) },
      });
    },
    result: taskPushConfigFromProto,
    answer: (result) => taskPushConfigToProto(result as Json),
  },
  GetTaskPushNotificationConfig: {
    jsonRpcMethod: 'tasks/pushNotificationConfig/get',
    // `tasks/{id}` alone asks for the task's config as 0.3's JSON-RPC get without an id does.
    params: ({ name }) => pushConfigIdsOf(name, true),
    request: ({ id, pushNotificationConfigId }) => ({
      name: pushNotificationConfigId == null ? taskName(id) : pushConfigName(id, pushNotificationConfigId),
    }),
    result: taskPushConfigFromProto,
    answer: (result) => taskPushConfigToProto(result as Json),
  },
  ListTaskPushNotificationConfig: {
    jsonRpcMethod: 'tasks/pushNotificationConfig/list',
    params: ({ parent }) => ({ id: taskIdOf(parent, PUSH_CONFIGS_PARENT) }),
    request: ({ id }) => ({ parent: taskName(id) }),
    result: ({ configs }) => ((configs ?? []) as Json[]).map(taskPushConfigFromProto),
    answer: (result) => ({ configs: (result as Json[]).map(taskPushConfigToProto) }),
  },
  DeleteTaskPushNotificationConfig: {
    jsonRpcMethod: 'tasks/pushNotificationConfig/delete',
    params: ({ name }) => pushConfigIdsOf(name, false),
    request: ({ id, pushNotificationConfigId }) => ({ name: pushConfigName(id, pushNotificationConfigId) }),
    result: () => null,
    answer: () => ({}),
  },
  GetAgentCard: {
    jsonRpcMethod: 'agent/getAuthenticatedExtendedCard',
    params: () => ({}),
    request: () => ({}),
    result: cardFromProto,
    answer: (result) => cardToProto(result as Json),
  },
};

/** Every method of 0.3's `A2AService`: all take one message, two stream their answer. */
export const A2A_METHODS_03: readonly A2AMethod03[] = A2AService.methods.map((method) => {
  const translation = TRANSLATIONS[method.name];
  if (!translation) throw new Error(`a2a-types: no 0.3 JSON-RPC method for ${method.name}`);
  const { input, output } = method;
  return {
    name: method.name,
    localName: method.localName,
    path: `/${A2AService.typeName}/${method.name}`,
    responseStream: method.methodKind === 'server_streaming',
    jsonRpcMethod: translation.jsonRpcMethod,
    requestType: input.typeName,
    paramsFromBinary: (bytes) => translation.params(binaryToJson(input, bytes)),
    paramsToBinary: (params) => jsonToBinary(input, translation.request((params ?? {}) as Json)),
    resultFromBinary: (bytes) => translation.result(binaryToJson(output, bytes)),
    resultToBinary: (result) => jsonToBinary(output, translation.answer(result)),
  };
});

/**
 * One method of a grpc-js service definition (`MethodDefinition` in @grpc/grpc-js), typed by its
 * shape so that this package imports no gRPC library.
 */
export interface GrpcMethodDefinition03 {
  readonly path: string;
  readonly originalName: string;
  readonly requestStream: false;
  readonly responseStream: boolean;
  requestSerialize(value: unknown): Buffer;
  requestDeserialize(bytes: Buffer): unknown;
  responseSerialize(value: unknown): Buffer;
  responseDeserialize(bytes: Buffer): unknown;
}

/**
 * 0.3's `A2AService` as a grpc-js client calls it, by each method's 0.3 JSON-RPC name
 * (`message/send`): a request is that method's params, an answer its result (one event of a stream).
 */
export function grpcClientDefinition03(): Record<string, GrpcMethodDefinition03> {
  const definition: Record<string, GrpcMethodDefinition03> = {};
  for (const method of A2A_METHODS_03) {
    definition[method.jsonRpcMethod] = {
      path: method.path,
      originalName: method.name,
      requestStream: false,
      responseStream: method.responseStream,
      requestSerialize: (value) => asBuffer(method.paramsToBinary(value)),
      requestDeserialize: (bytes) => method.paramsFromBinary(bytes),
      responseSerialize: (value) => asBuffer(method.resultToBinary(value)),
      // grpc-js takes a null answer for none at all ("No message received"): DeleteTaskPushNotificationConfig's null is undefined here.
      responseDeserialize: (bytes) => method.resultFromBinary(bytes) ?? undefined,
    };
  }
  return definition;
}

/** Bytes as the Buffer grpc-js sends, sharing their memory. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function binaryToJson(schema: DescMessage, bytes: Uint8Array): Json {
  return toJson(schema, fromBinary(schema, bytes), { alwaysEmitImplicit: false }) as Json;
}

function jsonToBinary(schema: DescMessage, json: Json): Uint8Array {
  return toBinary(schema, fromJson(schema, json as JsonValue, { ignoreUnknownFields: true }));
}

/** The domain of the `ErrorInfo` a status carries: A2A's, as 1.0 names it. */
const ERROR_DOMAIN = 'a2a-protocol.org';

/**
 * The `google.rpc.Status` of a gRPC error, as the `grpc-status-details-bin` trailer carries it:
 * its code, message and an `ErrorInfo` naming its reason (`TASK_NOT_FOUND`). 0.3 defines no
 * details; they are for clients that read them, and the others read the status code alone.
 */
export function statusDetailsBinary03(code: number, message: string, reason: string | undefined): Uint8Array {
  const details = reason === undefined ? [] : [anyPack(ErrorInfoSchema, create(ErrorInfoSchema, { reason, domain: ERROR_DOMAIN }))];
  return toBinary(StatusSchema, create(StatusSchema, { code, message, details }));
}

/** The reason an error's `grpc-status-details-bin` trailer names in its `ErrorInfo`, if any. */
export function reasonOfStatusDetails03(bytes: Uint8Array): { message: string; reason: string | undefined } {
  const status = fromBinary(StatusSchema, bytes);
  for (const any of status.details) {
    const info = anyUnpack(any, ErrorInfoSchema);
    if (info) return { message: status.message, reason: info.reason };
  }
  return { message: status.message, reason: undefined };
}

/** The serialized file descriptors of 0.3's proto and every file it imports, for server reflection. */
export function fileDescriptorProtos03(): Buffer[] {
  const seen = new Set<string>();
  const ordered: FileDescriptorProto[] = [];
  const visit = (file: typeof file_a2a_v1_a2a) => {
    if (seen.has(file.name)) return;
    seen.add(file.name);
    for (const dependency of file.dependencies) visit(dependency);
    ordered.push(file.proto);
  };
  visit(file_a2a_v1_a2a);
  return ordered.map((proto) => Buffer.from(toBinary(FileDescriptorProtoSchema, proto)));
}

// ---------------------------------------------------------------------------------------------
// Resource names: `tasks/{id}` and `tasks/{id}/pushNotificationConfigs/{configId}`

const TASK_NAME = /^tasks\/([^/]+)$/;
/** A push config's parent: `tasks/{id}`, or, as the proto's HTTP annotation writes it, with `/pushNotificationConfigs`. */
const PUSH_CONFIGS_PARENT = /^tasks?\/([^/]+)(?:\/pushNotificationConfigs)?$/;
const PUSH_CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/;

function taskIdOf(name: unknown, pattern: RegExp = TASK_NAME): string {
  const id = typeof name === 'string' ? pattern.exec(name)?.[1] : undefined;
  if (id === undefined)
    throw A2AError.invalidParams({ reason: `the task's resource name must be tasks/{id}, got ${JSON.stringify(name ?? '')}` });
  return id;
}

function pushConfigIdsOf(name: unknown, taskAlone: boolean): Json {
  const match = typeof name === 'string' ? PUSH_CONFIG_NAME.exec(name) : null;
  if (match) return { id: match[1], pushNotificationConfigId: match[2] };
  if (taskAlone && typeof name === 'string' && TASK_NAME.test(name)) return { id: taskIdOf(name) };
  throw A2AError.invalidParams({
    reason: `the push config's resource name must be tasks/{id}/pushNotificationConfigs/{configId}, got ${JSON.stringify(name ?? '')}`,
  });
}

const taskName = (id: unknown) => `tasks/${String(id)}`;
const pushConfigName = (taskId: unknown, id: unknown) => `tasks/${String(taskId)}/pushNotificationConfigs/${String(id)}`;

// ---------------------------------------------------------------------------------------------
// The objects: 0.3's JSON-RPC form to the proto's JSON form, and back

/** `value` without its undefined fields: the proto's JSON reader refuses them. */
function defined(value: Json): Json {
  const out: Json = {};
  for (const key in value) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

const ROLES: Readonly<Record<string, string>> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };
const ROLES_BACK: Readonly<Record<string, string>> = { ROLE_USER: 'user', ROLE_AGENT: 'agent' };
const STATES: Readonly<Record<string, string>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELLED',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};
const STATES_BACK: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(STATES).map(([state, name]) => [name, state]));

function partToProto(part: Json): Json {
  if (part.kind === 'text') return { text: part.text };
  if (part.kind === 'data') return { data: { data: part.data } };
  if (part.kind === 'file') {
    const file = (part.file ?? {}) as Json;
    return {
      file: defined(
        file.uri !== undefined
          ? { fileWithUri: file.uri, mimeType: file.mimeType }
          : { fileWithBytes: file.bytes, mimeType: file.mimeType },
      ),
    };
  }
  return {};
}

/** A part the proto could not say (its oneof unset) is left without a `kind`, for the params' check to refuse by its path. */
function partFromProto(part: Json): Json {
  if (part.text !== undefined) return { kind: 'text', text: part.text };
  if (part.data !== undefined) return { kind: 'data', data: (part.data as Json).data ?? {} };
  if (part.file !== undefined) {
    const { fileWithUri, fileWithBytes, mimeType } = part.file as Json;
    const file = fileWithUri !== undefined ? { uri: fileWithUri } : fileWithBytes !== undefined ? { bytes: fileWithBytes } : {};
    return { kind: 'file', file: defined({ ...file, mimeType }) };
  }
  return {};
}

function messageToProto(message: Json): Json {
  return defined({
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: ROLES[message.role as string] ?? 'ROLE_UNSPECIFIED',
    content: ((message.parts ?? []) as Json[]).map(partToProto),
    metadata: message.metadata,
    extensions: message.extensions,
  });
}

function messageFromProto(message: Json): Json {
  const extensions = message.extensions as string[] | undefined;
  return defined({
    kind: 'message',
    messageId: message.messageId ?? '',
    role: ROLES_BACK[message.role as string],
    parts: ((message.content ?? []) as Json[]).map(partFromProto),
    contextId: message.contextId,
    taskId: message.taskId,
    metadata: message.metadata,
    extensions: extensions?.length ? extensions : undefined,
  });
}

function statusToProto(status: Json): Json {
  return defined({
    state: STATES[status.state as string] ?? 'TASK_STATE_UNSPECIFIED',
    message: status.message && messageToProto(status.message as Json),
    timestamp: status.timestamp,
  });
}

function statusFromProto(status: Json): Json {
  return defined({
    state: STATES_BACK[(status.state as string) ?? 'TASK_STATE_UNSPECIFIED'] ?? 'unknown',
    message: status.message && messageFromProto(status.message as Json),
    timestamp: status.timestamp,
  });
}

function artifactToProto(artifact: Json): Json {
  return defined({
    artifactId: artifact.artifactId,
    name: artifact.name,
    description: artifact.description,
    parts: ((artifact.parts ?? []) as Json[]).map(partToProto),
    metadata: artifact.metadata,
    extensions: artifact.extensions,
  });
}

function artifactFromProto(artifact: Json): Json {
  const extensions = artifact.extensions as string[] | undefined;
  return defined({
    artifactId: artifact.artifactId ?? '',
    name: artifact.name,
    description: artifact.description,
    parts: ((artifact.parts ?? []) as Json[]).map(partFromProto),
    metadata: artifact.metadata,
    extensions: extensions?.length ? extensions : undefined,
  });
}

function taskToProto(task: Json): Json {
  return defined({
    id: task.id,
    contextId: task.contextId,
    status: statusToProto((task.status ?? {}) as Json),
    artifacts: (task.artifacts as Json[] | undefined)?.map(artifactToProto),
    history: (task.history as Json[] | undefined)?.map(messageToProto),
    metadata: task.metadata,
  });
}

function taskFromProto(task: Json): Json {
  const artifacts = task.artifacts as Json[] | undefined;
  const history = task.history as Json[] | undefined;
  return defined({
    kind: 'task',
    id: task.id ?? '',
    contextId: task.contextId ?? '',
    status: statusFromProto((task.status ?? {}) as Json),
    artifacts: artifacts?.length ? artifacts.map(artifactFromProto) : undefined,
    history: history?.length ? history.map(messageFromProto) : undefined,
    metadata: task.metadata,
  });
}

function streamEventToProto(event: unknown): Json {
  const value = event as Json;
  switch (value.kind) {
    case 'message':
      return { message: messageToProto(value) };
    case 'status-update':
      return {
        statusUpdate: defined({
          taskId: value.taskId,
          contextId: value.contextId,
          status: statusToProto((value.status ?? {}) as Json),
          final: value.final,
          metadata: value.metadata,
        }),
      };
    case 'artifact-update':
      return {
        artifactUpdate: defined({
          taskId: value.taskId,
          contextId: value.contextId,
          artifact: artifactToProto((value.artifact ?? {}) as Json),
          append: value.append,
          lastChunk: value.lastChunk,
          metadata: value.metadata,
        }),
      };
    default:
      return { task: taskToProto(value) };
  }
}

function streamEventFromProto(response: Json): unknown {
  if (response.message !== undefined) return messageFromProto(response.message as Json);
  if (response.statusUpdate !== undefined) {
    const update = response.statusUpdate as Json;
    return defined({
      kind: 'status-update',
      taskId: update.taskId ?? '',
      contextId: update.contextId ?? '',
      status: statusFromProto((update.status ?? {}) as Json),
      final: update.final === true,
      metadata: update.metadata,
    });
  }
  if (response.artifactUpdate !== undefined) {
    const update = response.artifactUpdate as Json;
    return defined({
      kind: 'artifact-update',
      taskId: update.taskId ?? '',
      contextId: update.contextId ?? '',
      artifact: artifactFromProto((update.artifact ?? {}) as Json),
      append: update.append === true ? true : undefined,
      lastChunk: update.lastChunk === true ? true : undefined,
      metadata: update.metadata,
    });
  }
  return taskFromProto((response.task ?? {}) as Json);
}

function pushConfigToProto(config: Json): Json {
  return defined({ id: config.id, url: config.url, token: config.token, authentication: config.authentication });
}

function pushConfigFromProto(config: Json): Json {
  const authentication = config.authentication as Json | undefined;
  return defined({
    id: config.id,
    url: config.url ?? '',
    token: config.token,
    authentication: authentication && defined({ schemes: authentication.schemes ?? [], credentials: authentication.credentials }),
  });
}

function taskPushConfigToProto(result: Json): Json {
  const config = (result.pushNotificationConfig ?? {}) as Json;
  return { name: pushConfigName(result.taskId, config.id ?? result.taskId), pushNotificationConfig: pushConfigToProto(config) };
}

function taskPushConfigFromProto(answer: Json): Json {
  const match = typeof answer.name === 'string' ? PUSH_CONFIG_NAME.exec(answer.name) : null;
  const config = pushConfigFromProto((answer.pushNotificationConfig ?? {}) as Json);
  return { taskId: match?.[1] ?? '', pushNotificationConfig: match && config.id === undefined ? { ...config, id: match[2] } : config };
}

/**
 * A message/send or message/stream request as its params. The proto's `blocking` is false unless
 * set: with a configuration, false is what it says (as the official SDK reads it); without one,
 * the call blocks, as 0.3's JSON-RPC default is.
 */
function sendParamsFromProto(request: Json): Json {
  const configuration = request.configuration as Json | undefined;
  const push = configuration?.pushNotification as Json | undefined;
  return defined({
    message: request.message && messageFromProto(request.message as Json),
    configuration:
      configuration &&
      defined({
        acceptedOutputModes: configuration.acceptedOutputModes ?? [],
        pushNotificationConfig: push && pushConfigFromProto(push),
        historyLength: configuration.historyLength || undefined,
        blocking: configuration.blocking === true,
      }),
    metadata: request.metadata,
  });
}

/** Params with a configuration that leaves `blocking` out block, as over JSON-RPC: the proto's false would not. */
function sendRequestToProto(params: Json): Json {
  const configuration = params.configuration as Json | undefined;
  return defined({
    message: messageToProto((params.message ?? {}) as Json),
    configuration:
      configuration &&
      defined({
        acceptedOutputModes: configuration.acceptedOutputModes,
        pushNotification: configuration.pushNotificationConfig && pushConfigToProto(configuration.pushNotificationConfig as Json),
        historyLength: configuration.historyLength ?? undefined,
        blocking: configuration.blocking !== false,
      }),
    metadata: params.metadata,
  });
}

// The card: most fields have the same names; the security schemes are a oneof by kind.

const SCHEME_KINDS: Readonly<Record<string, string>> = {
  apiKey: 'apiKeySecurityScheme',
  http: 'httpAuthSecurityScheme',
  oauth2: 'oauth2SecurityScheme',
  openIdConnect: 'openIdConnectSecurityScheme',
  mutualTLS: 'mtlsSecurityScheme',
};

function securityToProto(security: unknown): Json[] | undefined {
  return (security as Record<string, string[]>[] | undefined)?.map((requirement) => ({
    schemes: Object.fromEntries(Object.entries(requirement).map(([name, scopes]) => [name, { list: scopes }])),
  }));
}

function securityFromProto(security: unknown): Record<string, string[]>[] | undefined {
  const list = security as { schemes?: Record<string, { list?: string[] }> }[] | undefined;
  if (!list?.length) return undefined;
  return list.map(({ schemes = {} }) => Object.fromEntries(Object.entries(schemes).map(([name, { list = [] }]) => [name, list])));
}

function schemeToProto(scheme: Json): Json {
  const { type, in: location, flows, ...rest } = scheme;
  const kind = SCHEME_KINDS[type as string];
  if (!kind) return {};
  const value: Json = { ...rest };
  if (type === 'apiKey') value.location = location;
  if (type === 'oauth2' && flows) {
    // The proto holds one flow; the first the card lists.
    const [flow, fields] = Object.entries(flows as Json)[0] ?? [];
    if (flow) value.flows = { [flow]: fields };
  }
  return { [kind]: defined(value) };
}

function schemeFromProto(scheme: Json): Json {
  for (const [type, kind] of Object.entries(SCHEME_KINDS)) {
    const value = scheme[kind] as Json | undefined;
    if (!value) continue;
    const { location, flows, ...rest } = value;
    return defined({ type, ...rest, ...(type === 'apiKey' && { in: location }), ...(type === 'oauth2' && { flows: flows ?? {} }) });
  }
  return {};
}

function cardToProto(card: Json): Json {
  const { capabilities, securitySchemes, security, skills, iconUrl: _icon, ...rest } = card;
  const { stateTransitionHistory: _history, ...capabilities03 } = (capabilities ?? {}) as Json;
  return defined({
    ...rest,
    capabilities: capabilities03,
    securitySchemes:
      securitySchemes &&
      Object.fromEntries(Object.entries(securitySchemes as Record<string, Json>).map(([name, s]) => [name, schemeToProto(s)])),
    security: securityToProto(security),
    skills: ((skills ?? []) as Json[]).map((skill) => defined({ ...skill, security: securityToProto(skill.security) })),
  });
}

function cardFromProto(card: Json): Json {
  const { securitySchemes, security, skills, capabilities, ...rest } = card;
  return defined({
    ...rest,
    description: rest.description ?? '',
    url: rest.url ?? '',
    version: rest.version ?? '',
    protocolVersion: rest.protocolVersion ?? '',
    defaultInputModes: rest.defaultInputModes ?? [],
    defaultOutputModes: rest.defaultOutputModes ?? [],
    capabilities: capabilities ?? {},
    securitySchemes:
      securitySchemes &&
      Object.fromEntries(Object.entries(securitySchemes as Record<string, Json>).map(([name, s]) => [name, schemeFromProto(s)])),
    security: securityFromProto(security),
    skills: ((skills ?? []) as Json[]).map((skill) =>
      defined({ ...skill, description: skill.description ?? '', tags: skill.tags ?? [], security: securityFromProto(skill.security) }),
    ),
  });
}
