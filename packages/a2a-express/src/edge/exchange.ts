// One HTTP exchange as every binding sees it, whatever server received it: Express, node:http,
// or a runtime that speaks fetch (Hono, Next.js, Bun, Deno, Workers). The bindings read an
// `EdgeRequest` and answer on an `EdgeResponse`; an adapter (edge/node.ts, edge/fetch.ts) makes
// both from its server's own objects. It is an interface of our own rather than the Web
// `Request`/`Response`: on Node, building a `Headers` and a `Request` for every call would cost
// the fastest path a good part of its time, and a stream needs backpressure and a cut, which a
// `Response` cannot express once it is returned. Nothing here imports `node:`.
import type { CallHeaders } from '../core/call.js';

/** A request as the bindings read it. */
export interface EdgeRequest {
  /** The verb, upper case. */
  readonly method: string;
  /** The path below where the agent is mounted, as sent (percent-encoded), without the query; begins with `/`. */
  readonly path: string;
  /** The query string, without its `?` (empty when there is none). */
  readonly search: string;
  /** The headers, names in lower case. */
  readonly headers: CallHeaders;
  /** The URL where the agent is mounted, as this request reached it (scheme, host, base path; no trailing slash). */
  mountUrl(): string;
  /** The client's address, when the server knows it (behind a proxy, as the adapter is told to trust it). */
  clientAddress(): string | undefined;
  /**
   * The body's bytes, at most `limit` of them once decoded: a `BodyTooLarge` past it, a
   * `BodyUnreadable` for a body that cannot be read (a content coding not served, a client that
   * left). A body the host application parsed already comes as `{ parsed }`.
   */
  readBody(limit: number): Promise<{ bytes: Uint8Array } | { parsed: unknown }>;
  /**
   * Told the request's parsed body, when the binding read it from bytes: Express keeps it in
   * `req.body`, as express.json would, for the host's middleware that looks once the answer is out.
   */
  bodyParsed?(value: unknown): void;
  /**
   * The server's own request where it has Node's form (Express's, node:http's): what an auth
   * strategy is shown, so that one written for Express reads what it always read.
   */
  readonly original?: { readonly headers: CallHeaders };
  /** For spans: the scheme, the HTTP version and the path as the client sent it (with the mount). */
  readonly traced: {
    readonly scheme: string;
    readonly httpVersion?: string;
    readonly fullPath: string;
    /** The address of the connection's other end (the client, or the proxy in front). */
    readonly peerAddress?: string;
  };
}

/** How a request's answer is written. */
export interface EdgeResponse {
  /** The head has gone out: headers can no longer change. */
  readonly headersSent: boolean;
  /** The client left before its answer was complete. */
  readonly gone: boolean;
  /** Settles when the client leaves before its answer is complete; never otherwise. */
  whenGone(): Promise<void>;
  /** Sets a header of the answer (until its head is sent); several values, each its own line. */
  setHeader(name: string, value: string | readonly string[]): void;
  /** The whole answer: a status, and a body in UTF-8 (none for a 204 or a 304). Once the head is sent, ends what was begun. */
  end(status: number, body?: string): void;
  /**
   * An answer written piece by piece (SSE): its head goes out with the first write, or on
   * `flush`, with the headers set until then.
   */
  stream(status: number, headers: Readonly<Record<string, string>>): ResponseStream;
  /** Called once the exchange is over, with the status sent: what a span records. */
  onFinish(listener: (status: number) => void): void;
}

/** A streamed answer. */
export interface ResponseStream {
  /** Sends the head now, when nothing has been written yet. */
  flush(): void;
  /** Writes text; false when the client is behind (wait for `onDrain` before writing more). */
  write(text: string): boolean;
  /** Called once, when the client has taken what was written. */
  onDrain(listener: () => void): void;
  /** Ends the answer once what was written is sent. */
  end(): void;
  /** Cuts the answer: the client sees its connection end without the answer's end. */
  destroy(): void;
  /** Called once when the answer is over: `true` when it ended, `false` when the client left or the connection failed. */
  onClose(listener: (ended: boolean) => void): void;
  /** Whether writes are still taken. */
  readonly writable: boolean;
}

/** A body longer than the limit the binding reads. */
export class BodyTooLarge extends Error {}

/** A body that cannot be read: `unsupported` for a content coding not served, else the client's bytes did not arrive. */
export class BodyUnreadable extends Error {
  constructor(readonly unsupported: boolean) {
    super(unsupported ? 'unsupported content encoding' : 'the request body could not be read');
  }
}

// One way of reading a header, for the edge and the core alike.
export { headerOf } from '../core/call.js';

/** Writes a JSON answer. */
export function sendJson(res: EdgeResponse, status: number, payload: unknown): void {
  sendJsonText(res, status, JSON.stringify(payload));
}

/** Writes a JSON answer from its text. */
export function sendJsonText(res: EdgeResponse, status: number, text: string, mediaType = 'application/json'): void {
  res.setHeader('Content-Type', mediaType);
  res.end(status, text);
}

/** The query, each name with its values: one value as a string, several as an array (as Express's simple parser has them). */
export function queryOf(req: EdgeRequest): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (req.search === '') return query;
  for (const [name, value] of new URLSearchParams(req.search)) {
    const before = query[name];
    query[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return query;
}

/** Parses a size such as `10mb`, `512kb` or a number of bytes. */
export function bytesOf(limit: number | string): number {
  if (typeof limit === 'number') return limit;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (!match) throw new TypeError(`a size must be a number of bytes or such as "10mb", got ${JSON.stringify(limit)}`);
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(match[2] ?? 'b').toLowerCase() as 'b'];
  return Math.floor(Number(match[1]) * unit);
}
