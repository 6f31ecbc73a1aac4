// A task store in Redis, shared by every replica of an agent. Each task is a hash (a revision
// number and the small part of its record), lists for what grows (its history, each artifact's
// parts; task-layout.ts), its events a Redis Stream whose entry ids are the SSE ids (`0-N` for
// event N), and its live events a pub/sub channel. A change is computed in this process from the
// record it last saw and written by a Lua script only if the revision is still the one it was
// computed from (compare-and-set); otherwise the record is read again and the change computed
// again. So updates from several replicas never overwrite each other, and one task's events
// keep their order. An event appends to the lists rather than rewriting the record, so its cost
// does not grow with the length of the task (task-layout.ts).
//
// Keys of one task, under the store's prefix:
//   task:<id>             hash: rev (compare-and-set revision), head (the record but its history
//                         and its artifacts' parts, as JSON), last (last event id), artifacts
//                         (the artifacts' indexes in order, space-separated); a record of an
//                         older version, one JSON string in its `record` field instead
//   history:<id>          list: one message (JSON) per element, oldest first
//   parts:<id>:<index>    list per artifact: JSON arrays of parts, concatenated in order
//   events:<id>           stream of the events, entry id 0-N for event N (the SSE id), trimmed
import type { StoreMetrics } from '../telemetry/metrics.js';
import { A2AError } from 'a2a-types/model';
import { FINAL_STATES, isFinalState } from '../model/task.js';
import { Redis, type RedisOptions } from 'ioredis';
import { databaseCall } from './database-call.js';
import { settleChange } from '../model/fold.js';
import { mergeGrowingArtifact } from './growing-artifacts.js';
import { checkTaskId } from '../model/ids.js';
import {
  upgradeRecord,
  type EventListener,
  type StoredEvent,
  type TaskChange,
  type TaskRecord,
  type TaskUpdateResult,
} from '../model/record.js';
import { headOf, planWrite, recordFromLayout } from './task-layout.js';
import { CLAIM_SCRIPT, PRUNE_LIST_SCRIPT, READ_SCRIPT, RENEW_SCRIPT, UPDATE_SCRIPT } from './redis-scripts.js';
import {
  OneAtATimePerTask,
  positiveOption,
  statusMsOf,
  turnEndedBy,
  type SharedTaskStore,
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

/**
 * Most compare-and-set rounds for one update before giving up. Each lost round is another
 * process's update landing, so this bounds how long a busy writer elsewhere can delay this one.
 */
const MAX_UPDATE_ATTEMPTS = 200;
/** Records kept of this process's own writes, so that an update needs no read first. */
const MAX_CACHED_RECORDS = 10_000;
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
}

/** A revision of a task as some process read or wrote it. */
interface Known {
  rev: number;
  record: TaskRecord | undefined;
  /** False for a record an older version of the store wrote (one JSON string): its next change rewrites it. */
  laidOut: boolean;
}

/** The subscribers of one task's channel, and the newest event id they were given. */
interface Channel {
  readonly taskId: string;
  readonly listeners: Set<EventListener>;
  last: number | undefined;
  /** Messages that arrived while a gap was being filled from the stream. */
  held: StoredEvent[][] | undefined;
}

/**
 * A {@link SharedTaskStore} in Redis (standalone or a primary with replicas; not Redis
 * Cluster, whose slots the scripts' keys would cross). Every error of Redis itself is answered
 * -32011 (resource unavailable) to the client.
 */
export class RedisTaskStore implements SharedTaskStore {
  readonly prefix: string;
  readonly retentionMs: number;
  readonly maxEventsPerTask: number;
  readonly leaseMs: number;
  readonly commandTimeoutMs: number;
  /** Commands; every task operation goes through it. */
  readonly redis: ScriptedRedis;
  /** Subscriptions only (a connection in subscriber mode can do nothing else). */
  private readonly subscriber: Redis;
  private readonly written = new Map<string, Known>();
  /** This process's updates of each task, one at a time. */
  private readonly updating = new OneAtATimePerTask();
  private readonly channels = new Map<string, Channel>();
  private readonly turnListeners = new Set<(ended: TurnEnded) => void>();
  private readonly leasesKey: string;
  private readonly listExpiryKey: string;
  private readonly turnEndedChannel: string;
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
    this.redis.defineCommand('a2aUpdate', { numberOfKeys: 9, lua: UPDATE_SCRIPT });
    this.redis.defineCommand('a2aPruneList', { numberOfKeys: 1, lua: PRUNE_LIST_SCRIPT });
    this.redis.defineCommand('a2aRead', { numberOfKeys: 2, lua: READ_SCRIPT });
    this.redis.defineCommand('a2aRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    this.redis.defineCommand('a2aClaim', { numberOfKeys: 1, lua: CLAIM_SCRIPT });
    this.leasesKey = `${this.prefix}leases`;
    this.listExpiryKey = `${this.prefix}list-expiry`;
    this.turnEndedChannel = `${this.prefix}turn-ended`;
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    // Messages published while the connection was down are lost; read them from the streams.
    let connectedBefore = false;
    this.subscriber.on('ready', () => {
      if (!connectedBefore) {
        connectedBefore = true;
        return;
      }
      const names = [...this.channels.keys(), ...(this.turnListeners.size > 0 ? [this.turnEndedChannel] : [])];
      const renewed = names.length > 0 ? this.subscriber.subscribe(...names).then(() => undefined) : Promise.resolve();
      void renewed
        .catch(() => undefined)
        .then(() => {
          for (const channel of this.channels.values()) this.catchUp(channel, []);
        });
    });
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return (await this.read(taskId)).record;
  }

  /**
   * Updates of one task from this process run one after the other, so they never race each
   * other for the revision; only other processes' writes can make an attempt start again.
   */
  update(taskId: string, change: (current: TaskRecord | undefined) => TaskChange): Promise<TaskUpdateResult> {
    return this.updating.run(taskId, () => this.compareAndSet(taskId, change));
  }

  private async compareAndSet(taskId: string, change: (current: TaskRecord | undefined) => TaskChange): Promise<TaskUpdateResult> {
    let known = this.written.get(taskId) ?? (await this.read(taskId));
    for (let attempt = 1; ; attempt++) {
      const taskChange = change(known.record);
      // The in-memory store's merge: appending a chunk costs the chunk, not the artifact.
      const { record: saved, events: stored } = settleChange(known.record, taskChange, mergeGrowingArtifact);
      const layout = planWrite(known.record, known.laidOut, taskChange, saved);
      const final = isFinalState(saved.task.status.state);
      const ended = turnEndedBy(taskId, known.record, saved);
      const args: (string | number)[] = [
        this.taskKey(taskId),
        this.eventsKey(taskId),
        this.leasesKey,
        this.historyKey(taskId),
        this.listKey(saved.owner),
        this.listKey(saved.owner, saved.task.contextId),
        this.listExpiryKey,
        this.listKey(saved.owner, undefined, saved.task.status.state),
        this.listKey(saved.owner, saved.task.contextId, saved.task.status.state),
        known.rev,
        headOf(saved),
        saved.lastEventId,
        final ? 1 : 0,
        this.retentionMs,
        this.leaseMs,
        this.maxEventsPerTask,
        taskId,
        this.eventsKey(taskId),
        this.turnEndedChannel,
        ended ? JSON.stringify(ended) : '',
        this.partsKeyPrefix(taskId),
        layout.artifactIndexes,
        layout.rewrite ? 1 : 0,
        // The list indexes move a task when its status changes, not with each chunk; a task
        // answered by a reply alone leaves them (its client never saw a task).
        saved.replied ? 'x' : known.record?.task.status === saved.task.status ? '' : statusMsOf(saved),
        // The state whose indexes the task leaves; '' for a new task, or when the state is the same.
        known.record && !known.record.replied && known.record.task.status.state !== saved.task.status.state
          ? known.record.task.status.state
          : '',
        stored.length,
      ];
      for (const { id, event } of stored) args.push(`0-${id}`, JSON.stringify(event));
      for (const op of layout.ops) args.push(op);
      const [ok, rev] = await this.command('a2aUpdate', () => this.redis.a2aUpdate(...args));
      if (ok === 1) {
        this.remember(taskId, final ? undefined : { rev, record: saved, laidOut: true });
        this.deliverOwn(taskId, stored);
        return { record: saved, events: stored };
      }
      this.written.delete(taskId);
      if (attempt >= MAX_UPDATE_ATTEMPTS) {
        throw A2AError.resourceUnavailable(`task ${taskId} is being changed by too many processes at once`);
      }
      known = await this.read(taskId);
    }
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
    let channel = this.channels.get(name);
    if (!channel) {
      channel = { taskId, listeners: new Set(), last: undefined, held: undefined };
      this.channels.set(name, channel);
    }
    channel.listeners.add(listener);
    const unsubscribe = () => {
      channel.listeners.delete(listener);
      if (channel.listeners.size > 0 || this.channels.get(name) !== channel) return;
      this.channels.delete(name);
      this.subscriber.unsubscribe(name).catch(() => undefined);
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

  async renewLeases(taskIds: readonly string[]): Promise<void> {
    if (taskIds.length === 0) return;
    await this.command('a2aRenew', () => this.redis.a2aRenew(this.leasesKey, this.leaseMs, ...taskIds));
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

  describe(): string {
    return `shared in Redis under ${this.prefix} (lease ${this.leaseMs} ms)`;
  }

  /**
   * Closes both connections, waiting for commands already sent. While Redis is unreachable,
   * QUIT cannot be sent: the connection is then dropped, so no reconnection timer stays behind.
   */
  async close(): Promise<void> {
    this.channels.clear();
    this.turnListeners.clear();
    await Promise.all(
      [this.redis, this.subscriber].map(async (connection) => {
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
  private async read(taskId: string): Promise<Known> {
    const [rev, head, olderRecord, history, parts] = await this.command('a2aRead', () =>
      this.redis.a2aRead(this.taskKey(taskId), this.historyKey(taskId), this.partsKeyPrefix(taskId)),
    );
    if (head !== null) return { rev: Number(rev), record: recordFromLayout(head, history ?? [], (_, i) => parts?.[i]), laidOut: true };
    return { rev: Number(rev), record: olderRecord ? upgradeRecord(JSON.parse(olderRecord) as TaskRecord) : undefined, laidOut: false };
  }

  /** Keeps what this process wrote of a running task, for its next update; forgets a finished one. */
  private remember(taskId: string, known: Known | undefined): void {
    this.written.delete(taskId);
    if (!known) return;
    if (this.written.size >= MAX_CACHED_RECORDS) this.written.delete(this.written.keys().next().value!);
    this.written.set(taskId, known);
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
    const channel = this.channels.get(name);
    if (!channel) return;
    const newline = message.indexOf('\n');
    // Delivered already, as this process wrote them (deliverOwn).
    if (!channel.held && channel.last !== undefined && Number(message.slice(0, newline)) <= channel.last) return;
    const events = JSON.parse(message.slice(newline + 1)) as StoredEvent[];
    if (channel.held) channel.held.push(events);
    else if (channel.last !== undefined && events[0]!.id > channel.last + 1) this.catchUp(channel, [events]);
    else this.deliver(channel, events);
  }

  /**
   * Some events were not received (a message lost while reconnecting): reads the task's log
   * after the last one delivered, delivers it, then what arrived meanwhile, in order.
   */
  private catchUp(channel: Channel, held: StoredEvent[][]): void {
    if (channel.held) return;
    channel.held = held;
    void this.eventsAfter(channel.taskId, channel.last ?? 0)
      .catch(() => undefined)
      .then((missed) => {
        const waiting = channel.held ?? [];
        channel.held = undefined;
        if (missed) this.deliver(channel, missed);
        for (const events of waiting) this.deliver(channel, events);
      });
  }

  /**
   * Hands the events this process just wrote to its own subscribers at once, rather than when
   * Redis publishes them back: unless events of another writer may come before them (a gap after
   * the last delivered), which the published messages then bring in order.
   */
  private deliverOwn(taskId: string, events: readonly StoredEvent[]): void {
    const channel = this.channels.get(this.eventsKey(taskId));
    if (!channel || channel.held || channel.last === undefined || events[0]?.id !== channel.last + 1) return;
    this.deliver(channel, events);
  }

  private deliver(channel: Channel, events: readonly StoredEvent[]): void {
    for (const event of events) {
      if (channel.last !== undefined && event.id <= channel.last) continue;
      channel.last = event.id;
      for (const listener of [...channel.listeners]) listener(event);
    }
  }
}
