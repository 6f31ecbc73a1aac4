// What a store keeps: the record of a task, its numbered events, and the shape of a change.
// Records are values: a store never changes one in place. What it hands to readers is a copy
// (see TaskStore), so no reader can change what the store holds.
import type { Message, Metadata, StoredPushConfig, Task, TaskEvent } from './task.js';
import type { JsonValue } from './plain-json.js';

/** Everything the server keeps about one task. */
export interface TaskRecord {
  /** The task as clients see it, without `history` (kept apart so it can be sliced). */
  readonly task: Task;
  /** Every message of the task, oldest first: the client's and the agent's status messages. */
  readonly history: readonly Message[];
  /** The id of the last event in this task's log; 0 before the first. SSE `id:` values. */
  readonly lastEventId: number;
  /** Counts accepted `tasks/send` turns, so that a late update from an earlier turn is ignored. */
  readonly turn: number;
  /** The task's push configs, each with an id unique within the task, oldest first. */
  readonly pushConfigs?: readonly StoredPushConfig[];
  /**
   * The turn ended with a message as the whole answer (a handler's `reply`): versions that can
   * say so answer with that message alone. Cleared when the next turn starts.
   */
  readonly replied?: boolean;
  /** Who created the task (`ownerKey` of its principal: scheme, issuer, id); only they may see or change it. */
  readonly owner?: string;
  /** Milliseconds since the epoch of the last change. */
  readonly updatedAt: number;
  /**
   * About how many bytes the task takes on the wire: everything kept from the client and the
   * agent, as the length of its JSON (`size.ts`), kept up to date change by change: what
   * `maxTaskBytes` and the in-memory store's `maxBytes` count. Absent (0) in records stored
   * before it existed.
   */
  readonly bytes?: number;
  /**
   * Which run of the current turn this is: 1 for its first, one more each time a replica takes
   * over a turn whose process died (`onInterrupted: 'resume'`). Absent: 1. A turn's writes are
   * refused once another attempt has begun (fencing).
   */
  readonly attempt?: number;
  /**
   * The process running the current attempt (its engine's id): only its lease renewals count.
   * {@link HANDED_OVER} while a turn a draining replica let go waits for another to take it.
   * Absent without resume.
   */
  readonly holder?: string;
  /**
   * How many of the current turn's attempts ended by a hand-over (a replica that drained let the
   * turn go for another to go on with): those do not count against `maxAttempts`. Absent: none.
   */
  readonly handOvers?: number;
  /**
   * Why a queued turn (front ends and workers) runs again when a worker claims it: its last
   * attempt was lost with its process, or handed over by a draining one. Absent for a turn queued
   * for its first run, and once claimed.
   */
  readonly resumeReason?: 'crash' | 'hand-over';
  /** What a replica needs to run the current turn's handler again; absent without resume. */
  readonly opening?: StoredTurnOpening;
  /** The current turn's last checkpoint (`checkpoint` on an update), handed back when the turn is resumed. */
  readonly checkpoint?: JsonValue;
  /**
   * The A2AError the handler refused the current turn with, kept beside its failed status: a
   * blocking send waiting in another process (a front end whose worker ran the turn, a retry of
   * the same message) answers with the error, as the process that ran it does. Cleared when the
   * next turn starts.
   */
  readonly refusal?: StoredRefusal;
}

/** An A2AError as a record keeps it: its JSON-RPC code, message and data, and the reason it names. */
export interface StoredRefusal {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
  readonly reason?: string;
}

/**
 * The `holder` of a turn that a draining replica handed over, until a replica takes it: no
 * process's id (those are UUIDs), so no process renews its lease, which the hand-over left
 * expired for the next sweep to claim at once.
 */
export const HANDED_OVER = '(handed over)';

/**
 * What a turn was started with, kept so that another process can run its handler again: where
 * its message is in the history, and what the handler is shown of the request and its caller.
 * Never a credential: headers come without them, as the handler sees them.
 */
export interface StoredTurnOpening {
  /** The turn's message's index in the history. */
  readonly messageAt: number;
  readonly isNewTask: boolean;
  /** The send's configuration as a handler is shown it (no push token, no credentials). */
  readonly configuration?: {
    readonly acceptedOutputModes?: string[];
    readonly historyLength?: number;
    readonly returnImmediately?: boolean;
    readonly taskPushNotificationConfig?: {
      readonly url: string;
      readonly id?: string;
      readonly authentication?: { readonly schemes: string[] };
    };
  };
  readonly metadata?: Metadata;
  /** Who owns the turn (the principal, or the tenant with it). */
  readonly owner?: StoredPrincipal;
  /** The call that started it, as its handler is shown it. */
  readonly call?: {
    readonly protocol: string;
    readonly binding: string;
    readonly method: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly tenant?: string;
    readonly extensions: readonly string[];
    readonly principal?: StoredPrincipal;
  };
  /**
   * The W3C `traceparent` of the call that started the turn (its span, active when the turn was
   * accepted): the turn's run in another process (a worker, a replica resuming it) is a child of
   * it, so that the call and the turn are one trace.
   */
  readonly traceparent?: string;
}

/** A principal as a record keeps it (core/principal.ts's, which never carries credentials). */
export interface StoredPrincipal {
  readonly id: string;
  readonly scheme: string;
  readonly [extra: string]: unknown;
}

/** One event of a task's log, numbered by the store. */
export interface StoredEvent {
  readonly id: number;
  readonly event: TaskEvent;
}

/**
 * One change to a task, as {@link TaskStore.update}'s `change` returns it: the record with the
 * change's own edits (turn, history, push config), and the events that follow from it. The
 * store applies the events to the record (`applyEvents`), numbers them and stores both.
 */
export interface TaskChange {
  readonly record: TaskRecord;
  readonly events: readonly TaskEvent[];
  /**
   * Called with the record after the events, before anything is stored; throwing refuses the
   * whole change (the caller gets the error, nothing is stored). How a size limit is enforced.
   */
  readonly check?: (after: TaskRecord) => void;
}

/**
 * A task's record but what grows in it, its history and its artifacts: what a store that keeps
 * those apart reads in one small read (see {@link TaskUpdateOptions.checkHead}).
 */
export interface TaskHead extends Omit<TaskRecord, 'task' | 'history'> {
  readonly task: Omit<Task, 'artifacts'>;
}

/** What {@link TaskStore.update} may be told besides the change. */
export interface TaskUpdateOptions {
  /**
   * Refuses the change from the task's head alone, by throwing what `change` would throw for the
   * same task: a store that keeps the history and the artifacts apart may ask it before reading
   * them, so that a change refused for what the head says (a task that takes no more messages, or
   * too full for one more) costs a small read however large the task. Never asked of a task that
   * does not exist; a store may not ask it at all, so `change` refuses whatever this refuses.
   */
  readonly checkHead?: (head: TaskHead) => void;
}

/** The outcome of {@link TaskStore.update}: the record as stored, its events as numbered. */
export interface TaskUpdateResult {
  readonly record: TaskRecord;
  readonly events: readonly StoredEvent[];
}

export type EventListener = (event: StoredEvent) => void;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Every field of a record, required: a record copied through this type names each field, so
 * adding a field to {@link TaskRecord} fails to compile until {@link copyRecord} copies it.
 */
type AllRecordFields = { -readonly [K in keyof Required<TaskRecord>]: TaskRecord[K] };

/**
 * A copy of the record to change before it is stored. Field by field, by name, because it runs
 * for every event (a spread is an order of magnitude slower here; BENCHMARKS.md). Absent fields
 * are present as `undefined`, which JSON drops, so every record has one shape.
 */
export function copyRecord(record: TaskRecord): Mutable<TaskRecord> {
  const copy: AllRecordFields = {
    task: record.task,
    history: record.history,
    lastEventId: record.lastEventId,
    turn: record.turn,
    pushConfigs: record.pushConfigs,
    replied: record.replied,
    owner: record.owner,
    updatedAt: record.updatedAt,
    bytes: record.bytes,
    attempt: record.attempt,
    holder: record.holder,
    handOvers: record.handOvers,
    resumeReason: record.resumeReason,
    opening: record.opening,
    checkpoint: record.checkpoint,
    refusal: record.refusal,
  };
  return copy as Mutable<TaskRecord>;
}

/**
 * The task with the last `historyLength` messages: N > 0 adds the last N, oldest first; omitted,
 * null or 0 adds none. Shares the record's parts: copy it to hand it out. Each version renders it.
 */
export function taskSnapshot(record: TaskRecord, historyLength?: number | null): Task & { history?: Message[] } {
  const { task } = record;
  const snapshot: Task & { history?: Message[] } = { id: task.id, contextId: task.contextId, status: task.status };
  if (task.artifacts && task.artifacts.length > 0) snapshot.artifacts = task.artifacts;
  if (historyLength && historyLength > 0) snapshot.history = record.history.slice(-historyLength);
  if (task.metadata) snapshot.metadata = task.metadata;
  return snapshot;
}

/** A push config as the previous release kept it: one per task, its version marked only when 0.3. */
type LegacyPushConfig = Omit<StoredPushConfig, 'id' | 'protocol'> & { id?: string; protocol?: string };

/**
 * A record as this release keeps it, from one an earlier release stored (in Redis, or in a store
 * of the app's own): the task's `sessionId` is its `contextId`, and its one push config
 * (`pushNotification`) joins its `pushConfigs`, with the task's id as its id when it had none,
 * marked with the version it was set over (that release marked 0.3's; the others were 0.1.0's).
 * Its next change stores it in the new form. A record in the new form is returned as it is: the
 * core calls this on every record it reads, so that check is all it costs.
 */
export function upgradeRecord(stored: TaskRecord): TaskRecord {
  const legacy = stored as TaskRecord & { task: { sessionId?: string | null }; pushNotification?: LegacyPushConfig | null };
  if (legacy.task.contextId !== undefined && !('pushNotification' in legacy)) return stored;
  const record = copyRecord(stored);
  if (legacy.task.contextId === undefined) {
    const { sessionId, ...task } = legacy.task;
    record.task = { ...task, contextId: sessionId ?? task.id };
  }
  const config = legacy.pushNotification;
  if (config) {
    const upgraded: StoredPushConfig = { ...config, id: config.id ?? stored.task.id, protocol: config.protocol ?? '0.1.0' };
    const configs = record.pushConfigs ?? [];
    if (!configs.some((existing) => existing.id === upgraded.id)) record.pushConfigs = [...configs, upgraded];
  }
  return record;
}
