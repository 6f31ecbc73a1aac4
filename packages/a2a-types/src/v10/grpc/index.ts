// A2A 1.0's gRPC binding (spec 1.0 10): `import { ... } from 'a2a-types/v1.0/grpc'`. The messages
// and the `A2AService` are generated from the proto at build time (./gen, by protoc-gen-es: see
// scripts/generate-grpc.mjs); this module adds what both ends of a call need beside them: the
// service's methods, the messages' JSON form (which is A2A 1.0's JSON-RPC and HTTP+JSON form),
// the service as a grpc-js client calls it, the `google.rpc.Status` an error's details travel
// in, and the descriptors that server reflection hands out. It imports no gRPC library.
import { create, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue } from '@bufbuild/protobuf';
import { anyPack, anyUnpack, FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { A2AService, file_lf_a2a_v1_a2a } from './gen/lf/a2a/v1/a2a_pb.js';
import { BadRequestSchema, ErrorInfoSchema } from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';
import type { ErrorDetail10 } from '../errors.js';
import { Unhandled, writeJsonMessage } from './json-to-binary.js';
import { BAD_REQUEST_TYPE, ERROR_INFO_TYPE } from '../errors.js';

export * from './gen/lf/a2a/v1/a2a_pb.js';
export { A2AService };

/** The gRPC service's full name, as paths and reflection name it. */
export const A2A_SERVICE_NAME = A2AService.typeName;

/** One method of `A2AService`: its names, whether it streams its answer, and its messages. */
export interface A2AMethod {
  /** As the proto names it, and A2A 1.0's JSON-RPC (`SendMessage`). */
  readonly name: string;
  /** In lower camel case, as grpc-js keys a service's implementation (`sendMessage`). */
  readonly localName: string;
  /** Its HTTP/2 path (`/lf.a2a.v1.A2AService/SendMessage`). */
  readonly path: string;
  readonly responseStream: boolean;
  readonly input: DescMessage;
  readonly output: DescMessage;
}

/** Every method of `A2AService`: all take one message, two stream their answer. */
export const A2A_METHODS: readonly A2AMethod[] = A2AService.methods.map((method) => ({
  name: method.name,
  localName: method.localName,
  path: `/${A2AService.typeName}/${method.name}`,
  responseStream: method.methodKind === 'server_streaming',
  input: method.input,
  output: method.output,
}));

/**
 * One method of a grpc-js service definition (`MethodDefinition` in @grpc/grpc-js), typed by its
 * shape so that this package imports no gRPC library.
 */
export interface GrpcMethodDefinition<Request, Response> {
  readonly path: string;
  readonly originalName: string;
  readonly requestStream: false;
  readonly responseStream: boolean;
  requestSerialize(value: Request): Buffer;
  requestDeserialize(bytes: Buffer): Request;
  responseSerialize(value: Response): Buffer;
  responseDeserialize(bytes: Buffer): Response;
}

/**
 * `A2AService` as a grpc-js client calls it, by each method's lower camel case name: each message
 * crosses as its JSON form (A2A 1.0's JSON-RPC and HTTP+JSON form), so a client works in the same
 * objects over every binding. Writing a request fails for JSON its message cannot hold; what a
 * message cannot say at all (a field the proto does not declare) is left out.
 */
export function grpcClientDefinition(): Record<string, GrpcMethodDefinition<JsonValue, JsonValue>> {
  const definition: Record<string, GrpcMethodDefinition<JsonValue, JsonValue>> = {};
  for (const method of A2A_METHODS) {
    definition[method.localName] = {
      path: method.path,
      originalName: method.name,
      requestStream: false,
      responseStream: method.responseStream,
      requestSerialize: (value) => asBuffer(jsonToBinary(method.input, value)),
      requestDeserialize: (bytes) => binaryToJson(method.input, bytes),
      responseSerialize: (value) => asBuffer(jsonToBinary(method.output, value)),
      responseDeserialize: (bytes) => binaryToJson(method.output, bytes),
    };
  }
  return definition;
}

/** Bytes as the Buffer grpc-js sends, sharing their memory (Buffer.from of a Uint8Array would copy them). */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * A message's proto binary, from its JSON form; fields the proto does not declare are left out.
 * Written straight from the JSON (./json-to-binary.ts), or, for what that does not handle, by
 * protobuf-es: the same bytes either way.
 */
export function jsonToBinary(schema: DescMessage, json: JsonValue): Uint8Array {
  try {
    return writeJsonMessage(schema, json);
  } catch (error) {
    if (!(error instanceof Unhandled)) throw error;
    return protobufJsonToBinary(schema, json);
  }
}

/** `jsonToBinary` as protobuf-es does it: the message made from its JSON, then written. */
export function protobufJsonToBinary(schema: DescMessage, json: JsonValue): Uint8Array {
  return toBinary(schema, fromJson(schema, json, { ignoreUnknownFields: true }));
}

/** A message's JSON form, from its proto binary (enums by name, as A2A 1.0's JSON has them). */
export function binaryToJson(schema: DescMessage, bytes: Uint8Array): JsonValue {
  return toJson(schema, fromBinary(schema, bytes), { alwaysEmitImplicit: false });
}

/** The `google.rpc.Status` of a gRPC error, as the `grpc-status-details-bin` trailer carries it, with A2A 1.0's details. */
export function statusDetailsBinary(code: number, message: string, details: readonly ErrorDetail10[]): Uint8Array {
  const packed = details.flatMap((detail) => {
    if (detail['@type'] === ERROR_INFO_TYPE) {
      const { reason, domain, metadata } = detail as { reason: string; domain: string; metadata?: Record<string, string> };
      return [anyPack(ErrorInfoSchema, create(ErrorInfoSchema, { reason, domain, metadata: metadata ?? {} }))];
    }
    if (detail['@type'] === BAD_REQUEST_TYPE) {
      const { fieldViolations } = detail as { fieldViolations: { field: string; description: string; reason?: string }[] };
      return [anyPack(BadRequestSchema, create(BadRequestSchema, { fieldViolations }))];
    }
    return [];
  });
  return toBinary(StatusSchema, create(StatusSchema, { code, message, details: packed }));
}

/** The details of a `grpc-status-details-bin` trailer, in A2A 1.0's JSON form (`@type` and fields). */
export function statusDetailsFromBinary(bytes: Uint8Array): { code: number; message: string; details: ErrorDetail10[] } {
  const status = fromBinary(StatusSchema, bytes);
  const details = status.details.flatMap((any): ErrorDetail10[] => {
    const info = anyUnpack(any, ErrorInfoSchema);
    if (info) return [{ '@type': ERROR_INFO_TYPE, reason: info.reason, domain: info.domain, metadata: { ...info.metadata } }];
    const badRequest = anyUnpack(any, BadRequestSchema);
    if (badRequest) {
      return [
        {
          '@type': BAD_REQUEST_TYPE,
          fieldViolations: badRequest.fieldViolations.map(({ field, description, reason }) => ({ field, description, reason })),
        },
      ];
    }
    return [];
  });
  return { code: status.code, message: status.message, details };
}

/**
 * The serialized file descriptors of A2A 1.0's proto and of every file it imports: what gRPC
 * server reflection answers with, so that grpcurl and grpcui can list and call the service
 * without the proto.
 */
export function fileDescriptorProtos(): Buffer[] {
  const seen = new Set<string>();
  const ordered: FileDescriptorProto[] = [];
  const visit = (file: typeof file_lf_a2a_v1_a2a) => {
    if (seen.has(file.name)) return;
    seen.add(file.name);
    for (const dependency of file.dependencies) visit(dependency);
    ordered.push(file.proto);
  };
  visit(file_lf_a2a_v1_a2a);
  return ordered.map((proto) => Buffer.from(toBinary(FileDescriptorProtoSchema, proto)));
}
