// A2A 0.3's gRPC binding (spec 0.3 3.2.2, the proto's `a2a.v1.A2AService`): each method calls the
// 0.3 JSON-RPC method it means (SendMessage is message/send, TaskSubscription tasks/resubscribe,
// ...), its request read into that method's params and its answer written from that method's
// result (a2a-types/v0.3/grpc translates between the proto and 0.3's JSON), so the same
// validation, mapping and operation run as over JSON-RPC. Errors are gRPC status codes by reason:
// 0.3 names none beyond "as defined in the proto annotations", which define none, so the codes
// are those the official SDKs send (TaskNotFound NOT_FOUND, TaskNotCancelable FAILED_PRECONDITION,
// push notifications or an operation not supported UNIMPLEMENTED, ...), and the status carries an
// ErrorInfo with the reason for clients that read it.
import { A2AError, formatIssues, type ValidationIssue } from 'a2a-types/model';
import { A2A_METHODS_03, A2A_SERVICE_NAME_03, fileDescriptorProtos03, statusDetailsBinary03 } from 'a2a-types/v0.3/grpc';
import type { GrpcBinding } from '../../protocol/version.js';
import { errorTo03, PROTOCOL_NAME_03 } from './mapping.js';

/** The gRPC status code of each reason (grpc's `Status` enum, which every gRPC library shares). */
const STATUS_OF_REASON: Readonly<Record<string, number>> = {
  PARSE_ERROR: 3, // INVALID_ARGUMENT
  INVALID_REQUEST: 3,
  INVALID_PARAMS: 3,
  CONTENT_TYPE_NOT_SUPPORTED: 3,
  TASK_NOT_FOUND: 5, // NOT_FOUND
  PERMISSION_DENIED: 7,
  RATE_LIMIT_EXCEEDED: 8, // RESOURCE_EXHAUSTED
  TASK_NOT_CANCELABLE: 9, // FAILED_PRECONDITION
  INVALID_TASK_STATE: 9,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 9,
  EXTENSION_SUPPORT_REQUIRED: 9,
  VERSION_NOT_SUPPORTED: 9,
  METHOD_NOT_FOUND: 12, // UNIMPLEMENTED
  PUSH_NOTIFICATION_NOT_SUPPORTED: 12,
  UNSUPPORTED_OPERATION: 12,
  STREAMING_NOT_SUPPORTED: 12,
  INTERNAL: 13,
  INVALID_AGENT_RESPONSE: 13,
  RESOURCE_UNAVAILABLE: 14, // UNAVAILABLE
  UNAUTHENTICATED: 16,
};
/** A handler's own error code, which no reason names. */
const UNKNOWN = 2;

export const grpc03: GrpcBinding = {
  serviceName: A2A_SERVICE_NAME_03,
  protocolVersion: PROTOCOL_NAME_03,
  methods: A2A_METHODS_03.map((method) => ({
    path: method.path,
    method: method.name,
    tableMethod: method.jsonRpcMethod,
    localName: method.localName,
    responseStream: method.responseStream,
    params(bytes) {
      try {
        return method.paramsFromBinary(bytes);
      } catch (error) {
        if (error instanceof A2AError) throw error;
        throw A2AError.invalidRequest({ reason: `the request is not a ${method.requestType}: ${(error as Error).message}` });
      }
    },
    answer: (result) => {
      const bytes = method.resultToBinary(result);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
  })),
  errorStatus(error) {
    const worded = errorTo03(error);
    const code = (error.reason && STATUS_OF_REASON[error.reason]) || UNKNOWN;
    const message = described(worded);
    return { code, message, details: statusDetailsBinary03(code, message, error.reason) };
  },
  fileDescriptors: fileDescriptorProtos03,
};

/**
 * The status message: the error's, and what its data says of the cause (a field that failed its
 * check, a reason), since a gRPC status has no JSON-RPC `data` to carry it.
 */
function described(error: A2AError): string {
  const { data } = error;
  if (Array.isArray(data) && data.length > 0) return `${error.message}: ${formatIssues(data as ValidationIssue[])}`;
  const reason = (data as { reason?: unknown } | undefined)?.reason;
  return typeof reason === 'string' ? `${error.message}: ${reason}` : error.message;
}
