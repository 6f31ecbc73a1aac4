import type { StoredEvent } from '../model/record.js';
import type { TaskStore } from '../store/task-store.js';
import { isFinalEvent } from './task-events.js';

/**
 * The events one stream sends: some to start with (a replay or a snapshot), then the task's
 * live events. It subscribes before the caller reads the task, and buffers until started, so
 * nothing that happens in between is lost; events whose id was already covered are dropped, so
 * nothing is sent twice.
 */
export class EventFeed {
  private buffer: StoredEvent[] = [];
  private deliver: ((event: StoredEvent) => void) | undefined;
  private coveredThrough = 0;
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  /** What {@link endForReconnect} calls: the stream's own ending, once it has started. */
  private reconnectEnding: (() => void) | undefined;
  /** {@link endForReconnect} was called before the stream started. */
  private endsForReconnect = false;
  /** Set by {@link endForReconnectAfter}: the event after which the stream ends, and the bound on the wait for it. */
  private endAfter: { readonly eventId: number; readonly timer: ReturnType<typeof setTimeout>; readonly done: () => void } | undefined;

  private constructor(
    readonly taskId: string,
    private readonly onClose: (() => void) | undefined,
  ) {}

  /** A feed of the task's events; `onClose` is called once, when it closes. */
  static async open(store: TaskStore, taskId: string, onClose?: () => void): Promise<EventFeed> {
    const feed = new EventFeed(taskId, onClose);
    feed.unsubscribe = await store.subscribe(taskId, (event) => feed.receive(event));
    return feed;
  }

  /**
   * Sends `initial` events, then live ones with an id above `coveredThrough` (the newest event
   * the initial ones stand for), in order.
   */
  start(initial: readonly StoredEvent[], coveredThrough: number, deliver: (event: StoredEvent) => void): void {
    this.deliver = deliver;
    for (const event of initial) {
      if (this.closed) return;
      deliver(event);
    }
    this.coveredThrough = coveredThrough;
    const buffered = this.buffer;
    this.buffer = [];
    for (const event of buffered) this.forward(event);
    if (this.endAfter && this.coveredThrough >= this.endAfter.eventId) this.endForReconnect();
  }

  /** Called by {@link endForReconnect}; at once when it was called before. */
  onEndForReconnect(ending: () => void): void {
    this.reconnectEnding = ending;
    if (this.endsForReconnect && !this.closed) ending();
  }

  /**
   * Ends the stream this feed serves without its final event, after the events delivered so far,
   * telling its client to resubscribe (a draining replica handed the task's turn over, and
   * another goes on with it). Each transport says so in its own way (event-stream.ts, grpc.ts).
   */
  endForReconnect(): void {
    const waiting = this.endAfter;
    if (waiting) {
      this.endAfter = undefined;
      clearTimeout(waiting.timer);
      waiting.done();
    }
    if (this.closed) return;
    if (this.reconnectEnding) this.reconnectEnding();
    else this.endsForReconnect = true;
  }

  /**
   * {@link endForReconnect} once the stream has been given the event `eventId` (a hand-over's,
   * which may reach this process's feeds a notice later than its write), or after `maxWaitMs`
   * at the latest; at once without an id. Resolves once it has ended, or the feed closed.
   */
  endForReconnectAfter(eventId: number | undefined, maxWaitMs: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (eventId === undefined || (this.deliver && this.coveredThrough >= eventId)) {
      this.endForReconnect();
      return Promise.resolve();
    }
    return new Promise((done) => {
      const timer = setTimeout(() => this.endForReconnect(), maxWaitMs);
      this.endAfter = { eventId, timer, done };
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.endAfter) {
      clearTimeout(this.endAfter.timer);
      this.endAfter.done();
      this.endAfter = undefined;
    }
    this.buffer = [];
    this.unsubscribe?.();
    this.onClose?.();
  }

  private receive(event: StoredEvent): void {
    if (this.closed) return;
    if (this.deliver) this.forward(event);
    else this.buffer.push(event);
  }

  private forward(event: StoredEvent): void {
    if (this.closed || event.id <= this.coveredThrough) return;
    this.coveredThrough = event.id;
    this.deliver!(event);
    if (this.endAfter && event.id >= this.endAfter.eventId) this.endForReconnect();
  }
}

/**
 * What a stream's `render` returns to send several things for one event, in order, each under its
 * own event id: how 0.3 sends the Task it held back (under the id of the events it stands for)
 * together with the event that followed.
 */
export class SeveralEvents {
  constructor(readonly values: readonly { readonly eventId: number; readonly value: unknown }[]) {}
}

/**
 * How a stream ended before its final event: an event it could not send (`error`), or a draining
 * replica ended it for its client to resubscribe to another (`reconnect`).
 */
export type StreamEnd =
  | { readonly error: unknown; readonly reconnect?: undefined }
  | { readonly reconnect: true; readonly error?: undefined };

/**
 * The events one streaming call answers with: its initial events, then the task's live ones,
 * until the final event. What the transport-free dispatch hands to a transport: the HTTP adapter
 * writes it as SSE with `start`; other callers may iterate it.
 */
export class TaskEventStream implements AsyncIterable<StoredEvent> {
  private started = false;

  /**
   * @param render what a transport sends for one event: the event in the version of the call
   *   ({@link SeveralEvents} for more than one thing).
   */
  constructor(
    private readonly feed: EventFeed,
    private readonly initial: readonly StoredEvent[],
    private readonly coveredThrough: number,
    readonly render: (stored: StoredEvent) => unknown,
  ) {}

  /** The same stream, not yet started, with each event sent as `render` makes it. */
  renderedAs(render: (stored: StoredEvent) => unknown): TaskEventStream {
    if (this.started) throw new Error('an event stream is rendered before it starts');
    return new TaskEventStream(this.feed, this.initial, this.coveredThrough, render);
  }

  /**
   * Calls `onEvent` with each event in order; after the final one, closes the stream and calls
   * `onEnd`. Should `onEvent` throw, the stream is closed and `onEnd` gets what it threw: the
   * error stays with this stream, never reaching the store that delivered the event (and the
   * other streams of the task). Ended for its client to resubscribe elsewhere
   * ({@link EventFeed.endForReconnect}), `onEnd` gets `{ reconnect: true }`. Nothing more is
   * called once the stream is closed.
   */
  start(onEvent: (event: StoredEvent) => void, onEnd: (end?: StreamEnd) => void): void {
    if (this.started) throw new Error('an event stream can be started once');
    this.started = true;
    let ended = false;
    this.feed.start(this.initial, this.coveredThrough, (event) => {
      if (ended) return;
      try {
        onEvent(event);
      } catch (error) {
        ended = true;
        this.close();
        onEnd({ error });
        return;
      }
      if (isFinalEvent(event.event)) {
        ended = true;
        this.close();
        onEnd();
      }
    });
    // After the events it starts with: a stream ended before it started still sends those.
    this.feed.onEndForReconnect(() => {
      if (ended) return;
      ended = true;
      this.close();
      onEnd({ reconnect: true });
    });
  }

  /** Stops the stream (the client went away, or a notification needs no answer). */
  close(): void {
    this.feed.close();
  }

  /** The stored events (the kit's model, before `render`) as an async iterator; `return()` (a `break`) closes the stream. */
  [Symbol.asyncIterator](): AsyncIterator<StoredEvent> {
    const queue: StoredEvent[] = [];
    let ended = false;
    let wake: (() => void) | undefined;
    this.start(
      (event) => {
        queue.push(event);
        wake?.();
      },
      () => {
        ended = true;
        wake?.();
      },
    );
    return {
      next: async () => {
        while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        const value = queue.shift();
        return value ? { value, done: false } : { value: undefined, done: true };
      },
      return: async () => {
        ended = true;
        this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
