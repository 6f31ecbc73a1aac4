// Server-Sent Events written directly on the response. One SseStream per open stream.
import type { ServerResponse } from 'node:http';

export interface SseStreamOptions {
  /** Interval of `: keep-alive` comments that keep proxies from closing an idle stream. */
  heartbeatMs: number;
  /**
   * Most bytes queued while the client does not read. Past it the stream is cut: the client
   * can resubscribe with `Last-Event-ID` and miss nothing, and the task never waits on it.
   */
  maxQueuedBytes: number;
}

export type SseCloseReason = 'ended' | 'client-closed' | 'overflow';

/**
 * One timer per heartbeat interval for all open streams, rather than one per stream: with
 * thousands of idle streams, their timers and closures were a good part of each one's cost.
 */
const heartbeats = new Map<number, { timer: NodeJS.Timeout; streams: Set<SseStream> }>();

function startHeartbeat(stream: SseStream, intervalMs: number): void {
  let group = heartbeats.get(intervalMs);
  if (!group) {
    const streams = new Set<SseStream>();
    const timer = setInterval(() => streams.forEach((s) => s.beat()), intervalMs);
    timer.unref();
    heartbeats.set(intervalMs, (group = { timer, streams }));
  }
  group.streams.add(stream);
}

function stopHeartbeat(stream: SseStream, intervalMs: number): void {
  const group = heartbeats.get(intervalMs);
  if (!group) return;
  group.streams.delete(stream);
  if (group.streams.size === 0) {
    clearInterval(group.timer);
    heartbeats.delete(intervalMs);
  }
}

/**
 * Writes events while the socket accepts them and queues them while it does not (`write`
 * returned false), resuming on `drain`; memory stays bounded by `maxQueuedBytes`.
 */
export class SseStream {
  private queue: string[] = [];
  /** Index of the next frame to write: a head index, since shift() moves the whole queue. */
  private queueHead = 0;
  private queuedBytes = 0;
  private waitingForDrain = false;
  private endRequested = false;
  private closeListeners: ((reason: SseCloseReason) => void)[] = [];
  private closedWith: SseCloseReason | undefined;
  /** Events written or queued so far. */
  sent = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly options: SseStreamOptions,
  ) {}

  /** Sends the 200 and the event-stream headers. */
  open(): void {
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      // Tells nginx-style proxies not to buffer the stream.
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
    this.res.on('close', () => this.finish(this.res.writableFinished ? 'ended' : 'client-closed'));
    startHeartbeat(this, this.options.heartbeatMs);
  }

  /** Writes a keep-alive comment, unless the socket is full (then data is waiting anyway). */
  beat(): void {
    if (!this.waitingForDrain && !this.closed) this.res.write(': keep-alive\n\n');
  }

  get closed(): boolean {
    return this.closedWith !== undefined || this.endRequested;
  }

  /** Queues one event; `data` must be one line (JSON.stringify output is). */
  send(id: number | string, data: string): void {
    if (this.closed) return;
    this.sent++;
    this.write(`id: ${id}\ndata: ${data}\n\n`);
  }

  /** Ends the response once everything queued is written. */
  end(): void {
    if (this.closed) return;
    this.endRequested = true;
    if (!this.waitingForDrain) this.res.end();
  }

  /** Called once, when the response is over for any reason. */
  onClose(listener: (reason: SseCloseReason) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.push(listener);
  }

  private write(frame: string): void {
    if (this.waitingForDrain) {
      this.queue.push(frame);
      this.queuedBytes += frame.length;
      if (this.queuedBytes > this.options.maxQueuedBytes) this.overflow();
      return;
    }
    if (!this.res.write(frame)) {
      this.waitingForDrain = true;
      this.res.once('drain', () => this.flush());
    }
  }

  private flush(): void {
    this.waitingForDrain = false;
    while (this.queueHead < this.queue.length) {
      const frame = this.queue[this.queueHead++]!;
      this.queuedBytes -= frame.length;
      if (!this.res.write(frame)) {
        this.waitingForDrain = true;
        this.res.once('drain', () => this.flush());
        return;
      }
    }
    this.queue = [];
    this.queueHead = 0;
    if (this.endRequested) this.res.end();
  }

  private overflow(): void {
    this.finish('overflow');
    this.res.destroy();
  }

  private finish(reason: SseCloseReason): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    stopHeartbeat(this, this.options.heartbeatMs);
    this.queue = [];
    this.queueHead = 0;
    this.queuedBytes = 0;
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const listener of listeners) listener(reason);
  }
}
