import { ERROR_MESSAGES, type ErrorCode, type JSONRPCError } from 'a2a-types';
import { ERROR_BINDINGS_10 } from 'a2a-types/v1.0';

/** Every error the client throws. */
export class A2AClientError extends Error {
  override name = 'A2AClientError';
}

/** The server answered with a JSON-RPC error. */
export class JsonRpcError extends A2AClientError {
  override name = 'JsonRpcError';
  readonly code: number;
  readonly data: unknown;
  /**
   * The JSON-RPC error that `data` holds, when it holds one: some servers (the reference JS
   * sample among them) wrap the real error in a -32603 and put it there.
   */
  readonly inner: JsonRpcError | undefined;
  constructor(error: JSONRPCError) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
    this.inner = isJsonRpcError(error.data) ? new JsonRpcError(error.data) : undefined;
  }
  /** The specification's name for the code ("Task not found"), if it has one. */
  get meaning(): string | undefined {
    return ERROR_MESSAGES[this.code as ErrorCode];
  }
}

function isJsonRpcError(value: unknown): value is JSONRPCError {
  const error = value as { code?: unknown; message?: unknown } | null;
  return typeof error === 'object' && error !== null && Number.isInteger(error.code) && typeof error.message === 'string';
}

/** An HTTP status other than success, with no JSON-RPC error in the body. */
export class HttpError extends A2AClientError {
  override name = 'HttpError';
  /** The URL that answered. */
  readonly url: string;
  /** The answer's Content-Type, if it had one. */
  readonly contentType: string | undefined;
  constructor(
    readonly status: number,
    readonly body: string,
    answered: { url?: string; contentType?: string | null } = {},
  ) {
    const type = answered.contentType ?? undefined;
    // A page (HTML) says nothing useful in one line; a short text or JSON body may.
    const excerpt = body && !/html/i.test(type ?? '') ? `: ${body.split('\n', 1)[0]!.slice(0, 200)}` : '';
    super(`${answered.url ? `${answered.url} answered ` : ''}HTTP ${status}${type ? ` (${type.split(';')[0]})` : ''}${excerpt}`);
    this.url = answered.url ?? '';
    this.contentType = type;
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

/**
 * What answered is not an A2A agent at all: not JSON where JSON-RPC or a card was due (a web
 * page, a plain-text server). A kind of InvalidResponseError.
 */
export class NotAnAgentError extends InvalidResponseError {
  override name = 'NotAnAgentError';
}

/**
 * The JSON-RPC code A2A 1.0 gives the error its `ErrorInfo` reason names, undefined for a reason
 * 1.0 does not name: how an error over HTTP+JSON or gRPC becomes the same JsonRpcError as over JSON-RPC.
 */
export function codeOfReason10(reason: string | undefined): number | undefined {
  for (const [code, binding] of Object.entries(ERROR_BINDINGS_10)) if (binding.reason === reason) return Number(code);
  return undefined;
}
