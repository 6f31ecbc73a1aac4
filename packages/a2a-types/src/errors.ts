import type { JSONRPCError } from './types.js';

/** Every error code of JSON-RPC 2.0 [8.1] and A2A 0.1.0 [8.2]. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  TaskNotFound: -32001,
  TaskNotCancelable: -32002,
  PushNotificationNotSupported: -32003,
  UnsupportedOperation: -32004,
  ContentTypeNotSupported: -32005,
  StreamingNotSupported: -32006,
  AuthenticationRequired: -32007,
  AuthorizationFailed: -32008,
  InvalidTaskState: -32009,
  RateLimitExceeded: -32010,
  ResourceUnavailable: -32011,
  /**
   * The kit's code for a call that does not ask for an extension the agent requires: 1.0 says it
   * -32008 (`ExtensionSupportRequiredError`), 0.3 (which names no error for it) -32000.
   */
  ExtensionSupportRequired: -32012,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The `message` the specification gives each code (8.1, 8.2). */
export const ERROR_MESSAGES: Readonly<Record<ErrorCode, string>> = {
  [ErrorCode.ParseError]: 'Invalid JSON payload',
  [ErrorCode.InvalidRequest]: 'Invalid JSON-RPC Request',
  [ErrorCode.MethodNotFound]: 'Method not found',
  [ErrorCode.InvalidParams]: 'Invalid method parameters',
  [ErrorCode.InternalError]: 'Internal server error',
  [ErrorCode.TaskNotFound]: 'Task not found',
  [ErrorCode.TaskNotCancelable]: 'Task cannot be canceled',
  [ErrorCode.PushNotificationNotSupported]: 'Push Notification is not supported',
  [ErrorCode.UnsupportedOperation]: 'This operation is not supported',
  [ErrorCode.ContentTypeNotSupported]: 'Incompatible content types',
  [ErrorCode.StreamingNotSupported]: 'Streaming is not supported',
  [ErrorCode.AuthenticationRequired]: 'Authentication required',
  [ErrorCode.AuthorizationFailed]: 'Authorization failed',
  [ErrorCode.InvalidTaskState]: 'Invalid task state for operation',
  [ErrorCode.RateLimitExceeded]: 'Rate limit exceeded',
  [ErrorCode.ResourceUnavailable]: 'A required resource is unavailable',
  [ErrorCode.ExtensionSupportRequired]: 'Extension support required',
};

/**
 * What went wrong, by name, whatever code a version or binding gives it: the reasons of A2A 1.0's
 * `ErrorInfo`, and gRPC's names for what the kit adds (credentials, permission, limits).
 */
export type ErrorReason =
  | 'PARSE_ERROR'
  | 'INVALID_REQUEST'
  | 'METHOD_NOT_FOUND'
  | 'INVALID_PARAMS'
  | 'INTERNAL'
  | 'TASK_NOT_FOUND'
  | 'TASK_NOT_CANCELABLE'
  | 'PUSH_NOTIFICATION_NOT_SUPPORTED'
  | 'UNSUPPORTED_OPERATION'
  | 'CONTENT_TYPE_NOT_SUPPORTED'
  | 'STREAMING_NOT_SUPPORTED'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'INVALID_TASK_STATE'
  | 'RATE_LIMIT_EXCEEDED'
  | 'RESOURCE_UNAVAILABLE'
  | 'EXTENSION_SUPPORT_REQUIRED'
  // 1.0's, which no code of the kit's says: an error of one is made with its reason.
  | 'INVALID_AGENT_RESPONSE'
  | 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'
  | 'VERSION_NOT_SUPPORTED';

/** The reason of each of the kit's codes. */
export const ERROR_REASONS: Readonly<Record<ErrorCode, ErrorReason>> = {
  [ErrorCode.ParseError]: 'PARSE_ERROR',
  [ErrorCode.InvalidRequest]: 'INVALID_REQUEST',
  [ErrorCode.MethodNotFound]: 'METHOD_NOT_FOUND',
  [ErrorCode.InvalidParams]: 'INVALID_PARAMS',
  [ErrorCode.InternalError]: 'INTERNAL',
  [ErrorCode.TaskNotFound]: 'TASK_NOT_FOUND',
  [ErrorCode.TaskNotCancelable]: 'TASK_NOT_CANCELABLE',
  [ErrorCode.PushNotificationNotSupported]: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  [ErrorCode.UnsupportedOperation]: 'UNSUPPORTED_OPERATION',
  [ErrorCode.ContentTypeNotSupported]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [ErrorCode.StreamingNotSupported]: 'STREAMING_NOT_SUPPORTED',
  [ErrorCode.AuthenticationRequired]: 'UNAUTHENTICATED',
  [ErrorCode.AuthorizationFailed]: 'PERMISSION_DENIED',
  [ErrorCode.InvalidTaskState]: 'INVALID_TASK_STATE',
  [ErrorCode.RateLimitExceeded]: 'RATE_LIMIT_EXCEEDED',
  [ErrorCode.ResourceUnavailable]: 'RESOURCE_UNAVAILABLE',
  [ErrorCode.ExtensionSupportRequired]: 'EXTENSION_SUPPORT_REQUIRED',
};

function reasonOf(code: ErrorCode): ErrorReason | undefined {
  return Object.hasOwn(ERROR_REASONS, code) ? ERROR_REASONS[code] : undefined;
}

/**
 * An error that becomes a JSON-RPC error object. Its `message` and `data` are sent to the
 * client as they are, so they must never carry internals; anything else thrown inside the
 * server becomes a bare -32603.
 */
export class A2AError extends Error {
  readonly code: ErrorCode;
  readonly data: unknown;
  readonly #reason: ErrorReason | undefined;

  /**
   * `reason` defaults to the reason of `code`; an error whose code means something else to the
   * kit (a code of one version only, such as 0.3's -32007) names its reason itself.
   */
  constructor(code: ErrorCode, message: string = ERROR_MESSAGES[code], data?: unknown, reason: ErrorReason | undefined = reasonOf(code)) {
    super(message);
    this.name = 'A2AError';
    this.code = code;
    this.data = data;
    this.#reason = reason;
  }

  /**
   * What went wrong, by name: how each binding finds its own code or status for it, when it
   * writes the error (a version's JSON-RPC code, an HTTP status, a gRPC status and its
   * `ErrorInfo`). Kept when a version words the error its way. Undefined for a code the kit does
   * not know (a handler's own).
   */
  get reason(): ErrorReason | undefined {
    return this.#reason;
  }

  /** The wire form [6.12]; `data` only when there is some. */
  toJSON(): JSONRPCError {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static parseError(data?: unknown): A2AError {
    return new A2AError(ErrorCode.ParseError, undefined, data);
  }
  static invalidRequest(data?: unknown): A2AError {
    return new A2AError(ErrorCode.InvalidRequest, undefined, data);
  }
  static methodNotFound(method: string): A2AError {
    return new A2AError(ErrorCode.MethodNotFound, undefined, { method });
  }
  static invalidParams(data?: unknown): A2AError {
    return new A2AError(ErrorCode.InvalidParams, undefined, data);
  }
  /** -32603; `reason`, when given, must say nothing of internals (it is sent as `data.reason`). */
  static internalError(reason?: string): A2AError {
    return new A2AError(ErrorCode.InternalError, undefined, reason && { reason });
  }
  static taskNotFound(taskId: string): A2AError {
    return new A2AError(ErrorCode.TaskNotFound, undefined, { taskId });
  }
  /**
   * `tasks/pushNotification/get` on a task that has no config. -32001, the code for a thing that is
   * not there, as most A2A servers answer it; `data.reason` tells it from an unknown task.
   */
  static pushNotificationConfigNotFound(taskId: string): A2AError {
    return new A2AError(ErrorCode.TaskNotFound, 'Push notification config not found', {
      taskId,
      reason: 'no push notification config is set for this task',
    });
  }
  static taskNotCancelable(taskId: string, state: string): A2AError {
    return new A2AError(ErrorCode.TaskNotCancelable, undefined, { taskId, state });
  }
  static pushNotificationNotSupported(): A2AError {
    return new A2AError(ErrorCode.PushNotificationNotSupported);
  }
  static unsupportedOperation(reason?: string): A2AError {
    return new A2AError(ErrorCode.UnsupportedOperation, undefined, reason && { reason });
  }
  static contentTypeNotSupported(data?: unknown): A2AError {
    return new A2AError(ErrorCode.ContentTypeNotSupported, undefined, data);
  }
  static streamingNotSupported(): A2AError {
    return new A2AError(ErrorCode.StreamingNotSupported);
  }
  static authenticationRequired(reason?: string): A2AError {
    return new A2AError(ErrorCode.AuthenticationRequired, undefined, reason && { reason });
  }
  static authorizationFailed(): A2AError {
    return new A2AError(ErrorCode.AuthorizationFailed);
  }
  static invalidTaskState(taskId: string, state: string, reason: string): A2AError {
    return new A2AError(ErrorCode.InvalidTaskState, undefined, { taskId, state, reason });
  }
  static resourceUnavailable(reason?: string): A2AError {
    return new A2AError(ErrorCode.ResourceUnavailable, undefined, reason && { reason });
  }
  /** A call that does not ask for extensions the agent requires: which, comma-separated as the header lists them. */
  static extensionSupportRequired(uris: readonly string[]): A2AError {
    return new A2AError(ErrorCode.ExtensionSupportRequired, undefined, {
      extensions: uris.join(','),
      reason: `this agent requires the client to use ${uris.join(', ')} (ask for ${uris.length > 1 ? 'them' : 'it'} in A2A-Extensions)`,
    });
  }
}
