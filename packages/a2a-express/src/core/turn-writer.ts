// Writes one turn's events to the store in order without making the handler wait for each
// write. Events go in batches (a group commit): the first write of a batch waits until the
// handler has run as far as it can without I/O, so the updates it yields back to back are written
// together, and while a write is in flight the events produced meanwhile go in the next one. A
// networked store then costs one round trip per batch of a fast stream instead of one per chunk,
// and the in-memory store one commit (its copies, its size count, its listeners) per batch.
import type { JsonValue } from '../model/plain-json.js';
import type { TaskEvent } from '../model/task.js';

/** A checkpoint a handler gave with an update (boxed: null is a checkpoint too). */
export interface GivenCheckpoint {
  readonly value: JsonValue;
}

/**
 * Writes a batch of events; true while the turn goes on, false once it is over (its final
 * state is stored, or the turn is no longer the task's current one). `checkpoints`, when any
 * event came with one: the checkpoint given with the event at the same index, to be written
 * with it (the batch's last one with the batch).
 */
type WriteEvents = (events: readonly TaskEvent[], checkpoints: readonly (GivenCheckpoint | undefined)[] | undefined) => Promise<boolean>;

export class TurnWriter {
  private queued: TaskEvent[] = [];
  /** The checkpoints of `queued`, by index; made only when one comes. */
  private queuedCheckpoints: (GivenCheckpoint | undefined)[] | undefined;
  /** The write in flight now (it never rejects: a failure is kept in `failure`). */
  private writing: Promise<void> | undefined;
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
  add(event: TaskEvent, checkpoint?: GivenCheckpoint): void {
    if (this.overFlag) return;
    if (checkpoint !== undefined) (this.queuedCheckpoints ??= [])[this.queued.length] = checkpoint;
    this.queued.push(event);
    if (this.writing === undefined) this.writing = afterMicrotasks().then(() => this.writeQueued());
  }

  /**
   * Settles once the write in flight now has landed, and the queue has gone to the next one: the
   * queue has room again while that write is in flight. Never rejects.
   */
  async batchWritten(): Promise<void> {
    await this.writing;
  }

  /** Settles once every event added so far is written, or the turn is over. Never rejects. */
  async settled(): Promise<void> {
    for (let writing = this.writing; writing !== undefined; writing = this.writing) await writing;
  }

  /**
   * Writes what is queued, then (once that landed) what was queued meanwhile. A chain of
   * callbacks rather than an async loop: each promise less per batch shows in the streaming bench.
   */
  private writeQueued(): Promise<void> {
    const batch = this.queued;
    const checkpoints = this.queuedCheckpoints;
    this.queued = [];
    this.queuedCheckpoints = undefined;
    if (batch.length === 0) {
      this.writing = undefined;
      return Promise.resolve();
    }
    return this.write(batch, checkpoints).then(
      (open) => {
        if (!open) this.end();
        this.writing = this.queued.length > 0 ? this.writeQueued() : undefined;
      },
      (error: unknown) => {
        this.failureHolder = { error };
        this.end();
        this.writing = undefined;
      },
    );
  }

  private end(): void {
    this.overFlag = true;
    this.queued = [];
    this.queuedCheckpoints = undefined;
  }
}

const nextTickOf = (globalThis as { process?: { nextTick?: (callback: () => void) => void } }).process?.nextTick;

/**
 * Settles once the microtask queue has drained. A handler that yields without waiting on I/O
 * steps through microtasks only (an async generator resumes in one), and `process.nextTick`
 * runs its callback after the queue is empty: by then every update it could yield is queued.
 * Where there is no `process` (a Worker, a browser), a timer runs after it too, a little later.
 */
const afterMicrotasks: () => Promise<void> = nextTickOf
  ? () => new Promise((resolve) => nextTickOf(resolve))
  : () => new Promise((resolve) => setTimeout(resolve, 0));
