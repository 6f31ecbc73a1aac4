// A task store in Redis, shared by every replica of an agent. Each task is a hash (a revision
// number and the small part of its record), lists for what grows (its history, each artifact's
// parts; task-layout.ts), its events a Redis Stream whose entry ids are the SSE ids (`0-N` for
// event N), and its live events a pub/sub channel. A change is written by a Lua script only if the
// task's revision is still the one it was computed from (compare-and-set: shared-store.ts does the
// rest, as for PostgreSQL), so updates from several replicas never overwrite each other, and one
// task's events keep their order. An event appends to the lists rather than rewriting the record,
// so its cost does not grow with the length of the task (task-layout.ts).
//
// Keys of one task, under the store's prefix:
//   task:<id>             hash: rev (compare-and-set revision), head (the record but its history
//                         and its artifacts' parts, as JSON), last (last event id), artifacts
//                         (the artifacts' indexes in order, space-separated); a record of an
//                         older version, one JSON string in its `record` field instead
//   history:<id>          list: one message (JSON) per element, oldest first
//   parts:<id>:<index>    list per artifact: JSON arrays of parts, concatenated in order
//   events:<id>           stream of the events, entry id 0-N for event N (the SSE id), trimmed
// and of the store: idempotency:<key>, a send's claim (docs/idempotency.md), expiring with its window;
// turn-queue, a stream of the turns waiting for a worker (consumer group `workers`: a worker reads
// entries with XREADGROUP, takes over a dead one's with XAUTOCLAIM, XACKs and XDELs each once its
// turn is claimed), added by the update script in the same write that queues the turn; workers, a
// sorted set of the live workers, each scored with when its heartbeat runs out.
import type { StoreMetrics } from '../telemetry/metrics.js';
import { A2AError } from 'a2a-types/model';
import { FINAL_STATES } from '../model/task.js';
import { Redis, type RedisOptions } from 'ioredis';
import { databaseCall } from './database-call.js';
import { checkTaskId } from '../model/ids.js';
import type { EventListener, StoredEvent, TaskChange, TaskRecord, TaskUpdateResult } from '../model/record.js';
import { headOf, recordFromLayout, recordStoredWhole } from './task-layout.js';
import {
  CLAIM_SCRIPT,
  HEARTBEAT_SCRIPT,
  PRUNE_LIST_SCRIPT,
  QUEUE_FIGURES_SCRIPT,
  READ_SCRIPT,
  RENEW_SCRIPT,
  UPDATE_KEY_COUNT,
  UPDATE_SCRIPT,
  updateArguments,
} from './redis-scripts.js';
import { claimOf, claimText } from './idempotency-claims.js';
import { RevisionWriter, TaskFeeds, type ChangeWrite, type TaskRevision } from './shared-store.js';
import {
  positiveOption,
  statusMsOf,
  type IdempotencyClaim,
  type QueuedTurn,
  type SharedTaskStore,
  type TurnQueue,
  type TurnQueueFigures,
  type TaskListCursor,
  type TaskListPage,
  type TaskListQuery,
  type TurnEnded,
} from './task-store.js';

export interface RedisTaskStoreOptions {
  /** Where Redis is: a `redis://` or `rediss://` URL. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /** Further ioredis connection options (TLS, password, ...); the store's own settings win. */
  redisOptions?: RedisOptions;
  /**
   * Put before every key and channel name, so that several agents (or tests) can share one
   * Redis. Give every replica of one agent the same prefix, and different agents different
   * ones. Default `a2a:`.
   */
  prefix?: string;
  /** How long a task that is not running is kept after its last change, ms. Default one hour. */
  retentionMs?: number;
  /** Events kept per task for replay (at least; Redis trims in whole nodes). Default 1,000. */
  maxEventsPerTask?: number;
  /**
   * How long a running task's lease lasts without renewal, ms. Its process renews it every
   * third of this; once it has run out (the process died), another replica fails the task.
   * Default 15,000.
   */
  leaseMs?: number;
  /**
   * Longest wait for one Redis command, ms; past it the request is answered -32011. While
   * Redis cannot be reached, requests fail at the next reconnection attempt (at most
   * `maxReconnectDelayMs` away) rather than waiting for this. Default 2,000.
   */
  commandTimeoutMs?: number;
  /** Longest pause between reconnection attempts, ms. Default 500. */
  maxReconnectDelayMs?: number;
}

/** Most expired leases claimed in one sweep. */
const CLAIM_BATCH = 100;
/** Index entries read (or pruned) at a time when listing tasks. */
const LIST_BATCH = 200;

interface ScriptedRedis extends Redis {
  a2aUpdate(...args: (string | number)[]): Promise<[number, number]>;
  a2aRead(...args: string[]): Promise<[string, string | null, string | null, string[]?, string[][]?]>;
  a2aRenew(...args: (string | number)[]): Promise<number>;
  a2aClaim(...args: (string | number)[]): Promise<string[]>;
  a2aPruneList(...args: (string | number)[]): Promise<number>;
  a2aHeartbeat(...args: (string | number)[]): Promise<number>;
  a2aQueueFigures(...args: string[]): Promise<[number, number, number]>;
}

/** The consumer group of the turn queue: every worker of the agent reads as one of it. */
const WORKERS_GROUP = 'workers';

/**
 * A {@link SharedTaskStore} in Redis (standalone or a primary with replicas; not Redis
 * Cluster, whose slots the scripts' keys would cross). Every error of Redis itself is answered
 * -32011 (resource unavailable) to the client.
 */
export class RedisTaskStore implements SharedTaskStore, TurnQueue {
  readonly prefix: string;
  readonly retentionMs: number;
  readonly maxEventsPerTask: number;
  readonly leaseMs: number;
  readonly commandTimeoutMs: number;
  /** Commands; every task operation goes through it. */
  readonly redis: ScriptedRedis;
  /** Subscriptions only (a connection in subscriber mode can do nothing else). */
  private readonly subscriber: Redis;
  /** Changes by compare-and-set; a task is read before this process's first change of it. */
  private readonly writer = new RevisionWriter(
    { read: (taskId) => this.read(taskId), compareAndSet: (taskId, write) => this.compareAndSet(taskId, write) },
    { createsWithoutRead: false, written: (taskId, events) => this.feeds.wrote(taskId, events) },
  );
  /** Each task's subscribers here: a task's channel brings its events, its stream what a message lost left out. */
  private readonly feeds = new TaskFeeds((taskId, afterId) => this.eventsAfter(taskId, afterId));
  /** Where each task's channel name starts: what follows is its task id. */
  private readonly eventsChannelPrefix: string;
  private readonly turnListeners = new Set<(ended: TurnEnded) => void>();
  private readonly leasesKey: string;
  private readonly listExpiryKey: string;
  private readonly turnEndedChannel: string;
  private readonly queueKey: string;
  private readonly workersKey: string;
  /**
   * A worker's connection for the turn queue's blocking reads (XREADGROUP ... BLOCK), which would
   * hold up every other command on the shared one; made on a worker's first read.
   */
  private taker: Redis | undefined;
  /** The consumer group exists (made on the first read). */
  private groupMade: Promise<void> | undefined;
  private metrics: StoreMetrics | undefined;

  constructor(options: RedisTaskStoreOptions = {}) {
    this.prefix = options.prefix ?? 'a2a:';
    this.retentionMs = positiveOption('RedisTaskStore', 'retentionMs', options.retentionMs ?? 60 * 60 * 1000);
    this.maxEventsPerTask = positiveOption('RedisTaskStore', 'maxEventsPerTask', options.maxEventsPerTask ?? 1_000);
    this.leaseMs = positiveOption('RedisTaskStore', 'leaseMs', options.leaseMs ?? 15_000);
    this.commandTimeoutMs = positiveOption('RedisTaskStore', 'commandTimeoutMs', options.commandTimeoutMs ?? 2_000);
    const maxDelay = positiveOption('RedisTaskStore', 'maxReconnectDelayMs', options.maxReconnectDelayMs ?? 500);
    const connection: RedisOptions = {
      ...options.redisOptions,
      commandTimeout: this.commandTimeoutMs,
      // Commands wait for a reconnection in progress, but fail as soon as one attempt fails:
      // a request while Redis is down is answered -32011 at once instead of hanging.
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 50, maxDelay),
      lazyConnect: false,
    };
    const url = options.url ?? 'redis://127.0.0.1:6379';
    this.redis = new Redis(url, connection) as ScriptedRedis;
    // Subscriptions are renewed by the store itself after a reconnection (below): ioredis's own
    // renewal leaves its promise unhandled, which rejects when the store is closed before Redis
    // answers it, and an unhandled rejection ends the process.
    this.subscriber = new Redis(url, { ...connection, autoResubscribe: false });
    // Both connections report their errors through the requests that fail; without a listener
    // ioredis would print every failed reconnection attempt.
    this.redis.on('error', () => undefined);
    this.subscriber.on('error', () => undefined);
    this.redis.defineCommand('a2aUpdate', { numberOfKeys: UPDATE_KEY_COUNT, lua: UPDATE_SCRIPT });
    this.redis.defineCommand('a2aPruneList', { numberOfKeys: 1, lua: PRUNE_LIST_SCRIPT });
    this.redis.defineCommand('a2aRead', { numberOfKeys: 2, lua: READ_SCRIPT });
    this.redis.defineCommand('a2aRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    this.redis.defineCommand('a2aClaim', { numberOfKeys: 1, lua: CLAIM_SCRIPT });
    this.redis.defineCommand('a2aHeartbeat', { numberOfKeys: 1, lua: HEARTBEAT_SCRIPT });
    this.redis.defineCommand('a2aQueueFigures', { numberOfKeys: 2, lua: QUEUE_FIGURES_SCRIPT });
    this.queueKey = `${this.prefix}turn-queue`;
    this.workersKey = `${this.prefix}workers`;
    this.leasesKey = `${this.prefix}leases`;
    this.listExpiryKey = `${this.prefix}list-expiry`;
    this.turnEndedChannel = `${this.prefix}turn-ended`;
    this.eventsChannelPrefix = `${this.prefix}events:`;
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    // Messages published while the connection was down are lost; read them from the streams.
    let connectedBefore = false;
    this.subscriber.on('ready', () => {
      if (!connectedBefore) {
        connectedBefore = true;
        return;
      }
      const names = [...this.feeds.taskIds()].map((taskId) => this.eventsKey(taskId));
      if (this.turnListeners.size > 0) names.push(this.turnEndedChannel);
      const renewed = names.length > 0 ? this.subscriber.subscribe(...names).then(() => undefined) : Promise.resolve();
      void renewed.catch(() => undefined).then(() => this.feeds.readMissed());
    });
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return (await this.read(taskId)).record;
  }

  update(taskId: string, change: (current: TaskRecord | undefined) => TaskChange): Promise<TaskUpdateResult> {
    return this.writer.update(taskId, change);
  }

  /** Writes a change with the update script, if the task is still at `known.rev`: the new revision, or undefined. */
  private async compareAndSet(taskId: string, write: ChangeWrite): Promise<number | undefined> {
    const { record: saved, events, layout } = write;
    const { owner } = saved;
    const { contextId, status } = saved.task;
    const before = write.known.record;
    const keys = {
      task: this.taskKey(taskId),
      events: this.eventsKey(taskId),
      leases: this.leasesKey,
      history: this.historyKey(taskId),
      ownerIndex: this.listKey(owner),
      contextIndex: this.listKey(owner, contextId),
      listExpiry: this.listExpiryKey,
      ownerStateIndex: this.listKey(owner, undefined, status.state),
      contextStateIndex: this.listKey(owner, contextId, status.state),
      queue: this.queueKey,
    };
    const args = updateArguments(
      keys,
      {
        rev: write.known.rev,
        head: headOf(saved),
        lastEventId: saved.lastEventId,
        final: write.final,
        retentionMs: this.retentionMs,
        // A turn handed over holds a lease that has run out: the next claim takes it.
        leaseMs: write.handedOver ? 0 : this.leaseMs,
        maxEvents: this.maxEventsPerTask,
        taskId,
        eventsChannel: keys.events,
        turnEndedChannel: this.turnEndedChannel,
        turnEnded: write.turnEnded ?? '',
        partsPrefix: this.partsKeyPrefix(taskId),
        artifactIndexes: layout.artifactIndexes,
        rewrite: layout.rewrite,
        // The list indexes move a task when its status changes, not with each chunk; a task
        // answered by a reply alone leaves them (its client never saw a task).
        listScore: saved.replied ? 'x' : before?.task.status === status ? '' : statusMsOf(saved),
        // '' for a new task, or when the state is the same.
        leftState: before && !before.replied && before.task.status.state !== status.state ? before.task.status.state : '',
        holder: saved.holder ?? '',
        queued: write.queued,
        enqueueTurn: write.enqueue?.turn ?? '',
        enqueueAttempt: write.enqueue?.attempt ?? '',
      },
      events,
      layout.ops,
    );
    const [ok, rev] = await this.command('a2aUpdate', () => this.redis.a2aUpdate(...args));
    return ok === 1 ? rev : undefined;
  }

  async eventsAfter(taskId: string, afterId: number): Promise<StoredEvent[] | undefined> {
    const [[, last], [, entries]] = (await this.command('eventsAfter', () =>
      this.redis
        .multi()
        .hget(this.taskKey(taskId), 'last')
        .xrange(this.eventsKey(taskId), `0-${afterId + 1}`, '+')
        .exec(),
    )) as [[unknown, string | null], [unknown, [string, string[]][]]];
    if (last === null) return undefined;
    if (afterId >= Number(last)) return [];
    const events = entries.map(([id, fields]) => ({ id: Number(id.slice(2)), event: JSON.parse(fields[1]!) }));
    // Trimmed past the id asked for: the log no longer reaches back that far.
    return events[0]?.id === afterId + 1 ? events : undefined;
  }

  async subscribe(taskId: string, listener: EventListener): Promise<() => void> {
    const name = this.eventsKey(taskId);
    // From the first event its channel brings: the task's last event id is not read.
    const remove = this.feeds.add(taskId, listener);
    const unsubscribe = () => {
      if (remove()) this.subscriber.unsubscribe(name).catch(() => undefined);
    };
    try {
      // Resolves once Redis has confirmed: every event published from then on reaches us.
      await this.command('subscribe', () => this.subscribeWhenReady(name));
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  /**
   * SET NX: one round trip claims a key that is free; a key that is held is then read (GET), and
   * claimed again should its window have ended in between. Not SET NX GET, which needs Redis 7.
   */
  async claimIdempotencyKey(key: string, claim: IdempotencyClaim, windowMs: number): Promise<IdempotencyClaim | undefined> {
    const name = `${this.prefix}idempotency:${key}`;
    const text = claimText(claim);
    for (let attempt = 1; ; attempt++) {
      const set = await this.command('claimIdempotencyKey', () => this.redis.set(name, text, 'PX', Math.ceil(windowMs), 'NX'));
      if (set !== null) return undefined;
      const held = await this.command('claimIdempotencyKey', () => this.redis.get(name));
      if (held !== null) return claimOf(held);
      if (attempt === 3) throw A2AError.resourceUnavailable('an idempotency key is being claimed and released too fast to read');
    }
  }

  async renewLeases(taskIds: readonly string[], holder?: string): Promise<void> {
    if (taskIds.length === 0) return;
    for (const taskId of taskIds) checkTaskId(taskId);
    await this.command('a2aRenew', () =>
      this.redis.a2aRenew(this.leasesKey, this.leaseMs, holder ?? '', `${this.prefix}task:`, ...taskIds),
    );
  }

  async claimExpiredLeases(): Promise<string[]> {
    return this.command('a2aClaim', () => this.redis.a2aClaim(this.leasesKey, this.leaseMs, CLAIM_BATCH, `${this.prefix}task:`));
  }

  async onTurnEnded(listener: (ended: TurnEnded) => void): Promise<() => void> {
    this.turnListeners.add(listener);
    if (this.turnListeners.size === 1) await this.command('subscribe', () => this.subscribeWhenReady(this.turnEndedChannel));
    return () => {
      this.turnListeners.delete(listener);
      if (this.turnListeners.size === 0) this.subscriber.unsubscribe(this.turnEndedChannel).catch(() => undefined);
    };
  }

  /**
   * First the entries another worker read more than a lease ago and never settled (it died before
   * it claimed their turns: XAUTOCLAIM), then new ones (XREADGROUP, blocking for `waitMs` at most,
   * on a connection of its own). An entry whose fields are gone (deleted meanwhile) is skipped.
   */
  async takeQueuedTurns(worker: string, max: number, waitMs: number): Promise<QueuedTurn[]> {
    const taker = (this.taker ??= this.takerConnection());
    await (this.groupMade ??= this.makeGroup().catch((error: unknown) => {
      this.groupMade = undefined;
      throw error;
    }));
    const taken: QueuedTurn[] = [];
    const [, stale] = (await this.command('xautoclaim', () =>
      taker.xautoclaim(this.queueKey, WORKERS_GROUP, worker, this.leaseMs, '0-0', 'COUNT', max),
    )) as [string, ([string, string[] | null] | null)[]];
    for (const entry of stale) {
      const turn = entry && queuedTurnOf(entry[0], entry[1]);
      if (turn) taken.push(turn);
    }
    if (taken.length > 0) return taken;
    // Blocking for less than a command may take: the read is not cut as a timeout.
    const block = Math.max(1, Math.min(Math.floor(waitMs), Math.floor(this.commandTimeoutMs / 2)));
    const read = (await this.command('xreadgroup', () =>
      taker.xreadgroup('GROUP', WORKERS_GROUP, worker, 'COUNT', max, 'BLOCK', block, 'STREAMS', this.queueKey, '>'),
    )) as [string, [string, string[]][]][] | null;
    for (const [id, fields] of read?.[0]?.[1] ?? []) {
      const turn = queuedTurnOf(id, fields);
      if (turn) taken.push(turn);
    }
    return taken;
  }

  async settleQueuedTurn(taken: QueuedTurn): Promise<void> {
    await this.command('settleQueuedTurn', () =>
      this.redis.multi().xack(this.queueKey, WORKERS_GROUP, taken.entry).xdel(this.queueKey, taken.entry).exec(),
    );
  }

  async queueFigures(): Promise<TurnQueueFigures> {
    const [, depth, age] = await this.command('queueFigures', () => this.redis.a2aQueueFigures(this.workersKey, this.queueKey));
    return { depth, oldestAgeMs: Math.max(0, age) };
  }

  async heartbeatWorker(worker: string, ttlMs: number): Promise<void> {
    await this.command('heartbeatWorker', () => this.redis.a2aHeartbeat(this.workersKey, worker, Math.max(0, Math.ceil(ttlMs))));
  }

  async liveWorkers(): Promise<number> {
    const [live] = await this.command('liveWorkers', () => this.redis.a2aQueueFigures(this.workersKey, this.queueKey));
    return live;
  }

  /** The consumer group of the turn queue, from its first entry (entries queued before it are read too). */
  private async makeGroup(): Promise<void> {
    // Not through `command`: a group made already (by another worker) is no failure to count.
    const made = this.redis.xgroup('CREATE', this.queueKey, WORKERS_GROUP, '0', 'MKSTREAM').then(
      () => undefined,
      (error: Error) => {
        if (!error.message.startsWith('BUSYGROUP')) throw error;
      },
    );
    await this.command('xgroup', () => made);
  }

  private takerConnection(): Redis {
    const taker = this.redis.duplicate();
    taker.on('error', () => undefined);
    return taker;
  }

  describe(): string {
    return `shared in Redis under ${this.prefix} (lease ${this.leaseMs} ms)`;
  }

  /**
   * Closes both connections, waiting for commands already sent. While Redis is unreachable,
   * QUIT cannot be sent: the connection is then dropped, so no reconnection timer stays behind.
   */
  async close(): Promise<void> {
    this.feeds.clear();
    this.turnListeners.clear();
    await Promise.all(
      [this.redis, this.subscriber, ...(this.taker ? [this.taker] : [])].map(async (connection) => {
        await connection.quit().catch(() => undefined);
        connection.disconnect();
      }),
    );
  }

  /**
   * SUBSCRIBE only on a ready connection: sent during ioredis's connection handshake, it puts
   * the connection in subscriber mode before the handshake's own commands, which then fail.
   */
  private async subscribeWhenReady(channel: string): Promise<void> {
    const connection = this.subscriber;
    if (connection.status !== 'ready') {
      await new Promise<void>((resolve, reject) => {
        const onReady = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          connection.off('ready', onReady);
          reject(new Error(`not connected within ${this.commandTimeoutMs} ms`));
        }, this.commandTimeoutMs);
        connection.once('ready', onReady);
      });
    }
    await connection.subscribe(channel);
  }

  /**
   * A page of an owner's tasks from the list indexes this store keeps with each change (sorted
   * sets by status time: one per owner, per owner and context, per owner and state, and per all
   * three), so that a call reads the index of its filters from where its page starts: never a
   * scan of the keys, nor of the tasks that do not match.
   */
  async listTasks(query: TaskListQuery): Promise<TaskListPage> {
    while (
      (await this.command('a2aPruneList', () => this.redis.a2aPruneList(this.listExpiryKey, LIST_BATCH, ...FINAL_STATES))) === LIST_BATCH
    );
    const index = this.listKey(query.owner, query.contextId, query.state);
    const min = query.statusAtOrAfterMs ?? '-inf';
    const total = await this.command('zcount', () => this.redis.zcount(index, min, '+inf'));
    const records: TaskRecord[] = [];
    let lastAt: TaskListCursor | undefined;
    const after = query.after;
    for (let offset = 0; ; offset += LIST_BATCH) {
      const batch = await this.command('zrevrangebyscore', () =>
        this.redis.zrevrangebyscore(index, after ? after.statusMs : '+inf', min, 'WITHSCORES', 'LIMIT', offset, LIST_BATCH),
      );
      for (let i = 0; i < batch.length; i += 2) {
        const at = { taskId: batch[i]!, statusMs: Number(batch[i + 1]) };
        if (after && !(at.statusMs < after.statusMs || Buffer.compare(Buffer.from(at.taskId), Buffer.from(after.taskId)) < 0)) continue;
        const record = await this.get(at.taskId);
        if (!record) {
          // Gone without its expiry being recorded (evicted by Redis, deleted by hand): out of the list too.
          await this.command('zrem', () => this.redis.zrem(index, at.taskId));
          continue;
        }
        // One more task than the page holds (or one that does not fit): the next page starts there.
        if (records.length === query.pageSize || (query.accept && !query.accept(record))) return { records, total, next: lastAt };
        records.push(record);
        lastAt = at;
      }
      if (batch.length < 2 * LIST_BATCH) return { records, total };
    }
  }

  /**
   * The list index of an owner's tasks (undefined: tasks created without authentication), of its
   * tasks in one context, in one state, or both. The update script finds a task's index of
   * another state by appending `:s:<state>` to the index without one.
   */
  private listKey(owner: string | undefined, contextId?: string, state?: string): string {
    const ownerPart = owner === undefined ? '-' : `o:${encodeURIComponent(owner)}`;
    const contextPart = contextId === undefined ? '' : `:c:${encodeURIComponent(contextId)}`;
    return `${this.prefix}list:${ownerPart}${contextPart}${state === undefined ? '' : `:s:${state}`}`;
  }

  private taskKey(taskId: string): string {
    checkTaskId(taskId);
    return `${this.prefix}task:${taskId}`;
  }

  private eventsKey(taskId: string): string {
    checkTaskId(taskId);
    return `${this.prefix}events:${taskId}`;
  }

  private historyKey(taskId: string): string {
    checkTaskId(taskId);
    return `${this.prefix}history:${taskId}`;
  }

  /** The key of the artifact at index N is this followed by N. */
  private partsKeyPrefix(taskId: string): string {
    checkTaskId(taskId);
    return `${this.prefix}parts:${taskId}:`;
  }

  /** The task as stored now, assembled from its keys in one atomic read. */
  private async read(taskId: string): Promise<TaskRevision> {
    const [rev, head, olderRecord, history, parts] = await this.command('a2aRead', () =>
      this.redis.a2aRead(this.taskKey(taskId), this.historyKey(taskId), this.partsKeyPrefix(taskId)),
    );
    if (head !== null) return { rev: Number(rev), record: recordFromLayout(head, history ?? [], (_, i) => parts?.[i]), laidOut: true };
    return { rev: Number(rev), record: olderRecord ? recordStoredWhole(olderRecord) : undefined, laidOut: false };
  }

  /**
   * Runs a Redis command; a failure of Redis becomes -32011 for the client. Timed for the metrics,
   * and a span of the call that caused it (none for the process's own work, such as leases).
   */
  private command<T>(name: string, run: () => Promise<T>): Promise<T> {
    const metrics = this.metrics;
    return databaseCall({ system: 'redis', shownAs: 'Redis' }, name, run, {
      ...(metrics && { record: (seconds: number, failed: boolean) => metrics.redisCommand(name, seconds, failed) }),
      // Our own refusals (a task id that cannot be a key) pass as they are; Redis failures are -32011.
      classify: (error) => (error instanceof A2AError ? 'own' : 'unavailable'),
    });
  }

  /**
   * Resolves when Redis answers a PING within `commandTimeoutMs`. While the connection is down
   * the PING fails as soon as a reconnection attempt does (commands are not retried).
   */
  async ping(): Promise<void> {
    // Not through `command`: the readiness check says what is wrong with Redis, not a client's -32011.
    try {
      await this.redis.ping();
    } catch (error) {
      const { status } = this.redis;
      throw new Error(status === 'ready' ? `Redis did not answer PING: ${(error as Error).message}` : `no connection to Redis (${status})`);
    }
  }

  useMetrics(metrics: StoreMetrics): () => void {
    this.metrics = metrics;
    return () => {
      if (this.metrics === metrics) this.metrics = undefined;
    };
  }

  private receive(name: string, message: string): void {
    if (name === this.turnEndedChannel) {
      const ended = JSON.parse(message) as TurnEnded;
      for (const listener of this.turnListeners) listener(ended);
      return;
    }
    if (!name.startsWith(this.eventsChannelPrefix)) return;
    const taskId = name.slice(this.eventsChannelPrefix.length);
    const newline = message.indexOf('\n');
    // Delivered already, as this process wrote them (TaskFeeds.wrote).
    if (this.feeds.delivered(taskId, Number(message.slice(0, newline)))) return;
    this.feeds.heard(taskId, JSON.parse(message.slice(newline + 1)) as StoredEvent[]);
  }
}

/** A turn queue entry's turn, from its fields (`t` task id, `n` turn, `a` attempt); undefined for one without them. */
function queuedTurnOf(entry: string, fields: readonly string[] | null): QueuedTurn | undefined {
  if (!fields) return undefined;
  const value: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) value[fields[i]!] = fields[i + 1]!;
  const turn = Number(value.n);
  const attempt = Number(value.a);
  if (value.t === undefined || !Number.isInteger(turn) || !Number.isInteger(attempt)) return undefined;
  return { taskId: value.t, turn, attempt, entry };
}
