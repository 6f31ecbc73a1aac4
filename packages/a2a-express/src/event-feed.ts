import type { StoredEvent, TaskStore } from './task-store.js';

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

  private constructor() {}

  static async open(store: TaskStore, taskId: string): Promise<EventFeed> {
    const feed = new EventFeed();
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
  }

  close(): void {
    this.closed = true;
    this.buffer = [];
    this.unsubscribe?.();
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
  }
}
