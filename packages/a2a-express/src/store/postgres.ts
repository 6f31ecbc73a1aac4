// The PostgreSQL task store (a2a-express/postgres): tasks and their numbered events in tables of
// their own (migrations/postgres). A change is one statement, which writes the task only if its
// revision is still the one the change was computed from (compare-and-set: shared-store.ts does
// the rest, as for Redis). So any number of processes may write one task, its events numbered
// without gaps, and no row lock is held across round trips. Subscribers of every process hear of
// new events through LISTEN/NOTIFY (the payload names the task, by a digest of its id: a payload
// holds 8,000 bytes at most, an id may be longer) and read the events themselves, so a missed or
// late notification delays an event but never loses or reorders it.
//
// Replicas of one agent may share it (`SharedTaskStore`): a running task holds a lease (a column)
// that its process renews, a replica claims and fails a task whose lease ran out, and a turn
// canceled or failed anywhere is announced on a second channel, so that its process aborts it.
// Given a key, it keeps push configs sealed (sealed-push-configs.ts) in a column of their own.
//
// What grows in a task (its history, each artifact's parts) is rows a change appends to, beside a
// small head in the task's row (task-layout.ts, shared with the Redis store), and the process
// keeps the record it wrote last: a change of a task it is running reads nothing, and one event
// costs the same statement and WAL at the 4,000th chunk of a stream as at the 10th.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { A2AError } from 'a2a-types/model';
import pg from 'pg';
import type { Logger } from 'pino';
import type { StoreMetrics } from '../telemetry/metrics.js';
import { databaseCall } from './database-call.js';
import { headOf, recordFromLayout, recordStoredWhole, type LayoutWrite } from './task-layout.js';
import { PushConfigSeal, type PushConfigKey, PushConfigsUnopenable, unopenable } from './sealed-push-configs.js';
import { checkTaskId } from '../model/ids.js';
import type {
  EventListener,
  StoredEvent,
  StoredTurnOpening,
  TaskChange,
  TaskHead,
  TaskRecord,
  TaskUpdateOptions,
  TaskUpdateResult,
} from '../model/record.js';
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
  type TaskListPage,
  type TaskListQuery,
  type TurnEnded,
} from './task-store.js';

export interface PostgresTaskStoreOptions {
  /** Where the database is (`postgres://user:password@host:5432/database`); or give `pool`. */
  connectionString?: string;
  /** A pool of your own (the store then leaves it open when it closes). */
  pool?: pg.Pool;
  /** The schema of the store's tables; default `public`. Created by the migrations when missing. */
  schema?: string;
  /** Runs the migrations the schema lacks when the store is first used; default true. See `migratePostgres`. */
  migrate?: boolean;
  /** The most events kept of a task (the newest); default 1,000. Older ones cannot be resumed from. */
  maxEventsPerTask?: number;
  /** How long a finished task is kept after it finished; default one hour. */
  retentionMs?: number;
  /**
   * How long a running task's lease lasts without renewal, ms; default 15,000. Its process renews
   * it every third of that; a replica fails a task whose lease ran out (its process died).
   */
  leaseMs?: number;
  /** Connections of the pool the store makes; default 10. Subscribers share one more, whatever their number. */
  maxConnections?: number;
  /**
   * Seals each task's push configs (their URLs, tokens and credentials) at rest, AES-256-GCM: a
   * key of 32 bytes (a Buffer, or base64 or hex), or several to rotate, the first sealing and all
   * opening. Without one, push configs are kept in the record as they came.
   */
  pushConfigKey?: PushConfigKey | readonly PushConfigKey[];
  logger?: Logger;
}

/** Where the migrations are: the package's `migrations/postgres`, beside `dist` and `src`. */
const MIGRATIONS = new URL('../../migrations/postgres/', import.meta.url);

/** The migrations shipped, in order: `NNN_name.sql`. */
function migrationFiles(): { version: number; name: string; sql: string }[] {
  return readdirSync(MIGRATIONS)
    .filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 3)), name: file, sql: readFileSync(new URL(file, MIGRATIONS), 'utf8') }));
}

/**
 * Brings the schema's tables to the newest version shipped: each missing migration in a
 * transaction of its own, recorded in `a2a_migrations`. Under an advisory lock, so that replicas
 * starting at once migrate once; a second run changes nothing. Returns the migrations it ran.
 */
export async function migratePostgres(database: pg.Pool | string, schema = 'public'): Promise<string[]> {
  const pool = typeof database === 'string' ? new pg.Pool({ connectionString: database, max: 1 }) : database;
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    if (typeof database === 'string') await pool.end();
    throw error;
  }
  const ran: string[] = [];
  const lock = `a2a-express migrations ${schema}`;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lock]);
    const qualified = client.escapeIdentifier(schema);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${qualified}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${qualified}.a2a_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const applied = new Set(
      (await client.query(`SELECT version FROM ${qualified}.a2a_migrations`)).rows.map((row) => row.version as number),
    );
    for (const migration of migrationFiles()) {
      if (applied.has(migration.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO ${qualified}`);
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${qualified}.a2a_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      ran.push(migration.name);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]).catch(() => undefined);
    client.release();
    if (typeof database === 'string') await pool.end();
  }
  return ran;
}

/** A task's row as read: its head (or a whole record not laid out yet) and the rows of what grows. */
interface TaskRow {
  task_id: string;
  record: string;
  laid_out: boolean;
  rev: number;
  push_configs: string | null;
  /** The messages' JSON, oldest first, each apart from the next by U+0001; null for none. */
  history: string | null;
  part_indexes: number[];
  /** The parts' JSON arrays in the order of `part_indexes`, apart by U+0001; null for none. */
  parts: string | null;
}

/** What stands between the pieces of a task's history and parts as read (chr(1) in the statement). */
const PIECES_APART = '\u0001';

/** Most expired leases claimed in one sweep. */
const CLAIM_BATCH = 100;

export class PostgresTaskStore implements SharedTaskStore, TurnQueue {
  readonly schema: string;
  readonly leaseMs: number;
  readonly maxEventsPerTask: number;
  readonly retentionMs: number;
  private readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly logger: Logger | undefined;
  private readonly migrate: boolean;
  private readonly seal: PushConfigSeal | undefined;
  /** Each running turn's sealed opening and checkpoint, by its opening (see sealedTurn). */
  private readonly sealedTurns = new WeakMap<object, { taskId: string; checkpoint: unknown; value: { sealed: string } }>();
  private metrics: StoreMetrics | undefined;
  /** The migrations run, once they have; a run that failed (the database away) is tried again on the next use. */
  private migrated: Promise<void> | undefined;
  private readonly tables: { tasks: string; events: string; history: string; parts: string; queue: string; workers: string };
  /** The columns that make a task's record, of a2a_tasks as `t`. */
  private readonly recordColumns: string;
  /**
   * Changes by compare-and-set. A task this process has no record of is taken for a new one and
   * created without a read first: most are (a send that starts a task); for one that exists, the
   * create writes nothing, and the task is read.
   */
  private readonly writer = new RevisionWriter(
    {
      read: (taskId, checkHead) => this.readChecked(taskId, checkHead),
      compareAndSet: (taskId, write) => this.compareAndSet(taskId, write),
    },
    { createsWithoutRead: true, written: (taskId, events) => this.feeds.wrote(taskId, events) },
  );
  /**
   * The statements of the hot paths, prepared once per connection (named): a change of a task,
   * of a new task, and a read of a task.
   */
  private readonly statements: { change: pg.QueryConfig; create: pg.QueryConfig; read: pg.QueryConfig; readHead: pg.QueryConfig };
  /** Claims an idempotency key, or reads the claim that holds it (see `claimIdempotencyKey`). */
  private readonly claimStatement: pg.QueryConfig;
  private readonly claimsTable: string;
  private readonly channel: string;
  private readonly turnsChannel: string;
  /** Where a turn queued is announced, so that a worker waiting for one takes it at once. */
  private readonly queueChannel: string;
  /** Workers waiting here for a turn to be queued. */
  private readonly queueWaiters = new Set<() => void>();
  private readonly turnListeners = new Set<(ended: TurnEnded) => void>();
  /** Each task's subscribers here: a notification names the task, whose events are then read. */
  private readonly feeds = new TaskFeeds(
    (taskId, afterId) => this.readEventsAfter(taskId, afterId),
    (error, taskId) => this.logger?.warn({ err: error, taskId }, 'events could not be read'),
  );
  /** The tasks of `feeds` by the digest a notification names them by. */
  private readonly digests = new Map<string, string>();
  private listening: Promise<pg.Client> | undefined;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(options: PostgresTaskStoreOptions) {
    if (!options.pool && !options.connectionString) throw new TypeError('PostgresTaskStore: give connectionString or pool');
    this.seal = options.pushConfigKey === undefined ? undefined : new PushConfigSeal(options.pushConfigKey);
    this.schema = options.schema ?? 'public';
    this.maxEventsPerTask = positiveOption('PostgresTaskStore', 'maxEventsPerTask', options.maxEventsPerTask ?? 1_000);
    this.retentionMs = positiveOption('PostgresTaskStore', 'retentionMs', options.retentionMs ?? 60 * 60 * 1000);
    this.leaseMs = positiveOption('PostgresTaskStore', 'leaseMs', options.leaseMs ?? 15_000);
    this.ownsPool = !options.pool;
    this.pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 10 });
    // A connection that fails while idle in the pool must not take the process down.
    this.pool.on('error', (error) => this.logger?.warn({ err: error }, 'a PostgreSQL connection failed'));
    this.logger = options.logger;
    const schema = pg.escapeIdentifier(this.schema);
    this.tables = {
      tasks: `${schema}.a2a_tasks`,
      events: `${schema}.a2a_events`,
      history: `${schema}.a2a_history`,
      parts: `${schema}.a2a_parts`,
      queue: `${schema}.a2a_turn_queue`,
      workers: `${schema}.a2a_workers`,
    };
    // Text, not json: the layout joins the pieces' JSON as it is, parsing it once. The history and
    // the parts come as one text each, their pieces apart by U+0001 (which JSON text never holds
    // unescaped), not as text[]: pg parses an array character by character in JavaScript, about
    // 0.7 s for a task of 16 MB (maxTaskBytes), where splitting the text takes milliseconds.
    this.recordColumns = `t.task_id, t.record::text AS record, t.laid_out, t.rev, t.push_configs,
      (SELECT string_agg(h.message::text, chr(1) ORDER BY h.seq) FROM ${this.tables.history} h WHERE h.task_id = t.task_id) AS history,
      ARRAY(SELECT p.artifact_index FROM ${this.tables.parts} p WHERE p.task_id = t.task_id ORDER BY p.artifact_index, p.seq) AS part_indexes,
      (SELECT string_agg(p.parts::text, chr(1) ORDER BY p.artifact_index, p.seq) FROM ${this.tables.parts} p WHERE p.task_id = t.task_id) AS parts`;
    const { change, create } = changeStatements(this.tables);
    this.statements = {
      change: prepared('change', change),
      create: prepared('create', create),
      read: prepared('read', `SELECT ${this.recordColumns} FROM ${this.tables.tasks} t WHERE t.task_id = $1`),
      // A record kept whole (not laid out) is no head: it is not sent.
      readHead: prepared(
        'read_head',
        `SELECT t.task_id, CASE WHEN t.laid_out THEN t.record::text END AS record, t.push_configs FROM ${this.tables.tasks} t WHERE t.task_id = $1`,
      ),
    };
    this.claimsTable = `${schema}.a2a_idempotency`;
    this.claimStatement = prepared(
      'claim_key',
      `INSERT INTO ${this.claimsTable} AS c (key, claim, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET claim = CASE WHEN c.expires_at <= now() THEN excluded.claim ELSE c.claim END,
         expires_at = CASE WHEN c.expires_at <= now() THEN excluded.expires_at ELSE c.expires_at END
       RETURNING claim`,
    );
    this.channel = `a2a_events:${this.schema}`;
    this.turnsChannel = `a2a_turns:${this.schema}`;
    this.queueChannel = `a2a_queue:${this.schema}`;
    this.migrate = options.migrate !== false;
    // Finished tasks past their retention are also left out where they are read.
    this.sweeper = setInterval(
      () => void this.operation('sweep', () => this.sweep()).catch(() => undefined),
      Math.min(this.retentionMs, 60_000),
    );
    this.sweeper.unref();
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.operation('get', async () => {
      await this.ready();
      if (taskId.includes('\0')) return undefined;
      const found = await this.pool.query(
        `SELECT ${this.recordColumns} FROM ${this.tables.tasks} t WHERE t.task_id = $1 AND (t.finished_at IS NULL OR t.finished_at > now() - $2 * interval '1 millisecond')`,
        [taskId, this.retentionMs],
      );
      return this.recordOf(found.rows[0]);
    });
  }

  async update(
    taskId: string,
    change: (current: TaskRecord | undefined) => TaskChange,
    options?: TaskUpdateOptions,
  ): Promise<TaskUpdateResult> {
    // What the change threw, passed on as it is: the caller's word on the task (a refusal, or that
    // nothing is to be written), never a failure of the database, whatever was thrown.
    let refused: { error: unknown } | undefined;
    const run = async (): Promise<TaskUpdateResult> => {
      await this.ready();
      // As the router does: an id longer than 1,024 characters is refused, so a notice naming it fits a notification.
      checkTaskId(taskId);
      refuseNul(taskId, 'a task id');
      return this.writer.update(taskId, change, options, (error) => {
        refused = { error };
      });
    };
    return this.operation('update', run, (error) => error === refused?.error);
  }

  async eventsAfter(taskId: string, afterId: number): Promise<StoredEvent[] | undefined> {
    return this.operation('eventsAfter', async () => {
      await this.ready();
      if (taskId.includes('\0')) return undefined;
      const found = await this.pool.query(
        `SELECT t.last_event_id, e.event_id, e.event FROM ${this.tables.tasks} t
           LEFT JOIN ${this.tables.events} e ON e.task_id = t.task_id AND e.event_id > $2
         WHERE t.task_id = $1 ORDER BY e.event_id`,
        [taskId, afterId],
      );
      if (found.rows.length === 0) return undefined;
      const last = found.rows[0].last_event_id as number;
      if (afterId >= last) return [];
      // The log must reach back to the event after `afterId`: else the client has missed events.
      if (found.rows[0].event_id !== afterId + 1) return undefined;
      return found.rows.map((row) => ({ id: row.event_id as number, event: row.event }));
    });
  }

  async subscribe(taskId: string, listener: EventListener): Promise<() => void> {
    return this.operation('subscribe', async () => {
      await this.ready();
      // Listening before reading where the task stands: an event committed after the read is heard.
      await this.listen();
      // No task id holding U+0000 is kept (see refuseNul): such a task has no events yet, nor will.
      const found = taskId.includes('\0')
        ? undefined
        : await this.pool.query(`SELECT last_event_id FROM ${this.tables.tasks} WHERE task_id = $1`, [taskId]);
      const from = (found?.rows[0]?.last_event_id as number | undefined) ?? 0;
      const remove = this.feeds.add(taskId, listener, from);
      this.digests.set(digestOf(taskId), taskId);
      return () => {
        if (remove()) this.digests.delete(digestOf(taskId));
      };
    });
  }

  async listTasks(query: TaskListQuery): Promise<TaskListPage> {
    return this.operation('listTasks', async () => {
      await this.ready();
      // No context id holding U+0000 is kept (see refuseNul).
      if (query.contextId?.includes('\0')) return { records: [], total: 0 };
      // Nor any task id: no page this store gave ends at one, so the client made the token up.
      if (query.after?.taskId.includes('\0')) {
        throw A2AError.invalidParams({ reason: 'the page token names a task id holding U+0000: it is not one this agent gave' });
      }
      const filters = ['owner = $1', 'listed', "(finished_at IS NULL OR finished_at > now() - $2 * interval '1 millisecond')"];
      const values: unknown[] = [query.owner ?? '', this.retentionMs];
      const add = (sql: (at: string) => string, value: unknown) => {
        values.push(value);
        filters.push(sql(`$${values.length}`));
      };
      if (query.contextId !== undefined) add((at) => `context_id = ${at}`, query.contextId);
      if (query.state !== undefined) add((at) => `state = ${at}`, query.state);
      if (query.statusAtOrAfterMs !== undefined) add((at) => `status_ms >= ${at}`, query.statusAtOrAfterMs);
      const counted = [...values];
      const where = filters.join(' AND ');
      let pageWhere = where;
      if (query.after) {
        values.push(query.after.statusMs, query.after.taskId);
        pageWhere += ` AND (status_ms, task_id) < ($${values.length - 1}, $${values.length})`;
      }
      values.push(query.pageSize + 1);
      const [page, total] = await Promise.all([
        this.pool.query(
          `SELECT ${this.recordColumns}, t.status_ms FROM ${this.tables.tasks} t WHERE ${pageWhere} ORDER BY t.status_ms DESC, t.task_id DESC LIMIT $${values.length}`,
          values,
        ),
        this.pool.query(`SELECT count(*)::integer AS total FROM ${this.tables.tasks} WHERE ${where}`, counted),
      ]);
      const records: TaskRecord[] = [];
      let last: TaskListPage['next'];
      let next: TaskListPage['next'];
      for (const row of page.rows) {
        const record = this.recordOf(row)!;
        if (records.length === query.pageSize || (query.accept && !query.accept(record))) {
          next = last;
          break;
        }
        records.push(record);
        // bigint comes back as a string: a status time is well within a double's integers.
        last = { statusMs: Number(row.status_ms), taskId: row.task_id as string };
      }
      const found = { records, total: total.rows[0].total as number };
      return next ? { ...found, next } : found;
    });
  }

  /**
   * One statement claims a key that is free or whose window has ended, or reads the claim that
   * holds it. ON CONFLICT DO UPDATE, not DO NOTHING: it waits for a claim of the same key being
   * made at the same moment and returns it, where DO NOTHING would leave a reader whose snapshot
   * predates it nothing to read. The claim returned is this one's when it was taken.
   */
  async claimIdempotencyKey(key: string, claim: IdempotencyClaim, windowMs: number): Promise<IdempotencyClaim | undefined> {
    return this.operation('claimIdempotencyKey', async () => {
      await this.ready();
      const text = claimText(claim);
      const found = await this.pool.query({ ...this.claimStatement, values: [key, text, Math.ceil(windowMs)] });
      const held = found.rows[0].claim as string;
      return held === text ? undefined : claimOf(held);
    });
  }

  async renewLeases(taskIds: readonly string[], holder?: string): Promise<void> {
    if (taskIds.length === 0) return;
    return this.operation('renewLeases', async () => {
      await this.ready();
      // Only leases of turns this process runs (or of turns that name no process).
      await this.pool.query(
        `UPDATE ${this.tables.tasks} SET lease_until = now() + $2 * interval '1 millisecond'
         WHERE task_id = ANY($1) AND lease_until IS NOT NULL AND ($3::text IS NULL OR holder IS NULL OR holder = $3::text)`,
        [taskIds, this.leaseMs, holder ?? null],
      );
    });
  }

  async claimExpiredLeases(): Promise<string[]> {
    return this.operation('claimExpiredLeases', async () => {
      await this.ready();
      // Each expired lease claimed for one more period, by one replica: the rows another replica
      // is claiming at the same moment are skipped.
      const claimed = await this.pool.query(
        `UPDATE ${this.tables.tasks} SET lease_until = now() + $1 * interval '1 millisecond'
         WHERE task_id IN (SELECT task_id FROM ${this.tables.tasks} WHERE lease_until < now() ORDER BY lease_until LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING task_id`,
        [this.leaseMs, CLAIM_BATCH],
      );
      return claimed.rows.map((row) => row.task_id as string);
    });
  }

  async onTurnEnded(listener: (ended: TurnEnded) => void): Promise<() => void> {
    return this.operation('onTurnEnded', async () => {
      await this.ready();
      await this.listen();
      this.turnListeners.add(listener);
      return () => this.turnListeners.delete(listener);
    });
  }

  /**
   * Rows of the turn queue no worker holds (or whose worker took them more than a lease ago and
   * never deleted them), oldest first, marked taken by `worker`: FOR UPDATE SKIP LOCKED, so that
   * workers taking at the same moment take different rows. With none, waits for a notification of
   * one queued (or `waitMs`) and tries once more.
   */
  async takeQueuedTurns(worker: string, max: number, waitMs: number): Promise<QueuedTurn[]> {
    return this.operation('takeQueuedTurns', async () => {
      await this.ready();
      await this.listen();
      // Waiting from before the first try: a turn queued between it and the wait is not missed.
      let wake!: () => void;
      const queuedMeanwhile = new Promise<void>((resolve) => (wake = resolve));
      this.queueWaiters.add(wake);
      const timer = setTimeout(wake, Math.max(0, waitMs));
      try {
        const taken = await this.takeRows(worker, max);
        if (taken.length > 0 || waitMs <= 0) return taken;
        await queuedMeanwhile;
        return this.closed ? [] : await this.takeRows(worker, max);
      } finally {
        clearTimeout(timer);
        this.queueWaiters.delete(wake);
      }
    });
  }

  private async takeRows(worker: string, max: number): Promise<QueuedTurn[]> {
    const { queue } = this.tables;
    const found = await this.pool.query(
      `UPDATE ${queue} SET taken_by = $1, taken_at = now()
       WHERE entry IN (SELECT entry FROM ${queue} WHERE taken_by IS NULL OR taken_at < now() - $3 * interval '1 millisecond'
                       ORDER BY entry LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING entry::text AS entry, task_id, turn, attempt`,
      [worker, max, this.leaseMs],
    );
    return found.rows
      .map((row) => ({
        taskId: row.task_id as string,
        turn: row.turn as number,
        attempt: row.attempt as number,
        entry: row.entry as string,
      }))
      .sort((a, b) => Number(a.entry) - Number(b.entry));
  }

  async settleQueuedTurn(taken: QueuedTurn): Promise<void> {
    return this.operation('settleQueuedTurn', async () => {
      await this.ready();
      await this.pool.query(`DELETE FROM ${this.tables.queue} WHERE entry = $1::bigint`, [taken.entry]);
    });
  }

  async queueFigures(): Promise<TurnQueueFigures> {
    return this.operation('queueFigures', async () => {
      await this.ready();
      const found = await this.pool.query(
        `SELECT count(*)::integer AS depth, coalesce(extract(epoch FROM now() - min(queued_at)) * 1000, 0)::float8 AS age FROM ${this.tables.queue}`,
      );
      return { depth: found.rows[0].depth as number, oldestAgeMs: Math.max(0, Math.round(found.rows[0].age as number)) };
    });
  }

  async heartbeatWorker(worker: string, ttlMs: number): Promise<void> {
    return this.operation('heartbeatWorker', async () => {
      await this.ready();
      const { workers } = this.tables;
      await this.pool.query(`DELETE FROM ${workers} WHERE alive_until < now() OR ($2 <= 0 AND worker = $1)`, [worker, ttlMs]);
      if (ttlMs <= 0) return;
      await this.pool.query(
        `INSERT INTO ${workers} (worker, alive_until) VALUES ($1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (worker) DO UPDATE SET alive_until = excluded.alive_until`,
        [worker, Math.ceil(ttlMs)],
      );
    });
  }

  async liveWorkers(): Promise<number> {
    return this.operation('liveWorkers', async () => {
      await this.ready();
      const found = await this.pool.query(`SELECT count(*)::integer AS live FROM ${this.tables.workers} WHERE alive_until > now()`);
      return found.rows[0].live as number;
    });
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  useMetrics(metrics: StoreMetrics): () => void {
    this.metrics = metrics;
    return () => {
      if (this.metrics === metrics) this.metrics = undefined;
    };
  }

  describe(): string {
    return `PostgreSQL (schema ${this.schema}, lease ${this.leaseMs} ms)`;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const wake of [...this.queueWaiters]) wake();
    const listening = this.listening;
    this.listening = undefined;
    await listening?.then((client) => client.end()).catch(() => undefined);
    await this.migrated?.catch(() => undefined);
    if (this.ownsPool) await this.pool.end();
  }

  /**
   * Runs one of the store's operations: timed for the metrics, a span of the call that caused it,
   * and the database being away (or going away) made -32011 for the client, as the Redis store
   * does. Refusals, ours (an id PostgreSQL cannot keep) or those `isRefusal` tells (what a change
   * threw), pass as they are, not counted as failures: a client could otherwise raise the error
   * metric at will. Push configs that cannot be opened, and any other error of the database (a
   * fault of ours), are failures, left for the router to log.
   */
  private operation<T>(name: string, run: () => Promise<T>, isRefusal?: (error: unknown) => boolean): Promise<T> {
    const metrics = this.metrics;
    return databaseCall(POSTGRESQL, name, run, {
      ...(metrics && { record: (seconds: number, failed: boolean) => metrics.postgresOperation(name, seconds, failed) }),
      classify: (error) =>
        error instanceof A2AError || isRefusal?.(error)
          ? 'own'
          : error instanceof PushConfigsUnopenable || !isUnavailable(error)
            ? 'other'
            : 'unavailable',
    });
  }

  private ready(): Promise<void> {
    if (!this.migrate) return Promise.resolve();
    this.migrated ??= migratePostgres(this.pool, this.schema).then(
      () => undefined,
      (error: unknown) => {
        this.migrated = undefined;
        throw error;
      },
    );
    return this.migrated;
  }

  /** The task as stored now, with its revision: for a change that has no record of it, or lost a round. */
  private async read(taskId: string): Promise<TaskRevision> {
    const found = await this.pool.query({ ...this.statements.read, values: [taskId] });
    const row = found.rows[0] as TaskRow | undefined;
    if (!row) return { rev: 0, record: undefined, laidOut: false };
    return { rev: row.rev, record: this.recordOf(row), laidOut: row.laid_out };
  }

  /**
   * The task as stored now, for a change, once `checkHead` (when given) has passed its head: the
   * head is read first, a small read, so that a change refused for what the head says does not
   * read the history and the parts, 16 MB for a full task (`maxTaskBytes`).
   */
  private async readChecked(taskId: string, checkHead: ((head: TaskHead) => void) | undefined): Promise<TaskRevision> {
    if (checkHead) {
      const found = await this.pool.query({ ...this.statements.readHead, values: [taskId] });
      const row = found.rows[0] as { task_id: string; record: string | null; push_configs: string | null } | undefined;
      if (row?.record != null) {
        const stored = JSON.parse(row.record) as TaskRecord;
        // The artifacts' heads without their parts are no artifacts: left out.
        const { artifacts: _, ...task } = stored.task;
        checkHead(this.withPushConfigsOpened(row, { ...stored, task }));
      }
    }
    return this.read(taskId);
  }

  /**
   * Writes a change in one statement, if the task is still at `known.rev` (or, new, still absent):
   * its head, its layout's rows, its events, the log trimmed, and the notices. The new revision,
   * or undefined when another writer got there first (nothing written).
   */
  private async compareAndSet(taskId: string, write: ChangeWrite): Promise<number | undefined> {
    const { known, record, events, layout } = write;
    const { task } = record;
    refuseNul(task.contextId, 'a context id');
    let kept = record;
    let sealed: string | null = null;
    if (this.seal) {
      const { pushConfigs, ...rest } = record;
      kept = rest;
      if (pushConfigs !== undefined) sealed = this.seal.seal(taskId, pushConfigs);
      // The record's `opening` holds the sealed form (a shape no opening has), read back by withPushConfigsOpened.
      if (record.opening !== undefined)
        kept = { ...rest, opening: this.sealedTurn(taskId, record) as unknown as StoredTurnOpening, checkpoint: undefined };
    }
    const rows = layoutRows(layout);
    let found: pg.QueryResult;
    try {
      found = await this.pool.query({
        ...(known.record === undefined ? this.statements.create : this.statements.change),
        values: [
          taskId,
          record.owner ?? '',
          task.contextId,
          task.status.state,
          statusMsOf(record),
          !record.replied,
          record.lastEventId,
          headOf(kept),
          write.final,
          // A turn handed over holds a lease that has run out: the next claim takes it.
          write.handedOver ? 0 : this.leaseMs,
          sealed,
          known.rev,
          layout.rewrite && known.record !== undefined,
          rows.emptied,
          rows.messages,
          rows.partIndexes,
          rows.parts,
          events.map((e) => e.id),
          events.map((e) => JSON.stringify(e.event)),
          record.lastEventId - this.maxEventsPerTask,
          this.channel,
          digestOf(taskId),
          this.turnsChannel,
          write.turnEnded ?? null,
          record.holder ?? null,
          write.queued,
          write.enqueue?.turn ?? null,
          write.enqueue?.attempt ?? null,
          this.queueChannel,
        ],
      });
    } catch (error) {
      throw tooLongToIndex(error) ?? error;
    }
    return found.rows[0]?.rev as number | undefined;
  }

  /**
   * The record of a row read, its push configs opened when sealed. A record written before the
   * store had a key keeps its configs in the record, and is sealed when next changed.
   */
  private recordOf(row: TaskRow | undefined): TaskRecord | undefined {
    if (!row) return undefined;
    let record: TaskRecord;
    if (row.laid_out) {
      const parts = row.parts === null ? [] : row.parts.split(PIECES_APART);
      const partsByIndex = new Map<number, string[]>();
      for (let i = 0; i < row.part_indexes.length; i++) {
        const index = row.part_indexes[i]!;
        let list = partsByIndex.get(index);
        if (!list) partsByIndex.set(index, (list = []));
        list.push(parts[i]!);
      }
      const history = row.history === null ? [] : row.history.split(PIECES_APART);
      record = recordFromLayout(row.record, history, (index) => partsByIndex.get(index));
    } else {
      record = recordStoredWhole(row.record);
    }
    return this.withPushConfigsOpened(row, record);
  }

  /**
   * A record (or head) of a row with its push configs, opened when the row keeps them sealed, and
   * what its turn keeps to be resumed (see {@link sealedTurn}).
   */
  private withPushConfigsOpened<R extends TaskHead>(row: Pick<TaskRow, 'task_id' | 'push_configs'>, record: R): R {
    const sealedTurn = (record.opening as { sealed?: unknown } | undefined)?.sealed;
    let opened = record;
    if (typeof sealedTurn === 'string') {
      if (!this.seal) throw unopenable(row.task_id, 'its turn is sealed, and this store was given no pushConfigKey');
      const turn = this.seal.openTurn(row.task_id, sealedTurn) as Pick<TaskRecord, 'opening' | 'checkpoint'>;
      opened = { ...record, opening: turn.opening, checkpoint: turn.checkpoint };
    }
    if (row.push_configs === null) return opened;
    if (!this.seal) throw unopenable(row.task_id, 'they are sealed, and this store was given no pushConfigKey');
    return { ...opened, pushConfigs: this.seal.open(row.task_id, row.push_configs) };
  }

  /**
   * What a running turn keeps to be resumed, sealed with the push configs' key: what the turn was
   * started with (its caller, the request's metadata) and its checkpoint, in the record's `opening`
   * as `{ sealed }`. Sealed once per checkpoint: the writes between two checkpoints reuse it.
   */
  private sealedTurn(taskId: string, record: TaskRecord): { sealed: string } {
    const { opening, checkpoint } = record;
    const known = this.sealedTurns.get(opening!);
    if (known && known.checkpoint === checkpoint && known.taskId === taskId) return known.value;
    const value = { sealed: this.seal!.sealTurn(taskId, { opening, checkpoint }) };
    this.sealedTurns.set(opening!, { taskId, checkpoint, value });
    return value;
  }

  /** The connection that listens for every task's new events, opened on the first subscription. */
  private listen(): Promise<pg.Client> {
    this.listening ??= (async () => {
      const client = new pg.Client({ ...this.pool.options });
      client.on('notification', (message) => {
        if (message.channel === this.queueChannel) {
          for (const wake of [...this.queueWaiters]) wake();
          return;
        }
        if (message.channel === this.turnsChannel) {
          const ended = JSON.parse(message.payload ?? 'null') as TurnEnded | null;
          if (ended) for (const listener of this.turnListeners) listener(ended);
          return;
        }
        const taskId = message.payload === undefined ? undefined : this.digests.get(message.payload);
        if (taskId !== undefined) this.feeds.heard(taskId);
      });
      client.on('error', (error) => {
        this.logger?.warn({ err: error }, 'the PostgreSQL connection that listens for events failed: listening again');
        this.listening = undefined;
        void client.end().catch(() => undefined);
        this.listenAgain(100);
      });
      await client.connect();
      await client.query(
        `LISTEN ${client.escapeIdentifier(this.channel)}; LISTEN ${client.escapeIdentifier(this.turnsChannel)}; LISTEN ${client.escapeIdentifier(this.queueChannel)}`,
      );
      return client;
    })();
    this.listening.catch(() => {
      this.listening = undefined;
    });
    return this.listening;
  }

  /**
   * Listens again after the listening connection was lost (the database restarting), trying every
   * `delayMs` (doubling, at most 5 s) while anything here listens and the store is open; then every
   * feed reads what it missed meanwhile.
   */
  private listenAgain(delayMs: number): void {
    if (this.closed || (this.digests.size === 0 && this.turnListeners.size === 0)) return;
    const retry = setTimeout(() => {
      this.listen().then(
        () => this.feeds.readMissed(),
        () => this.listenAgain(Math.min(delayMs * 2, 5_000)),
      );
    }, delayMs);
    retry.unref();
  }

  /** A task's events after `afterId`, for its subscribers here: what a notification announced. */
  private async readEventsAfter(taskId: string, afterId: number): Promise<StoredEvent[]> {
    const found = await this.pool.query(
      `SELECT event_id, event FROM ${this.tables.events} WHERE task_id = $1 AND event_id > $2 ORDER BY event_id`,
      [taskId, afterId],
    );
    return found.rows.map((row) => ({ id: row.event_id as number, event: row.event }));
  }

  private async sweep(): Promise<void> {
    await this.ready();
    await this.pool.query(`DELETE FROM ${this.tables.tasks} WHERE finished_at < now() - $1 * interval '1 millisecond'`, [this.retentionMs]);
    await this.pool.query(`DELETE FROM ${this.claimsTable} WHERE expires_at < now()`);
  }
}

/**
 * A statement PostgreSQL parses and plans once per connection: named after what it does and a
 * digest of its text, which names the schema (stores on two schemas share a pool's connections).
 */
function prepared(what: string, text: string): pg.QueryConfig {
  return { name: `a2a_${what}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`, text };
}

/** The rows a change's layout writes (see `LayoutWrite`): what it appends, and what it empties first. */
function layoutRows(layout: LayoutWrite): { messages: string[]; partIndexes: number[]; parts: string[]; emptied: number[] } {
  const { ops } = layout;
  const messages: string[] = [];
  const partIndexes: number[] = [];
  const parts: string[] = [];
  const emptied = new Set<number>();
  for (let at = 0; at < ops.length; ) {
    if (ops[at] === 'h') {
      messages.push(ops[at + 1]!);
      at += 2;
    } else if (ops[at] === 'r') {
      // An artifact replaced: the parts this change gave it before are gone too.
      const index = Number(ops[at + 1]);
      emptied.add(index);
      for (let i = partIndexes.length - 1; i >= 0; i--) {
        if (partIndexes[i] !== index) continue;
        partIndexes.splice(i, 1);
        parts.splice(i, 1);
      }
      at += 2;
    } else {
      partIndexes.push(Number(ops[at + 1]));
      parts.push(ops[at + 2]!);
      at += 3;
    }
  }
  return { messages, partIndexes, parts, emptied: [...emptied] };
}

/**
 * The statements of a change (compareAndSet's parameters, $1 to $29). The head is written first:
 * updated only while the task is at the revision the change was computed from ($12), or inserted
 * only while no task has its id; every other part of the statement writes only when the head was
 * (`EXISTS (SELECT FROM head)`), so a change that lost the round writes nothing. Rows appended go
 * in the order given (ORDER BY the ordinality numbers their seq in that order). The notices are
 * sent when the statement commits.
 */
function changeStatements(tables: { tasks: string; events: string; history: string; parts: string; queue: string }): {
  change: string;
  create: string;
} {
  // A finished task holds no lease, nor does one queued for a worker ($26): no process runs it.
  const lease = "CASE WHEN $9 OR $26::boolean THEN NULL ELSE now() + $10 * interval '1 millisecond' END";
  const written = 'EXISTS (SELECT FROM head)';
  const rest = `
    wiped_history AS (DELETE FROM ${tables.history} WHERE task_id = $1 AND $13 AND ${written}),
    wiped_parts AS (DELETE FROM ${tables.parts} WHERE task_id = $1 AND ($13 OR artifact_index = ANY($14::integer[])) AND ${written}),
    messages AS (
      INSERT INTO ${tables.history} (task_id, message)
      SELECT $1, m FROM unnest($15::json[]) WITH ORDINALITY AS x(m, n) WHERE ${written} ORDER BY n),
    parts AS (
      INSERT INTO ${tables.parts} (task_id, artifact_index, parts)
      SELECT $1, i, p FROM unnest($16::integer[], $17::json[]) WITH ORDINALITY AS x(i, p, n) WHERE ${written} ORDER BY n),
    events AS (
      INSERT INTO ${tables.events} (task_id, event_id, event) SELECT $1, i, e FROM unnest($18::integer[], $19::json[]) AS x(i, e) WHERE ${written}),
    trimmed AS (DELETE FROM ${tables.events} WHERE task_id = $1 AND event_id <= $20 AND ${written}),
    queued AS (INSERT INTO ${tables.queue} (task_id, turn, attempt) SELECT $1, $27::integer, $28::integer FROM head WHERE $27::integer IS NOT NULL),
    notices AS (
      SELECT pg_notify($21, $22) FROM head WHERE cardinality($18::integer[]) > 0
      UNION ALL SELECT pg_notify($23, $24::text) FROM head WHERE $24::text IS NOT NULL
      UNION ALL SELECT pg_notify($29, '') FROM head WHERE $27::integer IS NOT NULL)
    SELECT rev, (SELECT count(*) FROM notices) AS notices FROM head`;
  const change = `WITH head AS (
      UPDATE ${tables.tasks} SET owner = $2, context_id = $3, state = $4, status_ms = $5, listed = $6, last_event_id = $7, record = $8,
        push_configs = $11, holder = $25::text, rev = rev + 1, laid_out = true, finished_at = CASE WHEN $9 THEN coalesce(finished_at, now()) END, lease_until = ${lease}
      WHERE task_id = $1 AND rev = $12::integer RETURNING rev),${rest}`;
  const create = `WITH head AS (
      INSERT INTO ${tables.tasks} (task_id, owner, context_id, state, status_ms, listed, last_event_id, record, push_configs, rev, laid_out, finished_at, lease_until, holder)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $11, $12::integer + 1, true, CASE WHEN $9 THEN now() END, ${lease}, $25::text)
      ON CONFLICT (task_id) DO NOTHING RETURNING rev),${rest}`;
  return { change, create };
}

const POSTGRESQL = { system: 'postgresql', shownAs: 'PostgreSQL' } as const;

/**
 * Whether an error says the database cannot be reached or is going away (to tell the client to
 * come back later), rather than that a statement of ours is wrong: a connection that failed or
 * ended, or PostgreSQL's classes 08 (connection), 53 (resources) and 57P (shutting down).
 */
function isUnavailable(error: unknown): boolean {
  // Not `instanceof Error`: a socket's errors may come from another realm (a test runner's sandbox).
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return /^(08|53|57P)/.test(code);
  if (typeof code === 'string' && code.startsWith('E')) return true;
  return typeof message === 'string' && /connection|terminated|timeout|Client was closed/i.test(message);
}

/**
 * -32602 for a change whose ids do not fit PostgreSQL's indexes, else undefined. An index entry
 * holds about 2,700 bytes: the task id, the context id and the owner (the principal, and the
 * tenant) together, in UTF-8, unless they compress. Ids within the kit's bound (1,024 characters)
 * can pass that when they are not Latin (up to 3 bytes a character), and the sum cannot be told
 * before PostgreSQL compresses it: so the refusal is read from the error (54000, a limit exceeded:
 * by the change's statement, which writes nothing else unbounded outside TOAST, only an index row).
 */
function tooLongToIndex(error: unknown): A2AError | undefined {
  if ((error as { code?: unknown } | null)?.code !== '54000') return undefined;
  return A2AError.invalidParams({
    reason:
      'the task id, context id and owner (principal and tenant) are too long together for the PostgreSQL store: ' +
      'an index entry holds about 2,700 bytes of them in UTF-8',
  });
}

/** What a notification names a task by: short, whatever the id's length. */
function digestOf(taskId: string): string {
  return createHash('sha1').update(taskId).digest('base64url');
}

/**
 * PostgreSQL's text holds no U+0000, which A2A's ids may: such an id is refused with -32602 (its
 * JSON, in the record and the events, keeps any character, escaped).
 */
function refuseNul(id: string, what: string): void {
  if (id.includes('\0')) throw A2AError.invalidParams({ reason: `${what} holding U+0000 cannot be kept in PostgreSQL` });
}
