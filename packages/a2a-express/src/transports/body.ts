// Reading a JSON-RPC request body: content type, size limit, JSON, nesting depth. Works whether
// or not the host app parsed the body before the router (express.json(), express.text(), ...).
import { A2AError } from 'a2a-types';
import express, { type Request, type Response } from 'express';
import { nestingExceeds } from './nesting.js';

/** A request refused before JSON-RPC: an HTTP status with a JSON-RPC error body (id null). */
export class TransportError extends Error {
  constructor(
    readonly status: number,
    readonly error: A2AError,
  ) {
    super(error.message);
  }
}

export type BodyReader = (req: Request, res: Response) => Promise<unknown>;

interface BodyReaderOptions {
  /** The media types a body may have. Default: `application/json` only. */
  readonly mediaTypes?: readonly string[];
  /** What an empty body (none at all, or no bytes) reads as; without it, an empty body is a parse error. */
  readonly empty?: () => unknown;
}

export function createBodyReader(limit: number | string, maxDepth: number, options: BodyReaderOptions = {}): BodyReader {
  const mediaTypes = options.mediaTypes ?? ['application/json'];
  // express.raw (body-parser) streams the body with the size limit, content encodings and
  // aborted requests handled; it leaves a body the host already parsed untouched.
  const raw = express.raw({ type: () => true, limit });
  const readRaw = (req: Request, res: Response) =>
    new Promise<void>((resolve, reject) => raw(req, res, (error?: unknown) => (error ? reject(error) : resolve())));

  return async (req, res) => {
    // Spec 3.2 / 7: requests are application/json. Refusing other types also keeps browsers from
    // sending cross-site "simple" POSTs (text/plain, forms) that skip CORS preflight.
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (options.empty && type === '' && !hasBody(req)) return options.empty();
    if (!mediaTypes.includes(type)) {
      throw new TransportError(415, A2AError.invalidRequest({ reason: `Content-Type must be ${mediaTypes.join(' or ')}` }));
    }
    // A body the host read already (with any parser) has been consumed from the stream.
    const readByHost = req.readableEnded;
    try {
      await readRaw(req, res);
    } catch (error) {
      throw bodyError(error, limit);
    }
    const value = options.empty && isEmpty(req.body) ? options.empty() : parse(req.body);
    // The raw bytes are ours (the host had not read the body): leave the parsed request in
    // their place, as express.json would: a long stream keeps its request alive, and a small
    // Buffer holds on to the whole slab of Node's pool it was cut from.
    if (!readByHost) req.body = value;
    if (nestingExceeds(value, maxDepth)) {
      throw new TransportError(200, A2AError.invalidRequest({ reason: `JSON nested deeper than ${maxDepth} levels` }));
    }
    return value;
  };
}

/** Whether the request announces a body (a length above zero, or chunks). */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isEmpty(body: unknown): boolean {
  return body === undefined || (Buffer.isBuffer(body) && body.length === 0) || body === '';
}

function parse(body: unknown): unknown {
  let text: string;
  if (Buffer.isBuffer(body)) text = body.toString('utf8');
  else if (typeof body === 'string')
    text = body; // the host used express.text()
  else if (body === undefined) text = '';
  else return body; // the host parsed JSON already
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new TransportError(200, A2AError.parseError({ reason: (error as Error).message }));
  }
}

function bodyError(error: unknown, limit: number | string): TransportError {
  const { status, type } = error as { status?: number; type?: string };
  if (status === 413 || type === 'entity.too.large') {
    return new TransportError(413, A2AError.invalidRequest({ reason: `request body larger than ${limit}` }));
  }
  if (status === 415) {
    return new TransportError(415, A2AError.invalidRequest({ reason: 'unsupported content encoding or charset' }));
  }
  return new TransportError(400, A2AError.parseError({ reason: 'the request body could not be read' }));
}
