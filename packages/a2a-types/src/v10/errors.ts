// The errors of A2A 1.0 (spec 1.0 5.4): each A2A error's JSON-RPC code, HTTP status and gRPC
// status name, and the `google.rpc.ErrorInfo` detail that names it on every binding. JSON-RPC
// carries the details as the array in `error.data` (9.5), HTTP+JSON in `error.details` (11.6).

/** The A2A errors of 1.0, by their JSON-RPC codes. Several codes mean something else in 0.1.0. */
export const ErrorCode10 = {
  TaskNotFound: -32001,
  TaskNotCancelable: -32002,
  PushNotificationNotSupported: -32003,
  UnsupportedOperation: -32004,
  ContentTypeNotSupported: -32005,
  InvalidAgentResponse: -32006,
  ExtendedAgentCardNotConfigured: -32007,
  ExtensionSupportRequired: -32008,
  VersionNotSupported: -32009,
} as const;

export type ErrorCode10 = (typeof ErrorCode10)[keyof typeof ErrorCode10];

/** How each binding says an error: the ErrorInfo `reason`, the HTTP status, the gRPC status name. */
export interface ErrorBinding10 {
  readonly reason: string;
  readonly httpStatus: number;
  readonly grpcStatus: string;
}

/** Spec 1.0 5.4 (v1.0.1), by JSON-RPC code; the JSON-RPC errors of 9.5 too. */
export const ERROR_BINDINGS_10: Readonly<Record<number, ErrorBinding10>> = {
  [ErrorCode10.TaskNotFound]: { reason: 'TASK_NOT_FOUND', httpStatus: 404, grpcStatus: 'NOT_FOUND' },
  [ErrorCode10.TaskNotCancelable]: { reason: 'TASK_NOT_CANCELABLE', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [ErrorCode10.PushNotificationNotSupported]: {
    reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
    httpStatus: 400,
    grpcStatus: 'FAILED_PRECONDITION',
  },
  [ErrorCode10.UnsupportedOperation]: { reason: 'UNSUPPORTED_OPERATION', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [ErrorCode10.ContentTypeNotSupported]: { reason: 'CONTENT_TYPE_NOT_SUPPORTED', httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT' },
  [ErrorCode10.InvalidAgentResponse]: { reason: 'INVALID_AGENT_RESPONSE', httpStatus: 500, grpcStatus: 'INTERNAL' },
  [ErrorCode10.ExtendedAgentCardNotConfigured]: {
    reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    httpStatus: 400,
    grpcStatus: 'FAILED_PRECONDITION',
  },
  [ErrorCode10.ExtensionSupportRequired]: { reason: 'EXTENSION_SUPPORT_REQUIRED', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [ErrorCode10.VersionNotSupported]: { reason: 'VERSION_NOT_SUPPORTED', httpStatus: 400, grpcStatus: 'FAILED_PRECONDITION' },
  [-32700]: { reason: 'PARSE_ERROR', httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT' },
  [-32600]: { reason: 'INVALID_REQUEST', httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT' },
  [-32601]: { reason: 'METHOD_NOT_FOUND', httpStatus: 404, grpcStatus: 'UNIMPLEMENTED' },
  [-32602]: { reason: 'INVALID_PARAMS', httpStatus: 400, grpcStatus: 'INVALID_ARGUMENT' },
  [-32603]: { reason: 'INTERNAL', httpStatus: 500, grpcStatus: 'INTERNAL' },
};

/** The ErrorInfo domain of every A2A error. */
export const ERROR_DOMAIN_10 = 'a2a-protocol.org';
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** `google.rpc.ErrorInfo`: its metadata values are strings. */
export interface ErrorInfo {
  '@type': typeof ERROR_INFO_TYPE;
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

/** `google.rpc.BadRequest`: which fields of a request were wrong, and how. */
export interface BadRequest {
  '@type': typeof BAD_REQUEST_TYPE;
  fieldViolations: { field: string; description: string; reason?: string }[];
}

export type ErrorDetail10 = ErrorInfo | BadRequest | ({ '@type': string } & Record<string, unknown>);

/** The HTTP+JSON error body (spec 1.0 11.6, AIP-193). */
export interface ErrorBody10 {
  error: { code: number; status: string; message: string; details: ErrorDetail10[] };
}

export function errorInfo(reason: string, metadata?: Record<string, string>): ErrorInfo {
  const info: ErrorInfo = { '@type': ERROR_INFO_TYPE, reason, domain: ERROR_DOMAIN_10 };
  if (metadata && Object.keys(metadata).length > 0) info.metadata = metadata;
  return info;
}
