// What the stores that replicas share (Redis, PostgreSQL) do alike, written once. Each backend
// supplies its primitives (read a task with its revision, write a change if the task is still at
// a revision, read a task's events after an id) and says what it hears (notices of new events);
// this does the rest:
// - a change is computed in this process from the record it last saw, and written only if the task
//   is still at that revision (compare-and-set); otherwise the task is read again and the change
//   computed again. So any number of processes may change one task, its events numbered without
//   gaps, and nothing is locked across round trips. One process's changes of a task go one at a
//   time, so only other processes' writes make an attempt start again;
// - the record this process wrote last of each running task is kept, so that its next change
//   reads nothing: a stream's chunks cost one write each, whatever the task's length;
// - each task's subscribers in this process are told every event once, in order: the events this
//   process wrote at once, the others when a notice of them arrives, and what a notice lost or
//   late leaves out read from the task's log.
import { A2AError } from 'a2a-types/model';
import { settleChange } from '../model/fold.js';
import type { EventListener, StoredEvent, TaskChange, TaskHead, TaskRecord, TaskUpdateOptions, TaskUpdateResult } from '../model/record.js';
import { isFinalState } from '../model/task.js';
import { mergeGrowingArtifact } from './growing-artifacts.js';
import { planWrite, type LayoutWrite } from './task-layout.js';
import { isHandedOver, OneAtATimePerTask, QUEUED_HOLDER, turnEndedBy } from './task-store.js';

/** A task at one revision, as a process read or wrote it. */
export interface TaskRevision {
  /** 0 for a task that does not exist. */
  readonly rev: number;
  readonly record: TaskRecord | undefined;
  /** False for a record an older release stored whole (one JSON value): its next change lays it out. */
  readonly laidOut: boolean;
}

/** One change of a task, as a backend writes it. */
export interface ChangeWrite {
  /** The task as the change found it: the change is written only while the task is still at its revision (still absent, for revision 0). */
  readonly known: TaskRevision;
  /** The record after the change, and its events, numbered. */
  readonly record: TaskRecord;
  readonly events: readonly StoredEvent[];
  /** What the change appends to the task's history and parts, or that it rewrites them. */
  readonly layout: LayoutWrite;
  /** The change ends the turn: the task holds no lease any more, and is kept for the store's retention. */
  readonly final: boolean;
  /**
   * The change hands the running turn over (a draining replica let it go): its lease is written
   * expired, so that the next claim of expired leases takes it at once.
   */
  readonly handedOver: boolean;
  /** The notice of a turn ended from outside its handler (see `turnEndedBy`), as JSON, for the backend to announce; undefined for none. */
  readonly turnEnded: string | undefined;
  /**
   * The record's holder is {@link QUEUED_HOLDER}: its turn waits for a worker, and holds no lease
   * (it is not running anywhere, so it cannot be abandoned).
   */
  readonly queued: boolean;
  /** The turn (and attempt) to add to the store's turn queue with this write: its record has just become queued. */
  readonly enqueue: { readonly turn: number; readonly attempt: number } | undefined;
}

/** What a backend does for {@link RevisionWriter}. */
export interface RevisionedTasks {
  /**
   * The task as stored now, with its revision; revision 0 and no record when there is none. Read
   * for a change: a backend that can read the task's head apart may refuse the change from it
   * with `checkHead` (see {@link TaskUpdateOptions}) before it reads the rest, by letting what
   * `checkHead` throws through.
   */
  read(taskId: string, checkHead?: (head: TaskHead) => void): Promise<TaskRevision>;
  /**
   * Writes the change, with everything beside it (its events, lease and notices) in one atomic
   * step, if the task is still at `write.known.rev`. The new revision, or undefined when another
   * writer got there first and nothing was written.
   */
  compareAndSet(taskId: string, write: ChangeWrite): Promise<number | undefined>;
}

export interface RevisionWriterOptions {
  /**
   * Takes a task this process has no record of for a new one, and writes the change without a read
   * first: most such changes start a task (a send), and for one that exists the compare-and-set
   * writes nothing, and the task is read. Otherwise the task is read before its first change here.
   */
  readonly createsWithoutRead: boolean;
  /** Told of each change written, with its numbered events (for this process's subscribers). */
  readonly written: (taskId: string, events: readonly StoredEvent[]) => void;
}

/**
 * Most compare-and-set rounds for one change before giving up. Each lost round is another
 * process's change landing, so this bounds how long a busy writer elsewhere can delay this one.
 */
const MAX_ATTEMPTS = 200;

/** Most records of running tasks a process keeps, as it wrote them, for their next change. */
const MAX_KEPT_RECORDS = 10_000;

/** What a change takes a task it has no record of for, when it writes without a read (see `createsWithoutRead`). */
const TAKEN_FOR_NEW: TaskRevision = { rev: 0, record: undefined, laidOut: false };

/**
 * Changes tasks by compare-and-set, retrying with the task read again when another process
 * changed it meanwhile; keeps what it wrote of each running task for its next change.
 */
export class RevisionWriter {
  /** What this process wrote last of each running task, and the revision it wrote. */
  private readonly written = new Map<string, TaskRevision>();
  private readonly updating = new OneAtATimePerTask();

  constructor(
    private readonly tasks: RevisionedTasks,
    private readonly options: RevisionWriterOptions,
  ) {}

  /**
   * {@link TaskStore.update}'s work. What the change throws (in computing it, folding its events,
   * or its `check`), and what `options.checkHead` throws, reaches the caller as thrown, handed
   * first to `refusing`: the caller's word on the task, which a store tells apart from its
   * backend's failures.
   */
  update(
    taskId: string,
    change: (current: TaskRecord | undefined) => TaskChange,
    options?: TaskUpdateOptions,
    refusing?: (error: unknown) => void,
  ): Promise<TaskUpdateResult> {
    const { checkHead } = options ?? {};
    const checked =
      checkHead &&
      ((head: TaskHead) => {
        try {
          checkHead(head);
        } catch (error) {
          refusing?.(error);
          throw error;
        }
      });
    return this.updating.run(taskId, () => this.write(taskId, change, checked, refusing));
  }

  private async write(
    taskId: string,
    change: (current: TaskRecord | undefined) => TaskChange,
    checkHead: ((head: TaskHead) => void) | undefined,
    refusing: ((error: unknown) => void) | undefined,
  ): Promise<TaskUpdateResult> {
    let known = this.written.get(taskId) ?? (this.options.createsWithoutRead ? TAKEN_FOR_NEW : await this.tasks.read(taskId, checkHead));
    for (let attempt = 1; ; attempt++) {
      let settled: TaskUpdateResult;
      let layout: LayoutWrite;
      try {
        const taskChange = change(known.record);
        // Appending a chunk costs the chunk, not the artifact.
        settled = settleChange(known.record, taskChange, mergeGrowingArtifact);
        layout = planWrite(known.record, known.laidOut, taskChange, settled.record);
      } catch (error) {
        // A change that refuses a task taken for new (a cancel, or one that needs the task) is
        // made again on the task as read.
        if (known === TAKEN_FOR_NEW) {
          known = await this.tasks.read(taskId, checkHead);
          continue;
        }
        refusing?.(error);
        throw error;
      }
      const { record, events } = settled;
      const final = isFinalState(record.task.status.state);
      const ended = turnEndedBy(taskId, known.record, record);
      const queued = !final && record.holder === QUEUED_HOLDER;
      const rev = await this.tasks.compareAndSet(taskId, {
        known,
        record,
        events,
        layout,
        final,
        handedOver: isHandedOver(record),
        turnEnded: ended && JSON.stringify(ended),
        queued,
        enqueue: queued && !wasQueued(known.record, record) ? { turn: record.turn, attempt: record.attempt ?? 1 } : undefined,
      });
      if (rev !== undefined) {
        this.remember(taskId, final ? undefined : { rev, record, laidOut: true });
        this.options.written(taskId, settled.events);
        return settled;
      }
      this.written.delete(taskId);
      if (attempt >= MAX_ATTEMPTS) {
        throw A2AError.resourceUnavailable(`task ${taskId} is being changed by too many processes at once`);
      }
      known = await this.tasks.read(taskId, checkHead);
    }
  }

  /** Keeps what this process wrote of a running task, for its next change; forgets a finished one. */
  private remember(taskId: string, known: TaskRevision | undefined): void {
    this.written.delete(taskId);
    if (!known) return;
    if (this.written.size >= MAX_KEPT_RECORDS) this.written.delete(this.written.keys().next().value!);
    this.written.set(taskId, known);
  }
}

/** Whether `before` was queued already for the same turn and attempt as `after` (a change of a queued task that is no new entry). */
function wasQueued(before: TaskRecord | undefined, after: TaskRecord): boolean {
  return (
    before !== undefined &&
    before.holder === QUEUED_HOLDER &&
    before.turn === after.turn &&
    (before.attempt ?? 1) === (after.attempt ?? 1) &&
    !isFinalState(before.task.status.state)
  );
}

/** One task's subscribers in this process, and where their delivery stands. */
interface Feed {
  readonly taskId: string;
  /** Each with the task's last event id when it subscribed, when known: it is told only of later ones. */
  readonly listeners: Set<{ readonly from: number | undefined; readonly listener: EventListener }>;
  /** The newest event id delivered; undefined while not known (no event yet, and the feed began without the task's last id). */
  last: number | undefined;
  /** While the log is read for what was missed: the batches of events heard meanwhile, in order. */
  held: (readonly StoredEvent[])[] | undefined;
  /** Something was heard (or written here) while the log was read that the read may not include: read again after. */
  readAgain: boolean;
}

/**
 * The subscribers of each task in this process, told every event once, in id order. A backend
 * says what it hears (`heard`), what this process wrote (`wrote`) and when notices may have been
 * lost (`readMissed`); the events a notice does not bring, or that a lost one left out, are read
 * from the task's log with `readEventsAfter`.
 */
export class TaskFeeds {
  private readonly feeds = new Map<string, Feed>();

  /**
   * `readEventsAfter`: the task's events after an id, oldest first (undefined: none to read, or the
   * log no longer reaches back that far). `unread`: told when that read failed; what was heard
   * meanwhile is delivered all the same.
   */
  constructor(
    private readonly readEventsAfter: (taskId: string, afterId: number) => Promise<readonly StoredEvent[] | undefined>,
    private readonly unread?: (error: unknown, taskId: string) => void,
  ) {}

  /**
   * Adds a subscriber of `taskId`. `from`, the task's last event id as the backend read it after it
   * began to listen (when it does): the subscriber is told of the events after it; without one, of
   * every event delivered from now on. Returns what removes the subscriber, which answers whether it
   * was the task's last here (the backend may stop listening for it).
   */
  add(taskId: string, listener: EventListener, from?: number): () => boolean {
    let feed = this.feeds.get(taskId);
    if (!feed) {
      feed = { taskId, listeners: new Set(), last: from, held: undefined, readAgain: false };
      this.feeds.set(taskId, feed);
    }
    const entry = { from, listener };
    feed.listeners.add(entry);
    const own = feed;
    return () => {
      own.listeners.delete(entry);
      if (own.listeners.size > 0 || this.feeds.get(taskId) !== own) return false;
      this.feeds.delete(taskId);
      return true;
    };
  }

  /** The tasks that have subscribers here. */
  taskIds(): IterableIterator<string> {
    return this.feeds.keys();
  }

  /** Whether a notice of events up to `lastId` brings nothing to deliver (no subscriber, or delivered already): it need not be read. */
  delivered(taskId: string, lastId: number): boolean {
    const feed = this.feeds.get(taskId);
    return feed === undefined || (feed.last !== undefined && lastId <= feed.last);
  }

  /**
   * A notice of new events of `taskId`, in the order they were written: the events themselves when
   * it carries them, else undefined (they are read from the log).
   */
  heard(taskId: string, events?: readonly StoredEvent[]): void {
    const feed = this.feeds.get(taskId);
    if (!feed) return;
    if (events === undefined) this.readLog(feed, []);
    else if (feed.held) feed.held.push(events);
    else if (feed.last === undefined || follows(feed, events)) this.deliver(feed, events);
    else this.readLog(feed, [events]);
  }

  /**
   * Events this process just wrote: delivered at once, rather than when their notice comes back,
   * when they follow on from what was delivered. Otherwise another writer's events may come before
   * them: the log is read (or, while the last delivered is not known, their notice brings them in
   * order with the others).
   */
  wrote(taskId: string, events: readonly StoredEvent[]): void {
    const feed = this.feeds.get(taskId);
    if (!feed || events.length === 0 || feed.last === undefined) return;
    if (feed.held) feed.readAgain = true;
    else if (follows(feed, events)) this.deliver(feed, events);
    else this.readLog(feed, []);
  }

  /** Notices may have been lost (the connection that hears them was down): every feed reads what it missed. */
  readMissed(): void {
    for (const feed of this.feeds.values()) this.readLog(feed, []);
  }

  clear(): void {
    this.feeds.clear();
  }

  /**
   * Reads the task's log after the last event delivered and delivers it, then what was heard
   * meanwhile, in order; once more when something heard meanwhile may have come after the read.
   */
  private readLog(feed: Feed, held: (readonly StoredEvent[])[]): void {
    if (feed.held) {
      feed.held.push(...held);
      if (held.length === 0) feed.readAgain = true;
      return;
    }
    feed.held = held;
    feed.readAgain = false;
    void this.readEventsAfter(feed.taskId, feed.last ?? 0)
      .catch((error: unknown) => {
        this.unread?.(error, feed.taskId);
        return undefined;
      })
      .then((missed) => {
        const waiting = feed.held ?? [];
        feed.held = undefined;
        if (missed) this.deliver(feed, missed);
        for (const events of waiting) this.deliver(feed, events);
        if (feed.readAgain && this.feeds.get(feed.taskId) === feed) this.readLog(feed, []);
      });
  }

  private deliver(feed: Feed, events: readonly StoredEvent[]): void {
    for (const stored of events) {
      if (feed.last !== undefined && stored.id <= feed.last) continue;
      feed.last = stored.id;
      for (const { from, listener } of [...feed.listeners]) if (from === undefined || stored.id > from) listener(stored);
    }
  }
}

/** Whether `events` follow on from the last delivered, none missing before them. */
function follows(feed: Feed, events: readonly StoredEvent[]): boolean {
  return feed.last !== undefined && events[0] !== undefined && events[0].id <= feed.last + 1;
}
