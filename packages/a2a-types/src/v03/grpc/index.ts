// A2A 0.3's gRPC binding: `import { ... } from 'a2a-types/v0.3/grpc'`. The messages and the
// `a2a.v1.A2AService` are generated from the 0.3 proto at build time (./gen, by protoc-gen-es: see
// scripts/generate-grpc.mjs). Unlike 1.0's, the 0.3 proto's JSON form is not 0.3's JSON-RPC form
// (a message's parts are its `content`, a part is a oneof rather than a `kind`, states and roles
// are enum names, a push config is named by a resource name), so each request and answer is
// translated between the two: a server reads a request as the params of the 0.3 JSON-RPC method
// it means and writes that method's result back, and a client does the reverse, both in the
// objects 0.3's JSON-RPC has. The bytes become the proto's JSON form by protobuf-es, and that form
// becomes 0.3's objects by ../proto-json.ts, as HTTP+JSON's bodies do, so both bindings carry the
// same objects the same way. What the proto has no field for is lost on the way: a part's
// metadata, a file's name, a message's `referenceTaskIds`, the card's `iconUrl`. It imports no
// gRPC library.
import { create, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { anyPack, anyUnpack, FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { A2AError } from '../../errors.js';
import {
  historyLengthFromProtoJson,
  pushConfigName03,
  pushConfigNameParts03,
  pushConfigsParentTaskId03,
  sendParamsFromProtoJson03,
  sendParamsToProtoJson03,
  sendResultFromProtoJson03,
  sendResultToProtoJson03,
  setPushConfigParamsFromProtoJson03,
  setPushConfigRequestToProtoJson03,
  streamResultFromProtoJson03,
  streamResultToProtoJson03,
  taskFromProtoJson03,
  taskIdOfName03,
  taskName03,
  taskPushConfigFromProtoJson03,
  taskPushConfigToProtoJson03,
  taskToProtoJson03,
} from '../proto-json.js';
import type { Message, MessageSendParams, StreamResult, Task, TaskPushNotificationConfig } from '../types.js';
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

// Each object is translated by ../proto-json.ts, which HTTP+JSON's bodies use too: the proto's
// JSON form is where the two bindings meet, so they map parts, roles, states and resource names by
// the same rules. What is left here is how each request names what it asks for.
const TRANSLATIONS: Readonly<Record<string, Translation>> = {
  SendMessage: {
    jsonRpcMethod: 'message/send',
    params: sendParamsFromProtoJson03,
    request: (params) => sendParamsToProtoJson03(params as unknown as MessageSendParams),
    result: sendResultFromProtoJson03,
    answer: (result) => sendResultToProtoJson03(result as Task | Message),
  },
  SendStreamingMessage: {
    jsonRpcMethod: 'message/stream',
    params: sendParamsFromProtoJson03,
    request: (params) => sendParamsToProtoJson03(params as unknown as MessageSendParams),
    result: streamResultFromProtoJson03,
    answer: (result) => streamResultToProtoJson03(result as StreamResult),
  },
  GetTask: {
    jsonRpcMethod: 'tasks/get',
    params: ({ name, historyLength }) => {
      const read = historyLengthFromProtoJson(historyLength);
      return read === undefined ? { id: taskIdOf(name) } : { id: taskIdOf(name), historyLength: read };
    },
    request: ({ id, historyLength }) => ({ name: taskName03(id as string), ...(historyLength != null && { historyLength }) }),
    result: taskFromProtoJson03,
    answer: (result) => taskToProtoJson03(result as Task),
  },
  CancelTask: {
    jsonRpcMethod: 'tasks/cancel',
    params: ({ name }) => ({ id: taskIdOf(name) }),
    request: ({ id }) => ({ name: taskName03(id as string) }),
    result: taskFromProtoJson03,
    answer: (result) => taskToProtoJson03(result as Task),
  },
  TaskSubscription: {
    jsonRpcMethod: 'tasks/resubscribe',
    params: ({ name }) => ({ id: taskIdOf(name) }),
    request: ({ id }) => ({ name: taskName03(id as string) }),
    result: streamResultFromProtoJson03,
    answer: (result) => streamResultToProtoJson03(result as StreamResult),
  },
  CreateTaskPushNotificationConfig: {
    jsonRpcMethod: 'tasks/pushNotificationConfig/set',
    params: (request) => setPushConfigParamsFromProtoJson03(request, parentTaskIdOf(request.parent)),
    request: (params) => setPushConfigRequestToProtoJson03(params as unknown as TaskPushNotificationConfig),
    result: (answer) => taskPushConfigFromProtoJson03(answer),
    answer: (result) => taskPushConfigToProtoJson03(result as TaskPushNotificationConfig),
  },
  GetTaskPushNotificationConfig: {
    jsonRpcMethod: 'tasks/pushNotificationConfig/get',
    // `tasks/{id}` alone asks for the task's config as 0.3's JSON-RPC get without an id does.
    params: ({ name }) => pushConfigIdsOf(name, true),
    request: ({ id, pushNotificationConfigId }) => ({
      name:
        pushNotificationConfigId == null ? taskName03(id as string) : pushConfigName03(id as string, pushNotificationConfigId as string),
    }),
    result: (answer) => taskPushConfigFromProtoJson03(answer),
    answer: (result) => taskPushConfigToProtoJson03(result as TaskPushNotificationConfig),
  },
  ListTaskPushNotificationConfig: {
    jsonRpcMethod: 'tasks/pushNotificationConfig/list',
    params: ({ parent }) => ({ id: parentTaskIdOf(parent) }),
    request: ({ id }) => ({ parent: taskName03(id as string) }),
    result: ({ configs }) => ((configs ?? []) as unknown[]).map((config) => taskPushConfigFromProtoJson03(config)),
    answer: (result) => ({ configs: (result as TaskPushNotificationConfig[]).map(taskPushConfigToProtoJson03) }),
  },
  DeleteTaskPushNotificationConfig: {
    jsonRpcMethod: 'tasks/pushNotificationConfig/delete',
    params: ({ name }) => pushConfigIdsOf(name, false),
    request: ({ id, pushNotificationConfigId }) => ({ name: pushConfigName03(id as string, pushNotificationConfigId as string) }),
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
// Resource names, as the params need them: a name that is not one is -32602 saying what it must be.

function taskIdOf(name: unknown): string {
  const id = taskIdOfName03(name);
  if (id === undefined)
    throw A2AError.invalidParams({ reason: `the task's resource name must be tasks/{id}, got ${JSON.stringify(name ?? '')}` });
  return id;
}

function parentTaskIdOf(parent: unknown): string {
  const id = pushConfigsParentTaskId03(parent);
  if (id === undefined)
    throw A2AError.invalidParams({ reason: `the push configs' parent must be tasks/{id}, got ${JSON.stringify(parent ?? '')}` });
  return id;
}

function pushConfigIdsOf(name: unknown, taskAlone: boolean): Json {
  const parts = pushConfigNameParts03(name);
  if (parts?.configId !== undefined) return { id: parts.taskId, pushNotificationConfigId: parts.configId };
  if (taskAlone && taskIdOfName03(name) !== undefined) return { id: parts!.taskId };
  throw A2AError.invalidParams({
    reason: `the push config's resource name must be tasks/{id}/pushNotificationConfigs/{configId}, got ${JSON.stringify(name ?? '')}`,
  });
}

// ---------------------------------------------------------------------------------------------
// The card, which HTTP+JSON serves in 0.3's JSON-RPC form: gRPC alone translates it.

/** `value` without its undefined fields: the proto's JSON reader refuses them. */
function defined(value: Json): Json {
  const out: Json = {};
  for (const key in value) if (value[key] !== undefined) out[key] = value[key];
  return out;
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
