// What every task store promises. The router needs only these operations, so a networked store
// (Redis, a database) can replace the in-memory one. `storeContract` (a2a-express/testing) holds
// a store to every promise below: the built-in ones, and anyone's (docs/stores.md).
import type { StoreMetrics } from '../telemetry/metrics.js';
import { isFinalState, type TaskState } from '../model/task.js';
import {
  HANDED_OVER,
  type EventListener,
  type StoredEvent,
  type TaskChange,
  type TaskRecord,
  type TaskUpdateOptions,
  type TaskUpdateResult,
} from '../model/record.js';

/**
 * Where tasks live.
 *
 * - **Who owns what.** What `get` and `eventsAfter` return is the caller's own (a copy, or
 *   freshly parsed): changing it never changes the store. The record `update` returns, the
 *   `current` record a change receives, the objects a change hands in, and the events given to
 *   subscribers are shared with the store, for the writer of a task (the engine) to read on
 *   every event without a copy: they are never changed. Nothing else ever sees them: the
 *   handler and the methods get copies.
 * - **Changes are atomic and ordered.** `update` applies one change at a time per task; its
 *   events get consecutive ids after the task's `lastEventId`, with no gaps and no repeats,
 *   even with several writers (other processes too, for a shared store).
 * - **Subscribers** receive every event appended after `subscribe` resolved, once each, in id
 *   order. When is store-specific: the in-memory store tells them before `update` resolves, a
 *   networked one when its message arrives, possibly after.
 * - **Bounds.** A store may bound how many tasks or bytes it holds. When it cannot make room
 *   for a new task it refuses the change with -32011 (`A2AError.resourceUnavailable`) and keeps
 *   nothing of it. The in-memory store is bounded (`maxTasks`, `maxBytes`); the Redis store is
 *   bounded by Redis's memory alone, and keeps finished tasks for `retentionMs`.
 */
export interface TaskStore {
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Changes one task atomically: `change` receives the current record (undefined when the task
   * does not exist) and returns the change (see {@link TaskChange}). The store applies its
   * events, numbers them, stores record and events, then tells the task's subscribers. A change
   * that throws changes nothing, and its error reaches the caller as thrown. A shared store may
   * call `change` more than once (when another process changed the task meanwhile), so it must
   * only compute its result. `options.checkHead` lets a store refuse a change from a small read
   * of the task (see {@link TaskUpdateOptions}).
   */
  update(taskId: string, change: (current: TaskRecord | undefined) => TaskChange, options?: TaskUpdateOptions): Promise<TaskUpdateResult>;
  /**
   * The events after `afterId`, oldest first; `[]` when there are none yet; `undefined` when the
   * log no longer reaches back that far (it is bounded) or the task is unknown.
   */
  eventsAfter(taskId: string, afterId: number): Promise<StoredEvent[] | undefined>;
  /** Calls `listener` with each event appended to the task's log from now on. */
  subscribe(taskId: string, listener: EventListener): Promise<() => void>;
  /**
   * A page of the tasks of one owner, newest status first (see {@link TaskListQuery}). Optional:
   * without it, listing tasks (A2A 1.0 `ListTasks`) answers that this agent does not list them.
   * The built-in stores have it, each reading an index of the query's owner and filters from
   * where the page starts (list-index.ts in memory; sorted sets the Redis update script keeps),
   * so that a call's cost does not grow with the tasks it does not list.
   */
  listTasks?(query: TaskListQuery): Promise<TaskListPage>;
  /** Releases timers and connections. */
  close(): Promise<void>;
  /** Where the tasks are kept, in a few words, for `serveAgent`'s start-up line. */
  describe?(): string;
  /**
   * Resolves while the store can be reached, rejects saying why not: the router's readiness.
   * Optional: without it, a store that is always there (in this process).
   */
  ping?(): Promise<void>;
  /**
   * Reports to the router's metrics (its `metrics` option) from now on: what the store holds and
   * evicts, its commands' latency and failures. Returns what stops it. Optional.
   */
  useMetrics?(metrics: StoreMetrics): () => void;
  /**
   * Claims `key` for `windowMs` milliseconds with `claim`, atomically with every other process
   * sharing the store: undefined when this call claimed it (no claim held it, or the one that did
   * had expired), else the claim that holds it, unchanged. How a retried send finds the turn its
   * first try started (docs/idempotency.md): `key` is what the router makes of who sent
   * what, at most 256 characters. Optional: without it, a router recognizes retries of new tasks
   * within its own process only.
   */
  claimIdempotencyKey?(key: string, claim: IdempotencyClaim, windowMs: number): Promise<IdempotencyClaim | undefined>;
}

/** What an idempotency key holds: the turn a send took, by its task and its message. */
export interface IdempotencyClaim {
  readonly taskId: string;
  readonly messageId: string;
}

/**
 * A turn ended by a process other than (perhaps) the one running its handler, taken over by
 * another process (`resumed`: a process running an earlier attempt of it stops), or let go by a
 * draining replica (`handed-over`: a replica that takes turns over claims it now, without waiting
 * for its lease).
 */
export interface TurnEnded {
  readonly taskId: string;
  readonly turn: number;
  readonly state: 'canceled' | 'failed' | 'resumed' | 'handed-over';
  /** For `resumed` and `handed-over`: the attempt that runs now, or that waits to be taken. */
  readonly attempt?: number;
}

/**
 * A store that several processes (replicas of one agent) share. The router of each replica
 * uses the extra operations to keep tasks alive across processes:
 * - a task that is `submitted` or `working` holds a lease that its running process renews; a
 *   task whose lease ran out lost its process and is failed by whichever replica claims it;
 * - a turn canceled (or failed) anywhere is announced, so the process running its handler
 *   aborts it.
 */
export interface SharedTaskStore extends TaskStore {
  /** How long a lease lasts without renewal, milliseconds. */
  readonly leaseMs: number;
  /**
   * Extends the leases of these tasks (the ones whose handlers run in this process). Given
   * `holder` (the process's id), only of those whose current attempt it runs (`TaskRecord.holder`,
   * or none recorded): a process that lost a turn to another cannot keep it alive.
   */
  renewLeases(taskIds: readonly string[], holder?: string): Promise<void>;
  /**
   * Tasks whose lease has run out, claimed for one lease period by this process so that no
   * other replica fails (or resumes) them at the same time.
   */
  claimExpiredLeases(): Promise<string[]>;
  /** Calls `listener` whenever a turn is canceled or failed, by any process sharing the store. */
  onTurnEnded(listener: (ended: TurnEnded) => void): Promise<() => void>;
}

/**
 * What a task's record names as its `holder` while its turn waits in the store's turn queue for a
 * worker (roles `front-end` and `worker`, docs/replicas.md): no process runs it, so it holds no
 * lease, and a shared store that writes a record whose holder turns to this adds the turn to its
 * queue in the same atomic write.
 */
export const QUEUED_HOLDER = 'queued';

/** A turn taken from a store's turn queue, for a worker to claim (see {@link TurnQueue}). */
export interface QueuedTurn {
  readonly taskId: string;
  readonly turn: number;
  /** The attempt the turn was queued for: 1, or more for a turn queued again after its worker was lost. */
  readonly attempt: number;
  /** The store's name for the queue entry, for `settleQueuedTurn`. */
  readonly entry: string;
}

/** What a turn queue holds now: how many turns wait, and for how long the oldest has. */
export interface TurnQueueFigures {
  /** Turns queued and not yet claimed by a worker (a turn canceled while queued counts until a worker drops it). */
  readonly depth: number;
  /** Milliseconds since the oldest of them was queued; 0 when none is. */
  readonly oldestAgeMs: number;
}

/**
 * The turn queue of a shared store, through which front ends hand turns to workers
 * (docs/replicas.md, "Front ends and workers"). A turn enters it with the write that makes its
 * record's holder {@link QUEUED_HOLDER}; a worker takes entries, claims each turn in the record
 * (compare-and-set: holder `queued` → itself, so one worker alone runs it), then settles the entry.
 * An entry taken and not settled within the store's lease (its worker died before claiming) is
 * given to another worker. Optional: a store without it serves role `all` only.
 */
export interface TurnQueue {
  /**
   * Up to `max` queued turns for `worker`, oldest first, with those another worker took and did
   * not settle within a lease; waits up to `waitMs` for one when none is queued.
   */
  takeQueuedTurns(worker: string, max: number, waitMs: number): Promise<QueuedTurn[]>;
  /** Removes a taken entry: its turn was claimed, or needs no worker any more. */
  settleQueuedTurn(taken: QueuedTurn): Promise<void>;
  queueFigures(): Promise<TurnQueueFigures>;
  /** Says that `worker` is alive for `ttlMs` more (a heartbeat); `ttlMs` 0 says it stopped. */
  heartbeatWorker(worker: string, ttlMs: number): Promise<void>;
  /** How many workers said they were alive within their heartbeat's time. */
  liveWorkers(): Promise<number>;
}

/** Whether a store has a turn queue: the roles `front-end` and `worker` need one. */
export function hasTurnQueue(store: TaskStore): store is SharedTaskStore & TurnQueue {
  return isSharedTaskStore(store) && typeof (store as Partial<TurnQueue>).takeQueuedTurns === 'function';
}

export function isSharedTaskStore(store: TaskStore): store is SharedTaskStore {
  return typeof (store as Partial<SharedTaskStore>).claimExpiredLeases === 'function';
}

/** Where a page of tasks starts: after the task of this status time (milliseconds) and id. */
export interface TaskListCursor {
  readonly statusMs: number;
  readonly taskId: string;
}

/**
 * Which tasks to list. Tasks are ordered by the time of their status, newest first, then by id
 * (descending); a page holds the first `pageSize` after `after`.
 */
export interface TaskListQuery {
  /** The tasks' owner (`TaskRecord.owner`); undefined: tasks created without authentication. */
  readonly owner: string | undefined;
  readonly contextId?: string;
  readonly state?: TaskState;
  /** Only tasks whose status time is at or after this (milliseconds since the epoch). */
  readonly statusAtOrAfterMs?: number;
  readonly pageSize: number;
  readonly after?: TaskListCursor;
  /**
   * Asked of each task of the page in order, before the next one is read: false ends the page
   * before this task, which then starts the next page (`next` is the last task taken). What lets
   * a caller bound a page by the size of its answer without the store building the rest of it.
   * A caller that cannot take even the first task throws rather than answer false (the store
   * then lists nothing and rethrows). It is shown the store's own record, which it must not change.
   */
  readonly accept?: (record: TaskRecord) => boolean;
}

export interface TaskListPage {
  readonly records: TaskRecord[];
  /** How many tasks match the query, on every page. */
  readonly total: number;
  /** Where the next page starts; undefined on the last page. */
  readonly next?: TaskListCursor;
}

/**
 * A store's listing order as a comparison: negative when `a` is listed before `b` (newest status
 * first, then the greater id, by UTF-16 code units as JavaScript compares strings).
 */
export function compareListed(a: TaskListCursor, b: TaskListCursor): number {
  if (a.statusMs !== b.statusMs) return b.statusMs - a.statusMs;
  return a.taskId === b.taskId ? 0 : a.taskId > b.taskId ? -1 : 1;
}

/** A task's place in the listing order: the time of its status, in milliseconds (0 when it has none). */
export function statusMsOf(record: TaskRecord): number {
  const at = record.task.status.timestamp;
  const ms = at ? Date.parse(at) : 0;
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * The notice a shared store announces for a change that ends a turn from outside its handler
 * (canceled, or failed by a lease sweep), so that the process running the handler aborts it;
 * none for a task that had ended already.
 */
export function turnEndedBy(taskId: string, before: TaskRecord | undefined, after: TaskRecord): TurnEnded | undefined {
  if (before && isFinalState(before.task.status.state)) return undefined;
  const { state } = after.task.status;
  if (state === 'canceled' || state === 'failed') return { taskId, turn: after.turn, state };
  const attempt = after.attempt ?? 1;
  if (isHandedOver(after) && !(before && isHandedOver(before))) return { taskId, turn: after.turn, state: 'handed-over', attempt };
  // Another attempt of the same turn begins: whoever runs an earlier one stops.
  if (before && before.turn === after.turn && attempt > (before.attempt ?? 1))
    return { taskId, turn: after.turn, state: 'resumed', attempt };
  return undefined;
}

/** Whether the task's running turn was let go by a draining replica and waits for another to take it. */
export function isHandedOver(record: TaskRecord): boolean {
  return record.holder === HANDED_OVER && !isFinalState(record.task.status.state);
}

/**
 * Runs the work given for one task one after the other, in the order given (a failure does not
 * stop the next): a shared store's updates of one task from one process then never race each other
 * for the task's revision; only other processes' writes can make an attempt start again.
 */
export class OneAtATimePerTask {
  private readonly running = new Map<string, Promise<void>>();

  run<T>(taskId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.running.get(taskId);
    const result = previous !== undefined ? previous.then(work) : work();
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.running.set(taskId, settled);
    void settled.then(() => {
      if (this.running.get(taskId) === settled) this.running.delete(taskId);
    });
    return result;
  }
}

/** A store's numeric option, which must be positive: a TypeError that names the store and the option otherwise. */
export function positiveOption(store: string, name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${store}: ${name} must be a positive number, got ${value}`);
  return value;
}
