// A2A 1.0's gRPC binding (spec 1.0 10): each method of `A2AService` calls the method of the same
// name in 1.0's table, its request read into the proto's JSON form, which is 1.0's JSON-RPC params
// (so the same validation, mapping and operation run on every binding), and the answer written
// back from that form. Errors are gRPC statuses by reason (spec 1.0 5.4), their ErrorInfo (and
// BadRequest) in the `google.rpc.Status` of the `grpc-status-details-bin` trailer (10.6).
import { A2AError } from 'a2a-types/model';
import {
  A2A_METHODS,
  A2A_SERVICE_NAME,
  asBuffer,
  binaryToJson,
  fileDescriptorProtos,
  jsonToBinary,
  statusDetailsBinary,
} from 'a2a-types/v1.0/grpc';
import type { GrpcBinding } from '../../protocol/version.js';
import type { ErrorDetail10 } from 'a2a-types/v1.0';
import { statusesOf10, errorTo10, PROTOCOL_VERSION_10 } from './mapping.js';

/** The gRPC status codes, by name (grpc's `Status` enum, which every gRPC library shares). */
const STATUS_CODES: Readonly<Record<string, number>> = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
};

export const grpc10: GrpcBinding = {
  serviceName: A2A_SERVICE_NAME,
  protocolVersion: PROTOCOL_VERSION_10,
  methods: A2A_METHODS.map((method) => ({
    path: method.path,
    method: method.name,
    localName: method.localName,
    responseStream: method.responseStream,
    params(bytes) {
      try {
        return binaryToJson(method.input, bytes);
      } catch (error) {
        // protobuf-es reads no message nested more than 100 deep: such a request is refused here.
        throw A2AError.invalidRequest({ reason: `the request is not a ${method.input.typeName}: ${(error as Error).message}` });
      }
    },
    // A method with nothing to say (DeleteTaskPushNotificationConfig) answers google.protobuf.Empty.
    answer: (result) => asBuffer(jsonToBinary(method.output, (result ?? {}) as Parameters<typeof jsonToBinary>[1])),
  })),
  errorStatus(error) {
    const worded = errorTo10(error);
    const code = STATUS_CODES[statusesOf10(worded).grpcStatus] ?? STATUS_CODES.INTERNAL!;
    return { code, message: worded.message, details: statusDetailsBinary(code, worded.message, worded.data as ErrorDetail10[]) };
  },
  fileDescriptors: fileDescriptorProtos,
};
