// What the methods may do with tasks, and nothing more: read one (if it is the caller's), start
// a turn, cancel, set a push config, open a task's event feed or replay its log. Methods never
// see the engine or the store, so every path goes through the same ownership and config checks,
// and every record a method gets is its own copy.
import { A2AError, type ErrorCode, type ErrorReason } from 'a2a-types/model';
import type { CallContext, CallerPresenceView } from './call.js';
import type { Principal } from './principal.js';
import { EventFeed } from './event-feed.js';
import { isFinalState, type StoredPushConfig } from '../model/task.js';
import { claimKeyOf, idempotencyKeyOf, indexOfMessage, MessageTaken, sameMessage, takenByAnother, type ClaimedBy } from './idempotency.js';
import { isFinalEvent } from './task-events.js';
import type { PushConfigInput, SendMessageParams, TurnRules } from './operations.js';
import { ownerOf, readOwnTask } from './ownership.js';
import type { PushNotifier } from '../push/push-notifier.js';
import { jsonCopy } from '../model/plain-json.js';
import { upgradeRecord, type StoredEvent, type TaskRecord } from '../model/record.js';
import type { IdempotencyClaim, TaskListPage, TaskListQuery, TaskStore } from '../store/task-store.js';
import { assertRoomForPushConfig, queuedTurn, type RunningTurn, type TaskEngine } from './task-engine.js';

/** Where a send's idempotency key or new task's message id is claimed (docs/idempotency.md). */
export interface IdempotencySettings {
  /** How long a claim lasts, milliseconds: a retry within it answers with the turn of its first try. */
  readonly windowMs: number;
  /** Whether a new task's message id alone marks a retry (`retriesByMessageId`). */
  readonly byMessageId: boolean;
  /** The store's claims (`TaskStore.claimIdempotencyKey`), or the router's own in this process. */
  claim(key: string, claim: IdempotencyClaim, windowMs: number): Promise<IdempotencyClaim | undefined>;
}

/**
 * A send let in, with the task and message its turn is for: its own, or those the first try of a
 * retry claimed. `by` says what the claim was made by; undefined when none was made.
 */
export interface AdmittedSend {
  readonly taskId: string;
  readonly params: SendMessageParams;
  readonly by: ClaimedBy | undefined;
  /**
   * A new task's send whose message id an earlier send took: the send as a new task, should the
   * earlier message turn out to be another one (then it is no retry, and runs as its own task).
   */
  readonly asNewTask?: { readonly taskId: string; readonly params: SendMessageParams };
}

/** What a send did: started a turn, or (a retry) found its message taken by a turn before. */
export type SendOutcome =
  | { readonly run: RunningTurn; readonly taken?: undefined }
  | { readonly run?: undefined; readonly taken: TaskRecord };

/** What the service bounds. */
interface ServiceLimits {
  /** How long `sendAndWait` waits for a turn to end. */
  readonly sendWaitMs: number;
  /** Most characters of one answer (the router's `maxResponseBytes`): what a page of tasks must fit in. */
  readonly maxResponseBytes: number;
  /** Most streams open on one task at once, in this process. */
  readonly maxStreamsPerTask: number;
  /** Most streams one principal (or, without authentication, one client address) holds open at once, in this process. */
  readonly maxStreamsPerPrincipal: number;
}

export class TaskService {
  /** Streams open now, by task and by who holds them. */
  private readonly openStreams = { byTask: new Map<string, number>(), byHolder: new Map<string, number>() };
  /** Every stream's feed open in this process, for a drain that hands turns over to end them. */
  private readonly openFeeds = new Set<EventFeed>();

  constructor(
    private readonly engine: TaskEngine,
    private readonly store: TaskStore,
    private readonly push: PushNotifier | undefined,
    readonly limits: ServiceLimits,
    private readonly idempotency: IdempotencySettings,
  ) {}

  /** The task, if it exists and the caller may see it; -32001 otherwise. */
  readTask(taskId: string, principal: Principal | undefined): Promise<TaskRecord> {
    return readOwnTask(this.store, taskId, principal);
  }

  /**
   * A page of the caller's tasks (those its principal created; without authentication, those
   * created without it), newest status first. -32004 for a store that cannot list tasks.
   */
  async listTasks(query: Omit<TaskListQuery, 'owner'>, principal: Principal | undefined): Promise<TaskListPage> {
    if (!this.store.listTasks) throw A2AError.unsupportedOperation('the task store of this agent does not list tasks');
    // A store of the app's own may hand back records of the previous release: `accept` is shown
    // them upgraded too.
    const { accept } = query;
    const page = await this.store.listTasks({
      ...query,
      owner: ownerOf(principal),
      ...(accept && { accept: (record: TaskRecord) => accept(upgradeRecord(record)) }),
    });
    return { ...page, records: page.records.map(upgradeRecord) };
  }

  /**
   * Subscribes to the task's events from now on (see {@link EventFeed}), for a stream held by
   * `holder` (who the caller is: its principal, or without authentication its address). Each
   * task, and each holder, may have only so many streams open at once in this process: past
   * that, -32011. A stream's place is free again once its feed is closed, so a client that lost
   * its connection can always come back with `Last-Event-ID`.
   */
  async openFeed(taskId: string, holder: string): Promise<EventFeed> {
    const { byTask, byHolder } = this.openStreams;
    const onTask = byTask.get(taskId) ?? 0;
    const held = byHolder.get(holder) ?? 0;
    if (onTask >= this.limits.maxStreamsPerTask) {
      throw A2AError.resourceUnavailable(`task ${taskId} has ${onTask} streams open, as many as this agent serves (maxStreamsPerTask)`);
    }
    if (held >= this.limits.maxStreamsPerPrincipal) {
      throw A2AError.resourceUnavailable(`this client has ${held} streams open, as many as this agent serves it (maxStreamsPerPrincipal)`);
    }
    byTask.set(taskId, onTask + 1);
    byHolder.set(holder, held + 1);
    let feed: EventFeed | undefined;
    const release = () => {
      decrement(byTask, taskId);
      decrement(byHolder, holder);
      if (feed) this.openFeeds.delete(feed);
    };
    try {
      feed = await EventFeed.open(this.store, taskId, release);
      this.openFeeds.add(feed);
      return feed;
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * Ends every stream open in this process for its client to resubscribe elsewhere (a drain that
   * handed its turns over): a handed-over turn's streams once they have sent its hand-over event
   * (`handedOver`: its id, by task), waiting `maxWaitMs` at most; the others (of turns running on
   * other replicas) at once. Resolves once they have ended.
   */
  async endStreamsForReconnect(handedOver: ReadonlyMap<string, number>, maxWaitMs: number): Promise<void> {
    await Promise.all([...this.openFeeds].map((feed) => feed.endForReconnectAfter(handedOver.get(feed.taskId), maxWaitMs)));
  }

  /**
   * Lets a send in: refuses what this agent does not take (cheap refusals first: no request is
   * made for the URL of a message that is refused), then claims its Idempotency-Key, or a new
   * task's message id. A retry is given the task and message id of its first try.
   */
  async admitSend(taskId: string, params: SendMessageParams, principal: Principal | undefined, call?: CallContext): Promise<AdmittedSend> {
    this.engine.checkMessage(params);
    await this.acceptPushConfig(params.configuration?.taskPushNotificationConfig);
    const key = call && idempotencyKeyOf(call);
    const { messageId } = params.message;
    const named = Boolean(params.task) || Boolean(params.message.taskId);
    // A message to a task it names is found in that task (MessageTaken): only a key, or the
    // message of a task whose id is made here, needs a claim to be found again.
    if (key === undefined && (named || messageId === undefined || !this.idempotency.byMessageId)) return { taskId, params, by: undefined };
    const by: ClaimedBy = key === undefined ? 'messageId' : 'key';
    const own = { taskId, messageId: messageId ?? crypto.randomUUID() };
    const { windowMs } = this.idempotency;
    const held = await this.idempotency.claim(claimKeyOf(ownerOf(principal), by, key ?? messageId!), own, windowMs);
    const ids = held ?? own;
    // A key that took a message for another task than this one names is another send's.
    if (named && ids.taskId !== taskId) throw takenByAnother(by, ids.taskId);
    // A message id alone (no key) says "retry" only for the same message: the task this send
    // would have made, for startTurn to run if the earlier message was another one.
    const asNewTask = held && by === 'messageId' ? { taskId, params } : undefined;
    if (ids.messageId === messageId) return { taskId: ids.taskId, params, by, ...(asNewTask ? { asNewTask } : {}) };
    return { taskId: ids.taskId, params: { ...params, message: { ...params.message, messageId: ids.messageId } }, by };
  }

  /**
   * Starts or continues the task with the message, and runs the turn's handler in the background;
   * or, for a message the task has taken already (a retry), starts nothing: the task as it stands.
   * A retry's message must be the one its first try sent: -32602 otherwise, but for a new task's
   * send known by its message id alone, which then runs as a task of its own.
   */
  async startTurn(send: AdmittedSend, principal: Principal | undefined, rules?: TurnRules, call?: CallContext): Promise<SendOutcome> {
    try {
      const start = await this.engine.startTurn(send.taskId, send.params, principal, rules, call);
      // A front end's turn is queued for a worker (the store queued it with the start's write).
      return { run: this.engine.queuesTurns ? queuedTurn(start) : this.engine.run(start) };
    } catch (error) {
      if (!(error instanceof MessageTaken)) throw error;
      const { message } = send.params;
      const record = jsonCopy(error.record);
      if (!sameMessage(record.history[indexOfMessage(record, message.messageId!)]!, message)) {
        // A new task's message under an id another message took (a client that reuses its ids,
        // as the official conformance kit does): not a retry, so a task of its own. A key says
        // "retry" explicitly: another message under it is refused.
        if (send.asNewTask) return this.startTurn({ ...send.asNewTask, by: undefined }, principal, rules, call);
        throw takenByAnother(send.by ?? 'messageId', send.taskId);
      }
      return { taken: record };
    }
  }

  /**
   * Starts a turn and waits for it to end, for `sendWaitMs`, or until its caller is gone: the
   * task as it stands then. An A2AError the handler threw is thrown here. A retry waits the same
   * way for the task its first try started, whichever process runs it.
   */
  async sendAndWait(send: AdmittedSend, principal: Principal | undefined, rules?: TurnRules, call?: CallContext): Promise<TaskRecord> {
    const { run, taken } = await this.startTurn(send, principal, rules, call);
    if (taken) return this.waitForTask(taken, principal, call);
    // Run by a worker: its end is told by the task's events, as a retry's is.
    if (run.queued) return this.waitForTask(run.started.record, principal, call);
    await waitForTurn(run.ended, () => run.over, this.limits.sendWaitMs, call?.caller);
    if (run.error) throw run.error;
    // A turn that ended by itself hands back its final record; otherwise (still working, or
    // canceled meanwhile) the store tells how the task stands now.
    return run.finalRecord ? jsonCopy(run.finalRecord) : this.readTask(send.taskId, principal);
  }

  /**
   * Waits, as a blocking send does, for a task whose turn may run in another process: until its
   * next final event. A turn its handler refused with an A2AError answers with that error, as
   * the process that ran it answers its own caller.
   */
  private async waitForTask(record: TaskRecord, principal: Principal | undefined, call: CallContext | undefined): Promise<TaskRecord> {
    const settled = await this.waitForFinal(record, principal, call);
    const { refusal } = settled;
    if (refusal && settled.task.status.state === 'failed')
      throw new A2AError(refusal.code as ErrorCode, refusal.message, refusal.data, refusal.reason as ErrorReason | undefined);
    return settled;
  }

  private async waitForFinal(record: TaskRecord, principal: Principal | undefined, call: CallContext | undefined): Promise<TaskRecord> {
    if (isFinalState(record.task.status.state)) return record;
    const taskId = record.task.id;
    let ended = false;
    let end!: () => void;
    const finalEvent = new Promise<void>((resolve) => (end = resolve));
    const unsubscribe = await this.store.subscribe(taskId, (stored) => {
      if (!isFinalEvent(stored.event)) return;
      ended = true;
      end();
    });
    try {
      // Read again once subscribed: a final event between the first read and the subscription is seen here.
      const now = await this.readTask(taskId, principal);
      if (isFinalState(now.task.status.state)) return now;
      await waitForTurn(finalEvent, () => ended, this.limits.sendWaitMs, call?.caller);
    } finally {
      unsubscribe();
    }
    return this.readTask(taskId, principal);
  }

  async cancel(taskId: string, principal: Principal | undefined): Promise<TaskRecord> {
    return jsonCopy(await this.engine.cancel(taskId, principal));
  }

  /** Checks the config (URL guard, ownership check) and sets it on the task, in place of the one of its id. */
  async setPushConfig(taskId: string, config: StoredPushConfig, principal: Principal | undefined): Promise<TaskRecord> {
    // Unknown (or someone else's) tasks, and tasks with no room for the config, are refused
    // before any request is made for its URL.
    assertRoomForPushConfig(await this.readTask(taskId, principal), config.id, '/pushNotificationConfig');
    await this.acceptPushConfig(config);
    return jsonCopy(await this.engine.setPushConfig(taskId, config, principal));
  }

  /** Removes the task's push config of that id, if it has one. */
  async deletePushConfig(taskId: string, configId: string, principal: Principal | undefined): Promise<TaskRecord> {
    return jsonCopy(await this.engine.deletePushConfig(taskId, configId, principal));
  }

  eventsAfter(taskId: string, afterId: number): Promise<StoredEvent[] | undefined> {
    return this.store.eventsAfter(taskId, afterId);
  }

  /**
   * A push config a client sends (`set`, or with a message) must pass the URL checks before it
   * is stored. Sent to a server without push notifications it would be silently lost: refused
   * with -32003 instead.
   */
  private async acceptPushConfig(config: PushConfigInput | null | undefined): Promise<void> {
    if (!config) return;
    if (!this.push) throw A2AError.pushNotificationNotSupported();
    await this.push.accept(config);
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 1) - 1;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

/**
 * How long a blocking send waits before it watches for its caller going away. Most turns end
 * sooner, and watching costs each of them a listener on its response (two per cent of the echo
 * agent's CPU a request, measured); a caller that left before then is seen to be gone then.
 */
const WATCH_CALLER_AFTER_MS = 1_000;

/** Waits for a turn to end (`ended`), `ms` at most, and no longer than its caller is there (watched after WATCH_CALLER_AFTER_MS). */
async function waitForTurn(ended: Promise<void>, over: () => boolean, ms: number, caller: CallerPresenceView | undefined): Promise<void> {
  const unwatched = caller === undefined ? ms : Math.min(ms, WATCH_CALLER_AFTER_MS);
  await settledWithin(ended, unwatched);
  if (over() || unwatched === ms || caller === undefined || caller.gone) return;
  await settledWithin(ended, ms - unwatched, caller.whenGone);
}

/** Settles when `promise` does, `ms` later, or once `stop` settles, whichever comes first. */
async function settledWithin(promise: Promise<void>, ms: number, stop?: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  // No timer for an unbounded wait (setTimeout would take Infinity for 1 ms).
  const waits = [promise];
  if (Number.isFinite(ms)) waits.push(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))));
  if (stop !== undefined) waits.push(stop);
  try {
    await Promise.race(waits);
  } finally {
    clearTimeout(timer);
  }
}
