// Writes one turn's events to the store in order without making the handler wait for each
// write. While a write is in flight, the events the handler produces meanwhile are gathered and
// go together in the next one (a group commit): a networked store then costs one round trip
// per batch of a fast stream instead of one per chunk. With the in-memory store a write lands
// at once, and batches stay small.
import type { TaskEvent } from 'a2a-types';

/**
 * Writes a batch of events; true while the turn goes on, false once it is over (its final
 * state is stored, or the turn is no longer the task's current one).
 */
export type WriteEvents = (events: readonly TaskEvent[]) => Promise<boolean>;

export class TurnWriter {
  private queued: TaskEvent[] = [];
  private writing: Promise<void> | undefined;
  /** The write in flight now, for callers waiting for room in the queue. */
  private batch: Promise<unknown> | undefined;
  private overFlag = false;
  private failureHolder: { error: unknown } | undefined;

  constructor(private readonly write: WriteEvents) {}

  /** True once the turn is over or a write failed: later events are dropped. */
  get over(): boolean {
    return this.overFlag;
  }

  /** What a write threw, if one did (nothing after it was written). */
  get failure(): { error: unknown } | undefined {
    return this.failureHolder;
  }

  /** Events waiting for the write in flight to land. */
  get backlog(): number {
    return this.queued.length;
  }

  /** Queues an event; it is written with the next batch, after every event added before it. */
  add(event: TaskEvent): void {
    if (this.overFlag) return;
    this.queued.push(event);
    this.writing ??= this.writeQueued();
  }

  /**
   * Settles once the write in flight now has landed, and the queue has gone to the next one: the
   * queue has room again while that write is in flight. Never rejects.
   */
  async batchWritten(): Promise<void> {
    await this.batch?.catch(() => undefined);
  }

  /** Settles once every event added so far is written, or the turn is over. Never rejects. */
  async settled(): Promise<void> {
    for (let writing = this.writing; writing !== undefined; writing = this.writing) await writing;
  }

  private async writeQueued(): Promise<void> {
    try {
      while (this.queued.length > 0 && !this.overFlag) {
        const batch = this.queued;
        this.queued = [];
        const written = this.write(batch);
        this.batch = written;
        if (!(await written)) this.overFlag = true;
      }
    } catch (error) {
      this.failureHolder = { error };
      this.overFlag = true;
    } finally {
      if (this.overFlag) this.queued = [];
      this.writing = undefined;
      this.batch = undefined;
    }
  }
}
