// What the methods may do with tasks, and nothing more: read one (if it is the caller's), start
// a turn, cancel, set a push config, open a task's event feed or replay its log. Methods never
// see the engine or the store, so every path goes through the same ownership and config checks,
// and every record a method gets is its own copy.
import { A2AError } from 'a2a-types/model';
import type { CallContext, CallerPresenceView } from './call.js';
import type { Principal } from './principal.js';
import { EventFeed } from './event-feed.js';
import type { StoredPushConfig } from '../model/task.js';
import type { PushConfigInput, SendMessageParams, TurnRules } from './operations.js';
import { ownerOf, readOwnTask } from './ownership.js';
import type { PushNotifier } from '../push/push-notifier.js';
import { jsonCopy } from '../model/plain-json.js';
import { upgradeRecord, type StoredEvent, type TaskRecord } from '../model/record.js';
import type { TaskListPage, TaskListQuery, TaskStore } from '../store/task-store.js';
import { assertRoomForPushConfig, type RunningTurn, type TaskEngine } from './task-engine.js';

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

  constructor(
    private readonly engine: TaskEngine,
    private readonly store: TaskStore,
    private readonly push: PushNotifier | undefined,
    readonly limits: ServiceLimits,
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
    const release = () => {
      decrement(byTask, taskId);
      decrement(byHolder, holder);
    };
    try {
      return await EventFeed.open(this.store, taskId, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Starts or continues the task with the message, and runs the turn's handler in the background. */
  async startTurn(
    taskId: string,
    params: SendMessageParams,
    principal: Principal | undefined,
    rules?: TurnRules,
    call?: CallContext,
  ): Promise<RunningTurn> {
    // The cheap refusals first: no request is made for the URL of a message that is refused.
    this.engine.checkMessage(params);
    await this.acceptPushConfig(params.configuration?.taskPushNotificationConfig);
    return this.engine.run(await this.engine.startTurn(taskId, params, principal, rules, call));
  }

  /**
   * Starts a turn and waits for it to end, for `sendWaitMs`, or until its caller is gone: the
   * task as it stands then. An A2AError the handler threw is thrown here.
   */
  async sendAndWait(
    taskId: string,
    params: SendMessageParams,
    principal: Principal | undefined,
    rules?: TurnRules,
    call?: CallContext,
  ): Promise<TaskRecord> {
    const run = await this.startTurn(taskId, params, principal, rules, call);
    await waitForTurn(run, this.limits.sendWaitMs, call?.caller);
    if (run.error) throw run.error;
    // A turn that ended by itself hands back its final record; otherwise (still working, or
    // canceled meanwhile) the store tells how the task stands now.
    return run.finalRecord ? jsonCopy(run.finalRecord) : this.readTask(taskId, principal);
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

/** Waits for the turn to end, `ms` at most, and no longer than its caller is there (watched after WATCH_CALLER_AFTER_MS). */
async function waitForTurn(run: RunningTurn, ms: number, caller: CallerPresenceView | undefined): Promise<void> {
  const unwatched = caller === undefined ? ms : Math.min(ms, WATCH_CALLER_AFTER_MS);
  await settledWithin(run.ended, unwatched);
  if (run.over || unwatched === ms || caller === undefined || caller.gone) return;
  await settledWithin(run.ended, ms - unwatched, caller.whenGone);
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
