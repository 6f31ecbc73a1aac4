// The inspector's raw log: a fetch that hands on every request, its response and each event of a
// stream exactly as they crossed the wire, while the client that made the request reads them as
// usual. Bodies are recorded as text: what the clients send and the agents answer is JSON or SSE.
// gRPC calls are recorded in the same entries (marked `grpc`): their messages in their JSON form
// (protobuf on the wire), a unary call's status as its response, a stream's messages as events.
import { watchedText } from '../bounded-body.js';
import type { GrpcCallObserver, GrpcCallStart } from '../grpc.js';

/** One line of the raw log. `exchange` ties a request to its response and events. */
export type RawEntry =
  | {
      type: 'request';
      exchange: number;
      time: string;
      method: string;
      url: string;
      headers: Record<string, string>;
      body?: string;
      /** A gRPC call: `method` is `gRPC`, `url` the address and the method's path. */
      grpc?: true;
      /** A gRPC call over TLS. */
      tls?: true;
    }
  | {
      type: 'response';
      exchange: number;
      time: string;
      status: number;
      statusText: string;
      headers: Record<string, string>;
      /** The whole body; absent for a stream, whose events follow one by one. */
      body?: string;
      stream?: true;
      /** A gRPC call's end: `status` is its status code (0 is OK), `headers` its trailers. */
      grpc?: true;
    }
  | { type: 'event'; exchange: number; time: string; text: string }
  | { type: 'end'; exchange: number; time: string }
  | { type: 'failure'; exchange: number; time: string; message: string };

let exchanges = 0;

/** Statuses whose responses have no body (a Response made with one throws). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** An SSE event ends at a blank line, whichever line ending the server uses. */
const EVENT_END = /\r\n\r\n|\n\n|\r\r/;

export function recordingFetch(record: (entry: RawEntry) => void, inner: typeof fetch = (input, init) => fetch(input, init)): typeof fetch {
  return async (input, init = {}) => {
    const exchange = ++exchanges;
    const url = input instanceof Request ? input.url : String(input);
    const method = init.method ?? (input instanceof Request ? input.method : 'GET');
    const request: RawEntry = {
      type: 'request',
      exchange,
      time: now(),
      method,
      url,
      headers: Object.fromEntries(new Headers(init.headers)),
    };
    if (typeof init.body === 'string') request.body = init.body;
    record(request);
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (error) {
      record({ type: 'failure', exchange, time: now(), message: describe(error) });
      throw error;
    }
    const head = {
      type: 'response' as const,
      exchange,
      time: now(),
      status: response.status,
      statusText: response.statusText,
      headers: Object.fromEntries(response.headers),
    };
    const streamed = (response.headers.get('content-type') ?? '').startsWith('text/event-stream') && response.body !== null;
    if (!streamed) {
      if (NO_BODY.has(response.status) || !response.body) {
        record({ ...head, body: '' });
        return copyOf(response, null);
      }
      // Recorded as its reader reads it: a reader that stops at its bound (the checker's) is not
      // made to read the rest here.
      return watchedText(response, (body, cut) => {
        record({ ...head, body });
        if (cut !== undefined) record({ type: 'failure', exchange, time: now(), message: cut });
      });
    }
    record({ ...head, stream: true });
    const decoder = new TextDecoder();
    let pending = '';
    const flushEvents = (last: boolean) => {
      const blocks = pending.split(EVENT_END);
      pending = last ? '' : (blocks.pop() ?? '');
      for (const text of blocks) if (text.trim() !== '') record({ type: 'event', exchange, time: now(), text });
    };
    const tap = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        controller.enqueue(chunk);
        pending += decoder.decode(chunk, { stream: true });
        flushEvents(false);
      },
      flush() {
        pending += decoder.decode();
        flushEvents(true);
        record({ type: 'end', exchange, time: now() });
      },
    });
    return copyOf(response, response.body!.pipeThrough(tap));
  };
}

/**
 * What a gRPC client tells of its calls (`GrpcHooks.observe`), as entries of the raw log: the
 * request; a unary call's answer or error with its status; a stream's messages one by one, then
 * its end, or the status it failed with.
 */
export function recordingGrpc(record: (entry: RawEntry) => void): (call: GrpcCallStart) => GrpcCallObserver {
  return (call) => {
    const exchange = ++exchanges;
    record({
      type: 'request',
      exchange,
      time: now(),
      method: 'gRPC',
      url: `${call.address}${call.path}`,
      headers: call.metadata,
      body: JSON.stringify(call.request),
      grpc: true,
      ...(call.tls ? { tls: true as const } : {}),
    });
    let answer: string | undefined;
    return {
      message(value) {
        if (call.streaming) record({ type: 'event', exchange, time: now(), text: JSON.stringify(value) });
        else answer = JSON.stringify(value);
      },
      end({ code, name, details, metadata }) {
        if (call.streaming) {
          if (code === 0) record({ type: 'end', exchange, time: now() });
          else record({ type: 'failure', exchange, time: now(), message: `gRPC ${name}: ${details}` });
          return;
        }
        const body = answer ?? details;
        record({ type: 'response', exchange, time: now(), status: code, statusText: name, headers: metadata, body, grpc: true });
      },
    };
  };
}

/** The response with another body; its URL kept, which the clients name in their errors. */
function copyOf(response: Response, body: string | ReadableStream<Uint8Array> | null): Response {
  const copy = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

function now(): string {
  return new Date().toISOString();
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
