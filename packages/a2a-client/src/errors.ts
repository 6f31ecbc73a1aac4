import { ERROR_MESSAGES, type ErrorCode, type JSONRPCError } from 'a2a-types';

/** Every error the client throws. */
export class A2AClientError extends Error {
  override name = 'A2AClientError';
}

/** The server answered with a JSON-RPC error. */
export class JsonRpcError extends A2AClientError {
  override name = 'JsonRpcError';
  readonly code: number;
  readonly data: unknown;
  constructor(error: JSONRPCError) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
  /** The specification's name for the code ("Task not found"), if it has one. */
  get meaning(): string | undefined {
    return ERROR_MESSAGES[this.code as ErrorCode];
  }
}

/** An HTTP status other than success, with no JSON-RPC error in the body. */
export class HttpError extends A2AClientError {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
}

/** The server could not be reached, or the connection broke. */
export class NetworkError extends A2AClientError {
  override name = 'NetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** No answer within the time allowed. */
export class TimeoutError extends A2AClientError {
  override name = 'TimeoutError';
}

/** The server answered something that is not valid A2A: reported, not trusted. */
export class InvalidResponseError extends A2AClientError {
  override name = 'InvalidResponseError';
  constructor(
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}
