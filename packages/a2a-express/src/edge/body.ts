// Reading a request's JSON body on any server: content type, size limit, JSON, nesting depth.
// The bytes come from the adapter (which decodes a content coding and stops at the limit); a
// body the host application parsed already (express.json(), express.text(), ...) is taken as it is.
import { A2AError } from 'a2a-types';
import { nestingExceeds } from '../transports/nesting.js';
import { BodyTooLarge, BodyUnreadable, bytesOf, type EdgeRequest } from './exchange.js';

/** A request refused before its method: an HTTP status, and the error to say why. */
export class TransportError extends Error {
  constructor(
    readonly status: number,
    readonly error: A2AError,
  ) {
    super(error.message);
  }
}

export type BodyReader = (req: EdgeRequest) => Promise<unknown>;

interface BodyReaderOptions {
  /** The media types a body may have. Default: `application/json` only. */
  readonly mediaTypes?: readonly string[];
  /** What an empty body (none at all, or no bytes) reads as; without it, an empty body is a parse error. */
  readonly empty?: () => unknown;
}

const utf8 = new TextDecoder();
/** Node's and Bun's Buffer, where there is one. */
const NodeBuffer = (globalThis as { Buffer?: { isBuffer(value: unknown): boolean } }).Buffer;

/** UTF-8 text of bytes: Node's own decoding where the bytes are its Buffer (faster for a small body). */
function decode(bytes: Uint8Array): string {
  return NodeBuffer?.isBuffer(bytes) ? (bytes as Uint8Array & { toString(encoding: 'utf8'): string }).toString('utf8') : utf8.decode(bytes);
}

export function createBodyReader(limit: number | string, maxDepth: number, options: BodyReaderOptions = {}): BodyReader {
  const mediaTypes = options.mediaTypes ?? ['application/json'];
  const limitBytes = bytesOf(limit);
  return async (req) => {
    // Spec 3.2 / 7: requests are application/json. Refusing other types also keeps browsers from
    // sending cross-site "simple" POSTs (text/plain, forms) that skip CORS preflight.
    const contentType = req.headers['content-type'];
    const type = (typeof contentType === 'string' ? contentType : '').split(';')[0]!.trim().toLowerCase();
    if (options.empty && type === '' && !announcesBody(req)) return options.empty();
    if (!mediaTypes.includes(type)) {
      throw new TransportError(415, A2AError.invalidRequest({ reason: `Content-Type must be ${mediaTypes.join(' or ')}` }));
    }
    let body: { bytes: Uint8Array } | { parsed: unknown };
    try {
      body = await req.readBody(limitBytes);
    } catch (error) {
      throw bodyError(error, limit);
    }
    const value = options.empty && isEmpty(body) ? options.empty() : parse(body);
    if ('bytes' in body) req.bodyParsed?.(value);
    if (nestingExceeds(value, maxDepth)) {
      throw new TransportError(200, A2AError.invalidRequest({ reason: `JSON nested deeper than ${maxDepth} levels` }));
    }
    return value;
  };
}

/** Whether the request announces a body (a length above zero, or chunks). */
function announcesBody(req: EdgeRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isEmpty(body: { bytes: Uint8Array } | { parsed: unknown }): boolean {
  if ('bytes' in body) return body.bytes.length === 0;
  const { parsed } = body;
  return parsed === undefined || parsed === '' || (parsed instanceof Uint8Array && parsed.length === 0);
}

function parse(body: { bytes: Uint8Array } | { parsed: unknown }): unknown {
  let text: string;
  if ('bytes' in body) text = decode(body.bytes);
  else if (body.parsed instanceof Uint8Array)
    text = decode(body.parsed); // the host used express.raw()
  else if (typeof body.parsed === 'string')
    text = body.parsed; // the host used express.text()
  else if (body.parsed === undefined) text = '';
  else return body.parsed; // the host parsed JSON already
  try {
    // A byte order mark is not JSON: dropped (TextDecoder drops it; Node's Buffer and a host's parser keep it).
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new TransportError(200, A2AError.parseError({ reason: (error as Error).message }));
  }
}

function bodyError(error: unknown, limit: number | string): TransportError {
  if (error instanceof BodyTooLarge) {
    return new TransportError(413, A2AError.invalidRequest({ reason: `request body larger than ${limit}` }));
  }
  if (error instanceof BodyUnreadable && error.unsupported) {
    return new TransportError(415, A2AError.invalidRequest({ reason: 'unsupported content encoding or charset' }));
  }
  return new TransportError(400, A2AError.parseError({ reason: 'the request body could not be read' }));
}
