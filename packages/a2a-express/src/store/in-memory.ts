// The default store: bounded, in this process. Memory cannot grow without limit: at most
// `maxTasks` tasks and `maxBytes` of their content, idle ones dropped after `retentionMs`, at
// most `maxEventsPerTask` events per task.
import type { StoreMetrics } from '../telemetry/metrics.js';
import { A2AError } from 'a2a-types/model';
import { isFinalState, type TaskEvent } from '../model/task.js';
import type { Logger } from 'pino';
import { settleChange } from '../model/fold.js';
import { mergeGrowingArtifact } from './growing-artifacts.js';
import { jsonCopy } from '../model/plain-json.js';
import type { EventListener, StoredEvent, TaskChange, TaskRecord, TaskUpdateResult } from '../model/record.js';
import { TaskListIndex } from './list-index.js';
import { ClaimsInProcess } from './idempotency-claims.js';
import { positiveOption, type IdempotencyClaim, type TaskListPage, type TaskListQuery, type TaskStore } from './task-store.js';

export interface InMemoryTaskStoreOptions {
  /** Most tasks kept at once; idle tasks are evicted oldest first to make room. Default 10,000. */
  maxTasks?: number;
  /**
   * How long a task that is not running (finished or waiting for input) is kept after its last
   * change, in milliseconds. Default one hour.
   */
  retentionMs?: number;
  /**
   * Events kept per task for replay to reconnecting clients: at least the last this many (up
   * to half as many again between trims). Default 1,000.
   */
  maxEventsPerTask?: number;
  /**
   * Most bytes of task content kept at once (the sum of the tasks' sizes: everything each keeps,
   * as the length of its JSON), beside `maxTasks`: idle tasks are evicted oldest first to stay
   * under it. Default 256 MiB.
   */
  maxBytes?: number;
  /**
   * Where the store says that it evicted tasks before their retention ended (rate-limited to one
   * line a minute). The router gives its own logger to a store that has none.
   */
  logger?: Logger;
  /**
   * Most idempotency keys kept at once (docs/idempotency.md), the oldest dropped first to make
   * room. Default twice `maxTasks`: a key answers with its task only while the task is kept.
   */
  maxIdempotencyKeys?: number;
}

/** At most one warning about early evictions per this many milliseconds. */
const EVICTION_WARNING_EVERY_MS = 60_000;

interface Entry {
  record: TaskRecord;
  /**
   * The task's last events, oldest first, without their ids: they are consecutive and end at
   * `record.lastEventId`. A kept task is traced by the collector for as long as it is kept, and
   * the `{ id, event }` of each would be one more object to trace (five of a short task's forty).
   */
  events: TaskEvent[];
}

/** A task's place in the idle queue; the token object itself tells a current entry from a stale one. */
interface IdleToken {
  readonly taskId: string;
  readonly since: number;
}

/**
 * A bounded in-process store. Memory cannot grow without limit: at most `maxTasks` tasks, idle
 * ones dropped after `retentionMs`, and at most `maxEventsPerTask` events per task. When every
 * slot holds a running task, creating another fails with -32011 rather than growing.
 */
export class InMemoryTaskStore implements TaskStore {
  readonly maxTasks: number;
  readonly retentionMs: number;
  readonly maxEventsPerTask: number;
  readonly maxBytes: number;
  /** Bytes of task content held now (the sum of the records' `bytes`). */
  private heldBytes = 0;
  private logger: Logger | undefined;
  /** Tasks evicted before their retention ended since the last warning, and how long they had been idle. */
  private earlyEvictions = { count: 0, shortestMs: Infinity, longestMs: 0, totalMs: 0 };
  private lastEvictionWarning = 0;
  private metrics: StoreMetrics | undefined;
  private readonly entries = new Map<string, Entry>();
  /** Where ListTasks finds each owner's tasks. */
  private readonly listed: TaskListIndex;
  /** Tasks not running (finished or waiting for input): their idle token. */
  private readonly idle = new Map<string, IdleToken>();
  /**
   * The same tokens in the order tasks became idle, oldest at `idleHead`. A token whose task
   * has run again since (the map holds a newer one) is stale and skipped. A queue rather than
   * Map iteration, whose cost grows with every entry ever deleted from the front.
   */
  private idleQueue: IdleToken[] = [];
  private idleHead = 0;
  private readonly listeners = new Map<string, Set<EventListener>>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  private readonly claims: ClaimsInProcess;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.maxTasks = positiveOption('InMemoryTaskStore', 'maxTasks', options.maxTasks ?? 10_000);
    this.retentionMs = positiveOption('InMemoryTaskStore', 'retentionMs', options.retentionMs ?? 60 * 60 * 1000);
    this.maxEventsPerTask = positiveOption('InMemoryTaskStore', 'maxEventsPerTask', options.maxEventsPerTask ?? 1_000);
    this.maxBytes = positiveOption('InMemoryTaskStore', 'maxBytes', options.maxBytes ?? 256 * 1024 * 1024);
    this.logger = options.logger;
    this.claims = new ClaimsInProcess(
      positiveOption('InMemoryTaskStore', 'maxIdempotencyKeys', options.maxIdempotencyKeys ?? 2 * this.maxTasks),
    );
    this.listed = new TaskListIndex(
      {
        all: () => recordsOf(this.entries),
        get: (taskId) => this.entries.get(taskId)?.record,
      },
      this.maxTasks,
    );
  }

  /**
   * Expired tasks are also dropped lazily on access; the timer frees memory of an idle server.
   * Started by the first write, not when the store is made: a Worker's global scope, where an agent
   * is made, may not set a timer.
   */
  private startSweeping(): void {
    if (this.sweeper !== undefined || this.closed) return;
    this.sweeper = setInterval(() => this.sweep(Date.now()), Math.min(this.retentionMs, 60_000));
    // Node's timers hold the process open unless unref'd; a browser's or a Worker's are numbers.
    (this.sweeper as { unref?: () => void }).unref?.();
  }

  /** How many tasks are held now. */
  get size(): number {
    return this.entries.size;
  }

  /** Bytes of task content held now (see `maxBytes`). */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Gives the store a logger for its warnings, unless it was given one. */
  useLogger(logger: Logger): void {
    this.logger ??= logger;
  }

  useMetrics(metrics: StoreMetrics): () => void {
    this.metrics = metrics;
    const unwatch = metrics.watchStore(() => ({ tasks: this.entries.size, bytes: this.heldBytes }));
    return () => {
      unwatch();
      if (this.metrics === metrics) this.metrics = undefined;
    };
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = this.live(taskId)?.record;
    return record && jsonCopy(record);
  }

  async update(taskId: string, change: (current: TaskRecord | undefined) => TaskChange): Promise<TaskUpdateResult> {
    // Everything from here to the end runs without an await, so no other update interleaves.
    this.startSweeping();
    const entry = this.live(taskId);
    const { record: saved, events: stored } = settleChange(entry?.record, change(entry?.record), mergeGrowingArtifact);
    if (!entry) this.makeRoom(saved.bytes ?? 0);
    this.heldBytes += (saved.bytes ?? 0) - (entry?.record.bytes ?? 0);
    const log = entry?.events ?? [];
    for (const { event } of stored) log.push(event);
    // Trimmed in batches (past 1.5× the bound) so that a long stream does not move the whole
    // log on every event.
    if (log.length > this.maxEventsPerTask * 1.5) log.splice(0, log.length - this.maxEventsPerTask);
    // A new task, or a new status: its place in the listing order changes.
    if (!entry || entry.record.task.status !== saved.task.status || entry.record.replied !== saved.replied) this.listed.note(taskId);
    if (entry) entry.record = saved;
    else this.entries.set(taskId, { record: saved, events: log });
    if (isFinalState(saved.task.status.state)) {
      const token = { taskId, since: saved.updatedAt };
      this.idle.set(taskId, token);
      this.idleQueue.push(token);
    } else {
      this.idle.delete(taskId);
    }
    // A task that grew may take the store past its budget: the oldest idle tasks make way.
    if (this.heldBytes > this.maxBytes) this.evictIdle(() => this.heldBytes > this.maxBytes, 'maxBytes');
    this.notify(taskId, stored);
    return { record: saved, events: stored };
  }

  /** Reads the index of the query's owner and filters, from where the page starts (list-index.ts). */
  async listTasks(query: TaskListQuery): Promise<TaskListPage> {
    const now = Date.now();
    // Not `live`, which drops an expired task, and so would change the index being read.
    const page = this.listed.page(query, (taskId) => (this.expired(taskId, now) ? undefined : this.entries.get(taskId)?.record));
    return { ...page, records: page.records.map(jsonCopy) };
  }

  async eventsAfter(taskId: string, afterId: number): Promise<StoredEvent[] | undefined> {
    const entry = this.live(taskId);
    if (!entry) return undefined;
    const log = entry.events;
    const oldest = entry.record.lastEventId - log.length + 1;
    if (afterId + 1 < oldest) return undefined;
    const events: StoredEvent[] = [];
    for (let i = Math.max(0, afterId + 1 - oldest); i < log.length; i++) events.push({ id: oldest + i, event: jsonCopy(log[i]!) });
    return events;
  }

  async subscribe(taskId: string, listener: EventListener): Promise<() => void> {
    let set = this.listeners.get(taskId);
    if (!set) this.listeners.set(taskId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(taskId) === set) this.listeners.delete(taskId);
    };
  }

  async claimIdempotencyKey(key: string, claim: IdempotencyClaim, windowMs: number): Promise<IdempotencyClaim | undefined> {
    return this.claims.claim(key, claim, windowMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
  }

  describe(): string {
    return 'in memory';
  }

  private live(taskId: string): Entry | undefined {
    const entry = this.entries.get(taskId);
    if (!entry) return undefined;
    if (this.expired(taskId, Date.now())) {
      this.drop(taskId);
      return undefined;
    }
    return entry;
  }

  /** Whether the task has been idle for `retentionMs` or longer. */
  private expired(taskId: string, now: number): boolean {
    const since = this.idle.get(taskId)?.since;
    return since !== undefined && now - since >= this.retentionMs;
  }

  /** Room for one more task of `bytes`: idle tasks evicted, oldest first, or -32011 when all run. */
  private makeRoom(bytes: number): void {
    this.sweep(Date.now());
    this.evictIdle(() => this.entries.size >= this.maxTasks, 'maxTasks');
    if (this.entries.size >= this.maxTasks) {
      throw A2AError.resourceUnavailable(`the task store is full: ${this.maxTasks} tasks are running`);
    }
    this.evictIdle(() => this.heldBytes + bytes > this.maxBytes, 'maxBytes');
    if (this.heldBytes + bytes > this.maxBytes) {
      throw A2AError.resourceUnavailable(`the task store is full: its running tasks hold ${this.heldBytes} of ${this.maxBytes} bytes`);
    }
  }

  /** Evicts idle tasks, oldest first, while `over()` holds and there are any. */
  private evictIdle(over: () => boolean, bound: 'maxTasks' | 'maxBytes'): void {
    const now = Date.now();
    for (let oldest = this.oldestIdle(); oldest && over(); oldest = this.oldestIdle()) {
      this.drop(oldest.taskId);
      const keptMs = now - oldest.since;
      const early = this.earlyEvictions;
      early.count++;
      early.totalMs += keptMs;
      early.shortestMs = Math.min(early.shortestMs, keptMs);
      early.longestMs = Math.max(early.longestMs, keptMs);
      this.metrics?.storeEvicted(bound);
      this.warnOfEarlyEvictions(now, bound);
    }
  }

  /**
   * Says, once a minute at most, that tasks went before their retention ended: how many, and how
   * long they had been kept since their last change. Under load, `retentionMs` is a promise the
   * store can only keep with room for it (README, "Sizing the in-memory store").
   */
  private warnOfEarlyEvictions(now: number, bound: 'maxTasks' | 'maxBytes'): void {
    if (!this.logger || now - this.lastEvictionWarning < EVICTION_WARNING_EVERY_MS) return;
    const { count, shortestMs, longestMs, totalMs } = this.earlyEvictions;
    this.logger.warn(
      {
        evicted: count,
        bound,
        keptMs: { shortest: shortestMs, mean: Math.round(totalMs / count), longest: longestMs },
        retentionMs: this.retentionMs,
        maxTasks: this.maxTasks,
        maxBytes: this.maxBytes,
      },
      `the task store evicted ${count} task(s) before their retention ended (${bound} reached); raise it, or expect finished tasks to be kept for less than retentionMs`,
    );
    this.earlyEvictions = { count: 0, shortestMs: Infinity, longestMs: 0, totalMs: 0 };
    this.lastEvictionWarning = now;
  }

  private sweep(now: number): void {
    for (let oldest = this.oldestIdle(); oldest && now - oldest.since >= this.retentionMs; oldest = this.oldestIdle()) {
      this.drop(oldest.taskId);
    }
  }

  /** The task idle the longest, skipping stale tokens. */
  private oldestIdle(): IdleToken | undefined {
    while (this.idleHead < this.idleQueue.length) {
      const token = this.idleQueue[this.idleHead]!;
      if (this.idle.get(token.taskId) === token) return token;
      this.idleHead++;
    }
    this.idleQueue = [];
    this.idleHead = 0;
    return undefined;
  }

  private drop(taskId: string): void {
    this.heldBytes -= this.entries.get(taskId)?.record.bytes ?? 0;
    this.entries.delete(taskId);
    this.listed.note(taskId);
    this.idle.delete(taskId);
    // Compact the queue once most of it has been consumed.
    if (this.idleHead > 1024 && this.idleHead * 2 > this.idleQueue.length) {
      this.idleQueue = this.idleQueue.slice(this.idleHead);
      this.idleHead = 0;
    }
  }

  private notify(taskId: string, events: readonly StoredEvent[]): void {
    const set = this.listeners.get(taskId);
    if (!set || events.length === 0) return;
    for (const listener of [...set]) {
      for (const event of events) listener(event);
    }
  }
}

function* recordsOf(entries: ReadonlyMap<string, Entry>): Iterable<[string, TaskRecord]> {
  for (const [taskId, entry] of entries) yield [taskId, entry.record];
}
