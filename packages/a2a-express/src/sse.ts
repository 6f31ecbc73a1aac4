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
 * Writes events while the socket accepts them and queues them while it does not (`write`
 * returned false), resuming on `drain`; memory stays bounded by `maxQueuedBytes`.
 */
export class SseStream {
  private readonly queue: string[] = [];
  private queuedBytes = 0;
  private waitingForDrain = false;
  private endRequested = false;
  private heartbeat: NodeJS.Timeout | undefined;
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
    this.heartbeat = setInterval(() => {
      if (!this.waitingForDrain) this.res.write(': keep-alive\n\n');
    }, this.options.heartbeatMs);
    this.heartbeat.unref();
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
    while (this.queue.length > 0) {
      const frame = this.queue.shift()!;
      this.queuedBytes -= frame.length;
      if (!this.res.write(frame)) {
        this.waitingForDrain = true;
        this.res.once('drain', () => this.flush());
        return;
      }
    }
    if (this.endRequested) this.res.end();
  }

  private overflow(): void {
    this.finish('overflow');
    this.res.destroy();
  }

  private finish(reason: SseCloseReason): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    clearInterval(this.heartbeat);
    this.queue.length = 0;
    this.queuedBytes = 0;
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const listener of listeners) listener(reason);
  }
}
