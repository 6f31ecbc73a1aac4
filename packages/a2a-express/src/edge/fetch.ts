// The exchange on the Web's `Request` and `Response`, for every runtime that serves fetch
// handlers (Hono, Next.js route handlers, Bun, Deno, Workers). The answer is a `Response` made
// when the edge first answers: a whole one, or a stream whose head goes out with its first write
// (the headers set until then join it), its body a `ReadableStream` that the runtime pulls: a
// client that does not read leaves `write` returning false until it does, and a client that
// leaves cancels the stream. Nothing here imports `node:`.
import { BodyTooLarge, BodyUnreadable, type EdgeRequest, type EdgeResponse, type ResponseStream } from './exchange.js';

/** Where the request is, seen from the agent. */
export interface FetchRequestView {
  /** The path below the agent's base path. */
  readonly path: string;
  mountUrl(): string;
  clientAddress(): string | undefined;
}

/** The exchange of a fetch `Request`; `answer` settles with the `Response` once the edge answers. */
export function fetchExchange(
  request: Request,
  url: URL,
  view: FetchRequestView,
): { request: EdgeRequest; response: EdgeResponse; answer: Promise<Response> } {
  const headers = headersOf(request.headers);
  const edgeRequest: EdgeRequest = {
    method: request.method,
    path: view.path,
    search: url.search.slice(1),
    headers,
    mountUrl: () => view.mountUrl(),
    clientAddress: () => view.clientAddress(),
    readBody: (limit) => readFetchBody(request, limit),
    get traced() {
      return { scheme: url.protocol.slice(0, -1), fullPath: url.pathname, peerAddress: view.clientAddress() };
    },
  };
  // The signal is asked for only when the answer needs it (a stream, a send that waits): Hono on
  // Node makes one for each request that asks.
  const response = new FetchResponse(() => request.signal);
  return { request: edgeRequest, response, answer: response.answer };
}

/** The headers in Node's form: names in lower case (as `Headers` gives them), each value once. */
export function headersOf(source: Headers): Record<string, string> {
  const headers: Record<string, string> = {};
  source.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/** The body's bytes, decoded, at most `limit` of them. */
async function readFetchBody(request: Request, limit: number): Promise<{ bytes: Uint8Array }> {
  const coding = (request.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (coding !== 'identity' && coding !== 'gzip' && coding !== 'x-gzip' && coding !== 'deflate') throw new BodyUnreadable(true);
  const length = request.headers.get('content-length');
  if (coding === 'identity' && length !== null) {
    if (Number(length) > limit) throw new BodyTooLarge();
    // A body whose length is said and within the limit is read whole: no more than its length can
    // come (the server frames the request by it), and every runtime reads it faster this way than
    // through the stream (Hono on Node reads it from Node's request, where `body` would build a
    // Web stream and a whole Request first).
    try {
      return { bytes: new Uint8Array(await request.arrayBuffer()) };
    } catch {
      throw new BodyUnreadable(false);
    }
  }
  if (!request.body) return { bytes: new Uint8Array(0) };
  let body: ReadableStream<Uint8Array> = request.body;
  if (coding !== 'identity') {
    body = body.pipeThrough(new DecompressionStream(coding === 'deflate' ? 'deflate' : 'gzip'));
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) {
        void reader.cancel().catch(() => {});
        throw new BodyTooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof BodyTooLarge) throw error;
    throw new BodyUnreadable(false);
  }
  if (chunks.length === 1) return { bytes: chunks[0]! };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes };
}

const encoder = new TextEncoder();
/** Bytes a stream holds for a client before `write` says to wait: what Node's sockets hold, roughly. */
const STREAM_HIGH_WATER_BYTES = 64 * 1024;

/** The answer, as a `Response` made once the edge answers. */
class FetchResponse implements EdgeResponse {
  readonly headers = new Headers();
  readonly answer: Promise<Response>;
  #resolve!: (response: Response) => void;
  #headersSent = false;
  #status = 0;
  #ended = false;
  #finishListeners: ((status: number) => void)[] = [];
  #whenGone: Promise<void> | undefined;

  #signal: AbortSignal | undefined;

  constructor(private readonly signalOf: () => AbortSignal) {
    this.answer = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** The request's signal, aborted when its client leaves. */
  private get signal(): AbortSignal {
    this.#signal ??= this.signalOf();
    return this.#signal;
  }

  get headersSent(): boolean {
    return this.#headersSent;
  }

  get gone(): boolean {
    return this.signal.aborted && !this.#ended;
  }

  whenGone(): Promise<void> {
    // One listener for all who ask (a blocking send asks on each wait), as NodeResponse keeps one.
    this.#whenGone ??= new Promise((resolve) => {
      if (this.gone) return resolve();
      this.signal.addEventListener('abort', () => {
        // Some runtimes (Deno) also abort a request's signal once its answer is complete.
        if (!this.#ended) resolve();
      });
    });
    return this.#whenGone;
  }

  setHeader(name: string, value: string | readonly string[]): void {
    if (typeof value === 'string') this.headers.set(name, value);
    else {
      this.headers.delete(name);
      for (const one of value) this.headers.append(name, one);
    }
  }

  end(status: number, body?: string): void {
    if (this.#headersSent) return;
    this.send(new Response(status === 204 || status === 304 ? null : (body ?? null), { status, headers: this.headers }), status);
    this.finished();
  }

  stream(status: number, headers: Readonly<Record<string, string>>): ResponseStream {
    for (const [name, value] of Object.entries(headers)) this.headers.set(name, value);
    return new FetchResponseStream(this, status);
  }

  onFinish(listener: (status: number) => void): void {
    if (this.#ended) listener(this.#status);
    else this.#finishListeners.push(listener);
  }

  /** The `Response` goes to the runtime: its head is out. */
  send(response: Response, status: number): void {
    this.#headersSent = true;
    this.#status = status;
    this.#resolve(response);
  }

  /** The answer is over. */
  finished(): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const listener of this.#finishListeners.splice(0)) listener(this.#status);
  }
}

class FetchResponseStream implements ResponseStream {
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  readonly #body: ReadableStream<Uint8Array>;
  #open = true;
  #drainListeners: (() => void)[] = [];
  #closeListeners: ((ended: boolean) => void)[] = [];
  #closed: boolean | undefined;

  constructor(
    private readonly response: FetchResponse,
    private readonly status: number,
  ) {
    this.#body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        // The client took what was queued: a writer waiting for it may go on.
        pull: () => {
          for (const listener of this.#drainListeners.splice(0)) listener();
        },
        cancel: () => this.#close(false),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: STREAM_HIGH_WATER_BYTES }),
    );
  }

  get writable(): boolean {
    return this.#open && !this.response.gone;
  }

  flush(): void {
    if (!this.response.headersSent)
      this.response.send(new Response(this.#body, { status: this.status, headers: this.response.headers }), this.status);
  }

  write(text: string): boolean {
    this.flush();
    if (!this.#open) return false;
    this.#controller.enqueue(encoder.encode(text));
    return (this.#controller.desiredSize ?? 0) > 0;
  }

  onDrain(listener: () => void): void {
    this.#drainListeners.push(listener);
  }

  end(): void {
    this.flush();
    if (!this.#open) return;
    this.#open = false;
    this.#controller.close();
    this.#close(true);
  }

  destroy(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#controller.error(new Error('the stream was cut'));
    this.#close(false);
  }

  onClose(listener: (ended: boolean) => void): void {
    if (this.#closed !== undefined) listener(this.#closed);
    else this.#closeListeners.push(listener);
  }

  #close(ended: boolean): void {
    this.#open = false;
    if (this.#closed !== undefined) return;
    this.#closed = ended;
    this.response.finished();
    for (const listener of this.#closeListeners.splice(0)) listener(ended);
  }
}
