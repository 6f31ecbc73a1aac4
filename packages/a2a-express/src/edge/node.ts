// The exchange on Node's own request and response (node:http, https, http2's compatibility API):
// what Express and the node:http listener both serve through. The adapter reads the body itself
// (events, not an async iterator: most bodies are one chunk, and this is every call's path),
// decoding gzip and deflate, and stops reading at the limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { BodyTooLarge, BodyUnreadable, type EdgeRequest, type EdgeResponse, type ResponseStream } from './exchange.js';

/**
 * What the server in front knows of its requests, seen from the agent's mount: one for each
 * adapter, shared by its requests (every call's path: nothing is made for one but its exchange).
 */
export interface NodeMount<R extends IncomingMessage = IncomingMessage> {
  /** See `EdgeRequest.mountUrl`. */
  mountUrl(req: R): string;
  /** See `EdgeRequest.clientAddress`. */
  clientAddress(req: R): string | undefined;
  /** A body the host application parsed already; undefined when none did. */
  parsedBody?(req: R): { parsed: unknown } | undefined;
  /** See `EdgeRequest.bodyParsed`. */
  bodyParsed?(req: R, value: unknown): void;
}

/** The exchange of a Node request (whose path below the mount is `path`) and its response. */
export function nodeExchange<R extends IncomingMessage>(
  req: R,
  res: ServerResponse,
  path: string,
  mount: NodeMount<R>,
): { request: EdgeRequest; response: EdgeResponse } {
  return { request: new NodeRequest(req, path, mount), response: new NodeResponse(res) };
}

/** A Node request, as the bindings read it. */
class NodeRequest<R extends IncomingMessage> implements EdgeRequest {
  readonly method: string;
  readonly search: string;
  readonly headers: R['headers'];
  /** The URL as the client sent it (Express rewrites `url` below a mount; `originalUrl` is the client's). */
  readonly #url: string;
  readonly #queryAt: number;

  constructor(
    readonly original: R,
    readonly path: string,
    private readonly mount: NodeMount<R>,
  ) {
    this.method = original.method ?? 'GET';
    this.headers = original.headers;
    const url = (original as { originalUrl?: string }).originalUrl ?? original.url ?? '/';
    const queryAt = url.indexOf('?');
    this.search = queryAt === -1 ? '' : url.slice(queryAt + 1);
    this.#url = url;
    this.#queryAt = queryAt;
  }

  mountUrl(): string {
    return this.mount.mountUrl(this.original);
  }

  clientAddress(): string | undefined {
    return this.mount.clientAddress(this.original);
  }

  readBody(limit: number): Promise<{ bytes: Uint8Array } | { parsed: unknown }> {
    const parsed = this.mount.parsedBody?.(this.original);
    return parsed ? Promise.resolve(parsed) : readNodeBody(this.original, limit);
  }

  bodyParsed(value: unknown): void {
    this.mount.bodyParsed?.(this.original, value);
  }

  get traced() {
    const req = this.original;
    return {
      scheme: isEncrypted(req) ? 'https' : 'http',
      httpVersion: req.httpVersion,
      fullPath: this.#queryAt === -1 ? this.#url : this.#url.slice(0, this.#queryAt),
      peerAddress: req.socket.remoteAddress,
    };
  }
}

/** The answer on a Node response. */
export function nodeResponse(res: ServerResponse): EdgeResponse {
  return new NodeResponse(res);
}

/** Whether the request came over TLS. */
export function isEncrypted(req: IncomingMessage): boolean {
  return (req.socket as { encrypted?: boolean }).encrypted === true;
}

/** The body's bytes, decoded, at most `limit` of them. */
function readNodeBody(req: IncomingMessage, limit: number): Promise<{ bytes: Uint8Array }> {
  const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  let source: Readable = req;
  if (coding === 'gzip' || coding === 'x-gzip') source = req.pipe(createGunzip());
  else if (coding === 'deflate') source = req.pipe(createInflate());
  else if (coding !== 'identity') return Promise.reject(new BodyUnreadable(true));
  const declared = Number(req.headers['content-length']);
  // Refused before a byte is read; the rest of the body is never read, so the connection closes.
  if (source === req && declared > limit) return Promise.reject(new BodyTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: Error) => {
      source.removeListener('data', onData);
      if (source !== req) source.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(new BodyTooLarge());
      else chunks.push(chunk);
    };
    source.on('data', onData);
    source.once('end', () => resolve({ bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }));
    source.once('error', () => fail(new BodyUnreadable(false)));
    // A client that leaves mid-body: the request ends without 'end'.
    req.once('close', () => {
      if (!req.complete) fail(new BodyUnreadable(false));
    });
  });
}

/** The answer, on a Node response. */
class NodeResponse implements EdgeResponse {
  #whenGone: Promise<void> | undefined;

  constructor(private readonly res: ServerResponse) {}

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  /** Gone: its connection closed before the answer was sent. */
  get gone(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  whenGone(): Promise<void> {
    // The listener is added when a blocking send first asks, once it has waited a second: most calls never do.
    this.#whenGone ??= new Promise<void>((resolve) => {
      const { res } = this;
      if (this.gone) return resolve();
      res.once('close', () => {
        if (!res.writableFinished) resolve();
      });
    });
    return this.#whenGone;
  }

  setHeader(name: string, value: string | readonly string[]): void {
    this.res.setHeader(name, value);
  }

  end(status: number, body?: string): void {
    const { res } = this;
    if (res.headersSent) {
      res.end();
      return;
    }
    res.statusCode = status;
    if (body === undefined) {
      res.end();
      return;
    }
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }

  stream(status: number, headers: Readonly<Record<string, string>>): ResponseStream {
    return new NodeResponseStream(this.res, status, headers);
  }

  onFinish(listener: (status: number) => void): void {
    const { res } = this;
    res.once('close', () => listener(res.statusCode));
  }
}

class NodeResponseStream implements ResponseStream {
  #headWritten = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly status: number,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  get writable(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  flush(): void {
    if (this.#writeHead()) this.res.flushHeaders();
  }

  write(text: string): boolean {
    this.#writeHead();
    return this.res.write(text);
  }

  onDrain(listener: () => void): void {
    this.res.once('drain', listener);
  }

  end(): void {
    this.#writeHead();
    this.res.end();
  }

  destroy(): void {
    this.res.destroy();
  }

  onClose(listener: (ended: boolean) => void): void {
    const { res } = this;
    // The client may have left while the stream was being prepared: its 'close' has fired already.
    if (res.destroyed) {
      queueMicrotask(() => listener(false));
      return;
    }
    let told = false;
    const tell = () => {
      if (told) return;
      told = true;
      listener(res.writableFinished);
    };
    res.on('close', tell);
    // A socket error (a reset, a write the socket refused) ends the stream here rather than as an
    // unhandled 'error' event, which would end the process.
    res.on('error', tell);
  }

  /** Writes the head if it is not written yet; whether it was written now. */
  #writeHead(): boolean {
    if (this.#headWritten) return false;
    this.#headWritten = true;
    this.res.writeHead(this.status, this.headers);
    return true;
  }
}
