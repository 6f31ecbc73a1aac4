// Server-Sent Events written on the exchange's response, whatever server carries it. One SseStream per open stream.
import type { CallHeaders } from '../core/call.js';
import type { EdgeResponse, ResponseStream } from '../edge/exchange.js';
import { endOfTick, nextTurn, utf8Length } from '../edge/runtime.js';

interface SseStreamOptions {
  /** Interval of `: keep-alive` comments that keep proxies from closing an idle stream. */
  heartbeatMs: number;
  /**
   * Most bytes held for a client that does not read. Past it the stream is cut: the client
   * can resubscribe with `Last-Event-ID` and miss nothing, and the task never waits on it.
   * See {@link SseStream} for what counts, and when.
   */
  maxQueuedBytes: number;
  /**
   * Whether each event carries its `id:` (see {@link SseStream}). Off, the stream is made of
   * bare `data:` blocks, the one form every client we know of reads.
   */
  eventIds: boolean;
}

export type SseCloseReason = 'ended' | 'client-closed' | 'overflow';

/** The RFC 7240 preference (`Prefer: sse-event-ids`) by which a client asks for event ids. */
export const EVENT_IDS_PREFERENCE = 'sse-event-ids';

/** Which streams carry event ids: those whose client asks for them, or every one. */
export type StreamEventIds = 'when-asked' | 'always';

/**
 * Whether a stream's events carry ids, and whether that answers the client's `Prefer` (then the
 * response says `Preference-Applied`). A request with `Last-Event-ID` is resuming by id, so it
 * gets ids whether or not it said so.
 */
export function eventIdsFor(req: { readonly headers: CallHeaders }, setting: StreamEventIds): { eventIds: boolean; preferred: boolean } {
  const preferred = prefers(req.headers.prefer, EVENT_IDS_PREFERENCE);
  const resuming = req.headers['last-event-id'] !== undefined;
  return { eventIds: setting === 'always' || preferred || resuming, preferred };
}

/** RFC 7240: `Prefer` holds comma-separated preferences, each a token with optional `=value` and `;params`. */
function prefers(header: string | readonly string[] | undefined, token: string): boolean {
  if (header === undefined) return false;
  const list = typeof header === 'string' ? header : header.join(',');
  return list.split(',').some((preference) => preference.split(/[=;]/, 1)[0]!.trim().toLowerCase() === token);
}

/** What a heartbeat calls, once an interval: an SSE stream, or a gRPC stream whose reader is behind. */
export interface Beating {
  beat(): void;
}

/**
 * One timer per heartbeat interval for all open streams, rather than one per stream: with
 * thousands of idle streams, their timers and closures were a good part of each one's cost.
 */
const heartbeats = new Map<number, { timer: ReturnType<typeof setInterval>; streams: Set<Beating> }>();

export function startHeartbeat(stream: Beating, intervalMs: number): void {
  let group = heartbeats.get(intervalMs);
  if (!group) {
    const streams = new Set<Beating>();
    const timer = setInterval(() => {
      for (const stream of streams) stream.beat();
    }, intervalMs);
    // Not on every runtime (Deno's and the Web's timers are numbers): where there is one, the
    // heartbeats alone do not keep the process alive.
    (timer as { unref?: () => void }).unref?.();
    heartbeats.set(intervalMs, (group = { timer, streams }));
  }
  group.streams.add(stream);
}

export function stopHeartbeat(stream: Beating, intervalMs: number): void {
  const group = heartbeats.get(intervalMs);
  if (!group) return;
  group.streams.delete(stream);
  if (group.streams.size === 0) {
    clearInterval(group.timer);
    heartbeats.delete(intervalMs);
  }
}

/** Unwritten frames past this size are written at once rather than at the end of the tick. */
const WRITE_AT_BYTES = 64 * 1024;

/**
 * Writes events as the socket accepts them, bounded by `maxQueuedBytes`.
 *
 * The wire form is chosen for the clients that read it (README, "SSE on the wire"):
 * - without event ids, each event is one block `data: <json>` and a heartbeat is a comment block
 *   `: keep-alive` followed by a blank line. The reference JS client keeps only blocks that begin
 *   with `data: ` and parses the rest of the block as JSON, so an `id:` line may not share the
 *   block, and an `id:`-only block is what the reference Python client (httpx-sse) turns into an
 *   event with empty data that it cannot parse. So no `id:` at all.
 * - with event ids, each event is one block `id: <n>` + `data: <json>`: every standard parser
 *   (EventSource, eventsource-parser, httpx-sse) then knows the id of exactly the events it got,
 *   with no window between an event and its id. A heartbeat is a comment line with no blank line
 *   after it, so parsers that dispatch on every blank line once they have seen an id (httpx-sse)
 *   get no empty event from it; the comment simply joins the next event's block.
 *
 * Frames sent during one tick are joined and written once, at the end of the tick (or as soon
 * as they reach 64 KiB): a stream's events often come in bursts (a handler yielding chunks in
 * a loop), and each `res.write` costs far more than joining strings. While the socket is full
 * (`write` returned false), frames wait until `drain`.
 *
 * What a client that does not read costs is bounded by `maxQueuedBytes`, two ways. Frames queued
 * behind the full socket are counted as they come, and the stream is cut as soon as they pass the
 * bound. And the write that filled the socket counts too (a subscription's first event is the
 * whole task, which may alone be larger than the bound): a stream still waiting for `drain` at
 * two heartbeats in a row, holding more than the bound with it, is cut then. A client that reads
 * takes even a task larger than the bound, as long as it catches up within a heartbeat interval.
 */
export class SseStream {
  /** Frames not yet handed to the socket, oldest first. */
  private unwritten = '';
  /** UTF-8 bytes of `unwritten` while the socket is full: what `maxQueuedBytes` bounds. */
  private queuedBytes = 0;
  /** The frames of the write that filled the socket, while it is full; their bytes counted when a heartbeat asks. */
  private stalledFrames = '';
  /** Heartbeats seen while waiting for this `drain`. */
  private beatsBehind = 0;
  private writeScheduled = false;
  private headersWritten = false;
  /** The answer, once `open` has begun it: its head goes with the first frames (headers set meanwhile join it). */
  private out: ResponseStream | undefined;
  private waitingForDrain = false;
  private endRequested = false;
  private closeListeners: ((reason: SseCloseReason) => void)[] = [];
  private closedWith: SseCloseReason | undefined;
  /** Events written or queued so far. */
  sent = 0;

  constructor(
    private readonly res: EdgeResponse,
    private readonly options: SseStreamOptions,
  ) {}

  /** Sends the 200 and the event-stream headers, with `extraHeaders` (e.g. `Preference-Applied`). */
  open(extraHeaders: Record<string, string> = {}): void {
    // The client may have left while the stream was being prepared (a store round trip, an
    // ownership check, a DNS lookup): its 'close' has fired already and will not fire again, so
    // the stream ends here, or it would stay among the heartbeats forever with its feed.
    if (this.res.gone) {
      this.finish('client-closed');
      return;
    }
    const out = this.res.stream(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      // Tells nginx-style proxies not to buffer the stream.
      'X-Accel-Buffering': 'no',
      ...extraHeaders,
    });
    this.out = out;
    out.onClose((ended) => this.finish(ended ? 'ended' : 'client-closed'));
    startHeartbeat(this, this.options.heartbeatMs);
    // The headers wait for the first events until the event loop turns (setImmediate: after
    // every callback and promise of this turn), and go out with them in one write; on their own
    // when there are none yet (a quiet task's resubscription, a handler awaiting its model).
    // Until then a header may still join them (the extensions a handler activated at its start).
    // A turn's first updates usually come a tick or two after the stream opens, and each write
    // to a socket is a system call that wakes the client: one write fewer a stream.
    this.writeScheduled = true;
    nextTurn(() => {
      this.writeScheduled = false;
      this.writeUnwritten();
    });
  }

  /**
   * Writes a keep-alive comment, unless events are waiting (then they will be written anyway).
   * Waiting for `drain` since the heartbeat before, the stream is cut if it holds more than its
   * bound, the write that filled the socket included.
   */
  beat(): void {
    if (this.waitingForDrain) {
      if (++this.beatsBehind >= 2 && utf8Length(this.stalledFrames) + this.queuedBytes > this.options.maxQueuedBytes) {
        this.overflow();
      }
      return;
    }
    if (!this.closed && this.unwritten === '' && this.writable()) {
      this.out!.write(this.options.eventIds ? ': keep-alive\n' : ': keep-alive\n\n');
    }
  }

  get closed(): boolean {
    return this.closedWith !== undefined || this.endRequested;
  }

  /** Queues one event; `data` must be one line (JSON.stringify output is). `type` names its SSE event type. */
  send(id: number | string, data: string, type?: string): void {
    if (this.closed) return;
    this.sent++;
    const named = type === undefined ? '' : `event: ${type}\n`;
    const frame = this.options.eventIds ? `${named}id: ${id}\ndata: ${data}\n\n` : `${named}data: ${data}\n\n`;
    this.unwritten += frame;
    if (this.waitingForDrain) {
      // Counted in bytes, as the option says (a frame of non-ASCII text is up to three times
      // its length), and only while the socket is full: the only time the bound applies.
      this.queuedBytes += utf8Length(frame);
      if (this.queuedBytes > this.options.maxQueuedBytes) this.overflow();
    } else if (this.unwritten.length >= WRITE_AT_BYTES) {
      this.writeUnwritten();
    } else if (!this.writeScheduled) {
      this.scheduleWrite();
    }
  }

  /**
   * Queues an SSE `retry:` field (reconnect after this many ms), when the stream carries event ids
   * (a client that cannot resume by id has no use for it): a line with no blank line after it,
   * which every parser we know of reads as the field and, at the end of the stream, dispatches no
   * event for (a block of its own would be an empty event to httpx-sse). For the stream's end.
   */
  reconnectHint(retryMs: number): void {
    if (this.closed || !this.options.eventIds) return;
    this.unwritten += `retry: ${retryMs}\n`;
    if (!this.writeScheduled && !this.waitingForDrain) this.scheduleWrite();
  }

  /** Ends the response once everything queued is written. */
  end(): void {
    if (this.closed) return;
    this.endRequested = true;
    if (!this.writeScheduled && !this.waitingForDrain) this.writeUnwritten();
  }

  /** Called once, when the response is over for any reason. */
  onClose(listener: (reason: SseCloseReason) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  /** Writes at the end of this tick; until then `writeScheduled` says one is coming. */
  private scheduleWrite(): void {
    this.writeScheduled = true;
    endOfTick(() => {
      this.writeScheduled = false;
      this.writeUnwritten();
    });
  }

  /** Hands the unwritten frames to the socket, then ends the response if that was asked for. */
  private writeUnwritten(): void {
    if (this.closedWith !== undefined || this.waitingForDrain) return;
    if (!this.writable()) {
      this.finish('client-closed');
      return;
    }
    const out = this.out!;
    const frames = this.unwritten;
    this.unwritten = '';
    const headersWritten = this.headersWritten;
    this.headersWritten = true;
    if (frames === '') {
      if (!headersWritten) out.flush();
    } else if (!out.write(frames)) {
      this.waitingForDrain = true;
      this.queuedBytes = 0;
      this.stalledFrames = frames;
      this.beatsBehind = 0;
      out.onDrain(() => {
        this.waitingForDrain = false;
        this.stalledFrames = '';
        this.writeUnwritten();
      });
      return;
    }
    if (this.endRequested) out.end();
  }

  /**
   * Whether the response still takes writes. It may have ended without this stream knowing yet
   * (its 'close' comes a tick later), and a write after the end is an error event on the response.
   */
  private writable(): boolean {
    return this.out?.writable === true;
  }

  private overflow(): void {
    this.finish('overflow');
    // Cut on the next turn of the event loop: what was already handed to the socket (the
    // headers and the first events, when the queue filled within one tick) goes out first, so
    // the client sees a stream that stopped, not a request that failed, and resubscribes.
    nextTurn(() => this.out?.destroy());
  }

  private finish(reason: SseCloseReason): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    stopHeartbeat(this, this.options.heartbeatMs);
    this.unwritten = '';
    this.stalledFrames = '';
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const listener of listeners) listener(reason);
  }
}
