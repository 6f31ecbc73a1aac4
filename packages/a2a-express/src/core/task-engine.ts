// Owns the life of a task: starts or continues it (one turn per accepted message), runs the
// handler off the request path, applies its updates to the store in order, honours
// cancellation, and fails the task safely when the handler misbehaves.
import type { A2AMetrics } from '../telemetry/metrics.js';
import { A2A_ATTRIBUTES, activeTraceparent, contextOfTraceparent, failSpan, startChildSpan, withSpan } from '../telemetry/tracing.js';
import { A2AError, ErrorCode } from 'a2a-types/model';
import type { Logger } from 'pino';
import type { AuthOptions, Principal } from './auth.js';
import { turnCallOf, turnCallSourceOf, type CallContext, type TurnCallSource } from './call.js';
import { CallExtensions } from './extensions.js';
import { agentMessage, type TaskHandler, type TaskUpdate, type TurnResumed } from './handler.js';
import { isFinalState, isTerminalState, MAX_PUSH_CONFIGS_PER_TASK, type StoredPushConfig, type TaskEvent } from '../model/task.js';
import type { SendMessageParams, TurnRules } from './operations.js';
import { HandlerContext, type TurnOpening, type TurnSignal } from './handler-context.js';
import { acceptsMediaType, unsupportedContent } from './input-modes.js';
import { messageFieldIssues } from './message-fields.js';
import { withMessageId } from './message-ids.js';
import { indexOfMessage, MessageTaken } from './idempotency.js';
import { copyFromHandler, InvalidUpdateError, toEvent, updatesOf, withArtifactIndexes } from './handler-updates.js';
import { assertOwner, ownerOf } from './ownership.js';
import {
  copyRecord,
  HANDED_OVER,
  upgradeRecord,
  type StoredEvent,
  type StoredRefusal,
  type StoredTurnOpening,
  type TaskChange,
  type TaskHead,
  type TaskRecord,
  type TaskUpdateResult,
} from '../model/record.js';
import { historyEntrySize, jsonSize, taskBaseSize } from '../model/size.js';
import { isHandedOver, QUEUED_HOLDER, type QueuedTurn, type TaskStore } from '../store/task-store.js';
import { isFinalEvent, now, statusEvent } from './task-events.js';
import { TurnWriter, type GivenCheckpoint } from './turn-writer.js';

/** A turn that has been accepted and recorded, before its handler runs. */
export interface TurnStart extends TurnOpening {
  /** The events that opened the turn (its `working` status), as stored. */
  readonly events: readonly StoredEvent[];
  /** For a turn taken up from its record: the trace of the call that started it (its opening's). */
  readonly traceparent?: string;
}

/** A turn whose handler runs in this process. */
export interface RunningTurn {
  readonly taskId: string;
  /** The turn as it was accepted: the record in `working`, with the message in its history. */
  readonly started: TurnStart;
  readonly turn: number;
  /** Which run of the turn this is: 1, or more for a turn resumed after its process was lost. */
  readonly attempt: number;
  /** Settles once the turn is in a final state (completed, failed, canceled, rejected, input-required, auth-required). */
  readonly ended: Promise<void>;
  /** Whether it has ended: true from the moment `ended` settles. */
  readonly over: boolean;
  /** The A2AError the handler threw, if it threw one. */
  readonly error: A2AError | undefined;
  /**
   * The task as this turn's own final update left it, once the turn has ended that way (not
   * when it was canceled or failed from elsewhere): its answer, without reading the store.
   */
  readonly finalRecord: TaskRecord | undefined;
  /**
   * The turn waits in the store's turn queue for a worker (a role other than `all`): nothing runs
   * it here, and `ended` does not settle; its end is told by the store's events.
   */
  readonly queued?: boolean;
}

/** A turn queued for a worker, as the process that started it sees it (see `RunningTurn.queued`). */
export function queuedTurn(start: TurnStart): RunningTurn {
  return {
    taskId: start.record.task.id,
    started: start,
    turn: start.record.turn,
    attempt: start.record.attempt ?? 1,
    ended: new Promise<void>(() => undefined),
    over: false,
    error: undefined,
    finalRecord: undefined,
    queued: true,
  };
}

interface Run extends RunningTurn, TurnSignal {
  /** Set by `markEnded`: the turn is over, whatever the handler still does. */
  over: boolean;
  /** Settles once the handler has returned (or thrown) and what it yielded is written or refused. */
  executed: Promise<void>;
  error: A2AError | undefined;
  finalRecord: TaskRecord | undefined;
  markEnded(): void;
}

function abort(run: Run): void {
  run.aborted = true;
  run.controller?.abort();
}

/**
 * A handler that yields updates without waiting on I/O (chunks in a loop) would otherwise run
 * its whole turn as one chain of microtasks: no socket drains and no other request is served
 * meanwhile, and its stream's queue fills until the stream is cut. Every this many updates the
 * turn lets the event loop run.
 */
const UPDATES_BETWEEN_YIELDS = 64;
/**
 * Most events waiting behind a write in flight before the handler is made to wait for it: the
 * memory one fast stream may hold, and the size of one write at most (the store's own group).
 */
const MAX_EVENTS_PER_WRITE = 256;
// setImmediate is Node's (and Bun's and Deno's): after the I/O waiting. Where there is none (a
// Worker, a browser), a timer's turn is the nearest.
const setImmediateOf = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;
const yieldToEventLoop = setImmediateOf
  ? () => new Promise<void>((resolve) => setImmediateOf(resolve))
  : () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Thrown inside a store change when the update belongs to a turn that is over. */
const STALE_TURN = Symbol('stale turn');
/** Returned, then thrown, by a change that has nothing to change: nothing is written. */
const UNCHANGED = Symbol('unchanged');

/** A handler's update that would take its task past `maxTaskBytes`. */
class TaskTooLargeError extends Error {}

/** What becomes of a turn whose process was lost; the router's options. */
export interface InterruptedTurns {
  /** `'resume'`: run its handler again here (a shared store only); `'fail'`: fail its task. */
  readonly onInterrupted: 'fail' | 'resume';
  /** Most runs of one turn: a turn lost this many times is failed rather than run again. */
  readonly maxAttempts: number;
  /** Most bytes of JSON in one checkpoint. */
  readonly maxCheckpointBytes: number;
  /**
   * `'all'` (default): a turn runs in the process that started it. `'front-end'` or `'worker'`:
   * every turn goes through the store's turn queue, and runs where a worker claims it
   * (docs/replicas.md); a shared store with a turn queue only.
   */
  readonly role?: 'all' | 'front-end' | 'worker';
}

/** How large one task may grow; the router's options. */
interface TaskLimits extends InterruptedTurns {
  /** The agent's authentication: the headers its API key strategies read are kept from handlers. */
  readonly auth?: AuthOptions | undefined;
  /** Most parts in one message from a client. */
  readonly maxPartsPerMessage: number;
  /** Most bytes (`partsSize` estimate) of one task's history and artifacts together. */
  readonly maxTaskBytes: number;
  /** The media types a client's parts may have (the card's input modes); undefined takes any. */
  readonly acceptedInputModes?: readonly string[];
}

const HANDLER_FAILED = 'The agent failed while processing the task.';
const INVALID_UPDATE = 'The agent produced an invalid update.';
const TOO_LARGE = 'The task grew past the size this agent keeps for one task; start a new task for more.';
// A failed task takes no more messages (-32009), so the way to retry is a new task.
const PROCESS_LOST =
  'The agent process running this task stopped responding (its lease expired); to retry, send the message again as a new task (a new task id).';
const NOT_RESUMED_HERE =
  'The agent replica running this task stopped and handed it over, and the replica that took it does not resume turns; to retry, send the message again as a new task (a new task id).';
const attemptsSpent = (attempts: number) =>
  `The agent process running this task stopped responding ${attempts} times (its lease expired each time), the most this agent tries one message; to retry, send the message again as a new task (a new task id).`;

/**
 * Most bytes of JSON kept of what a turn was started with (its request's metadata and
 * configuration, its caller) for it to be resumed: written with each of its changes, so bounded.
 * A turn that came with more is failed, not resumed, when its process is lost.
 */
const MAX_OPENING_BYTES = 64 * 1024;

/** What became of a task whose process was lost, or that a draining replica handed over: run again here, or failed. */
export type Recovery =
  | { readonly action: 'resumed'; readonly attempt: number; readonly reason: 'crash' | 'hand-over' }
  | { readonly action: 'failed'; readonly attempts: number };

/**
 * The metadata of the `working` status event a hand-over writes (the value: the attempt that goes
 * on elsewhere): the last event a draining replica's streams of the turn send before they end, so
 * their clients know to resubscribe elsewhere (with `Last-Event-ID`); docs/replicas.md.
 */
export const HAND_OVER_METADATA_KEY = 'a2a-express/hand-over';

/** Most characters of JSON of a refusal's `data` a record keeps for a caller waiting elsewhere (larger: the error without it). */
const MAX_STORED_REFUSAL_DATA_CHARS = 16 * 1024;

/**
 * How long a hand-over waits for an aborted handler to return before it lets its turn go: a
 * handler that heeds `ctx.signal` has stopped before another replica can start the turn again.
 * One that does not is fenced all the same (its writes are refused), but may still be busy.
 */
const HANDLER_STOP_WAIT_MS = 1_000;

export class TaskEngine {
  private readonly running = new Map<string, Run>();
  /** Refuses a handler's update that takes its task past `maxTaskBytes`. */
  private readonly checkSize: TaskChange['check'];
  /** Whether the agent takes a part of this media type. */
  private readonly acceptsMediaType: ((mediaType: string) => boolean) | undefined;
  /** Headers a handler is not shown (lower case): those the API key strategies read. */
  private readonly credentialHeaders: ReadonlySet<string>;
  private madeProcessId: string | undefined;
  /**
   * This process, as a task's record names the process running its turn (`holder`). Made on first
   * use, not with the engine: a Worker makes its handler in global scope, where it may not make
   * random values.
   */
  get processId(): string {
    this.madeProcessId ??= crypto.randomUUID();
    return this.madeProcessId;
  }
  /** Whether a turn whose process was lost runs again (`onInterrupted: 'resume'` on a shared store). */
  private readonly resumes: boolean;
  /** Set once a drain hands this process's turns over: it then takes over none of the others'. */
  private handingOver = false;

  /** Whether a drain hands the turns still running over to the other replicas rather than fail them (resume on a shared store). */
  get handsOverOnDrain(): boolean {
    return this.resumes;
  }

  /** False once a drain hands this process's turns over: the replica duties take over no turn for it. */
  get takesOverTurns(): boolean {
    return !this.handingOver;
  }

  /**
   * Whether turns go through the store's turn queue (a role other than `all`): a turn started here
   * is queued, not run, and so is one taken over after its worker was lost or handed over.
   */
  readonly queuesTurns: boolean;

  /**
   * @param onCommit called after each change this engine makes, with the stored events: the
   *   push notifier's hook, so each change is notified once, by the process that made it.
   */
  constructor(
    private readonly store: TaskStore,
    private readonly handler: TaskHandler,
    private readonly logger: Logger,
    private readonly limits: TaskLimits,
    private readonly onCommit?: (result: TaskUpdateResult) => void,
    private readonly metrics?: Pick<A2AMetrics, 'turnEnded' | 'turnInterrupted'>,
    shared = false,
  ) {
    const { maxTaskBytes, acceptedInputModes } = limits;
    this.resumes = shared && limits.onInterrupted === 'resume';
    this.queuesTurns = shared && (limits.role ?? 'all') !== 'all';
    this.acceptsMediaType = acceptedInputModes && acceptsMediaType(acceptedInputModes);
    this.credentialHeaders = new Set(
      (limits.auth?.strategies ?? []).flatMap(({ cardCredentials }) =>
        cardCredentials?.in === 'header' && typeof cardCredentials.name === 'string' ? [cardCredentials.name.toLowerCase()] : [],
      ),
    );
    this.checkSize = (after) => {
      if ((after.bytes ?? 0) > maxTaskBytes) throw new TaskTooLargeError();
    };
  }

  /**
   * Changes a task through the store, then tells the observer. Not an async function: without
   * an observer it hands back the store's promise as it is, one promise less per update.
   */
  private commit(
    taskId: string,
    change: (current: TaskRecord | undefined) => TaskChange,
    checkHead?: (head: TaskHead) => void,
  ): Promise<TaskUpdateResult> {
    // A store of the app's own may hand back records of the previous release.
    const updated = this.store.update(
      taskId,
      (current) => change(current && upgradeRecord(current)),
      // upgradeRecord reads and copies the head's fields alone: it leaves a head a head.
      checkHead && { checkHead: (head) => checkHead(upgradeRecord(head as TaskRecord)) },
    );
    const onCommit = this.onCommit;
    if (!onCommit) return updated;
    return updated.then((result) => {
      onCommit(result);
      return result;
    });
  }

  /**
   * Refuses a client's message this agent does not take, before anything else is done with it
   * (its push config's URL is checked after): too many parts (-32602), or a part whose media
   * type the card's input modes do not list (-32005).
   */
  checkMessage(params: SendMessageParams): void {
    const { maxPartsPerMessage } = this.limits;
    if (params.message.parts.length > maxPartsPerMessage) {
      throw A2AError.invalidParams([
        {
          path: '/message/parts',
          message: `must NOT have more than ${maxPartsPerMessage} items`,
          keyword: 'maxItems',
          params: { limit: maxPartsPerMessage },
        },
      ]);
    }
    if (this.acceptsMediaType) {
      const refused = unsupportedContent(params.message, this.acceptsMediaType, this.limits.acceptedInputModes!);
      if (refused) throw refused;
    }
  }

  /**
   * Records the new message and moves the task to `working`, atomically: creates the task, or
   * continues it when it waits for input or is completed (reopened). A task that is working,
   * failed or canceled refuses with -32009. The message has passed {@link checkMessage}.
   */
  async startTurn(
    taskId: string,
    sentParams: SendMessageParams,
    principal?: Principal,
    rules: TurnRules = {},
    call?: CallContext,
  ): Promise<TurnStart> {
    const { maxTaskBytes } = this.limits;
    // Given outside the update, which a shared store may run more than once: one id per message.
    const message = withMessageId(sentParams.message);
    const params = message === sentParams.message ? sentParams : Object.assign({}, sentParams, { message });
    let isNewTask = false;
    const sent = params.configuration?.taskPushNotificationConfig;
    // A config sent with a message without an id is the task's own: the same config sent with
    // every message of the task (as SDK clients do) is one config.
    const pushConfig = sent && ({ ...sent, id: sent.id || taskId } as StoredPushConfig);
    // A queued turn runs in another process, which needs what it was started with, as a resumed one does.
    const opening = this.resumes || this.queuesTurns ? this.openingOf(params, principal, call) : undefined;
    if (this.queuesTurns && opening === undefined) {
      throw A2AError.invalidParams({
        reason: `the request's metadata, configuration and headers are more than ${MAX_OPENING_BYTES} bytes of JSON together, more than a turn handed to a worker carries`,
      });
    }
    /**
     * Refuses the message for what the task's head says (whose it is, its context and state, its
     * size), else the task's push configs and size with it. Needs nothing of the history or the
     * artifacts: a store may ask it before reading those (checkHead).
     */
    const admit = (base: TaskHead, existing: boolean): { pushConfigs: TaskRecord['pushConfigs']; bytes: number } => {
      if (existing) {
        assertOwner(base, principal);
        assertSameContext(base, params);
        assertContinuable(base, rules);
      }
      const issues = messageFieldIssues(params.message, { taskId, contextId: base.task.contextId });
      if (issues.length > 0) throw A2AError.invalidParams(issues.map((issue) => ({ ...issue, path: `/message${issue.path}` })));
      // A config sent with the message replaces the task's config of the same id (spec 7.1.1
      // leaves it to the server).
      const pushConfigs = pushConfig ? withPushConfig(base, pushConfig, '/configuration/taskPushNotificationConfig') : base.pushConfigs;
      const size = historyEntrySize(base.task, params.message) + pushConfigsSize(pushConfigs) - pushConfigsSize(base.pushConfigs);
      const bytes = (base.bytes ?? 0) + size;
      if (bytes > maxTaskBytes) throw tooLargeForTask(taskId, '/message', maxTaskBytes, base.bytes, size);
      return { pushConfigs, bytes };
    };
    // A message the task holds already (a retry, docs/idempotency.md) starts no turn.
    const sentId = sentParams.message.messageId;
    const { record, events } = await this.commit(
      taskId,
      (current) => {
        if (current && sentId !== undefined && indexOfMessage(current, sentId) >= 0) {
          assertOwner(current, principal);
          throw new MessageTaken(current);
        }
        isNewTask = current === undefined;
        if (!current && rules.existingTaskOnly) throw A2AError.taskNotFound(taskId);
        const base = current ?? newRecord(taskId, params, principal);
        const { pushConfigs, bytes } = admit(base, current !== undefined);
        const withMessage = copyRecord(base);
        withMessage.bytes = bytes;
        withMessage.history = [...base.history, params.message];
        withMessage.turn = base.turn + 1;
        withMessage.pushConfigs = pushConfigs;
        withMessage.replied = undefined;
        withMessage.refusal = undefined;
        // Without resume these stay unset, as do those of an earlier turn.
        withMessage.attempt = opening && 1;
        withMessage.holder = this.queuesTurns ? QUEUED_HOLDER : opening && this.processId;
        withMessage.handOvers = undefined;
        withMessage.resumeReason = undefined;
        withMessage.opening = opening && { ...opening, messageAt: base.history.length, isNewTask };
        withMessage.checkpoint = undefined;
        return { record: withMessage, events: [statusEvent(taskId, 'working')] };
      },
      (head) => void admit(head, true),
    ).catch((error: unknown) => this.takenOr(error, taskId, sentId, principal));
    return { record, events, isNewTask, params, principal, call: call && turnCallSourceOf(call) };
  }

  /**
   * What a turn's start refused for the task's state (its head: still working, or ended) is a
   * retry all the same when the task holds the message (the head alone could not tell):
   * MessageTaken then, else the refusal.
   */
  private async takenOr(error: unknown, taskId: string, messageId: string | undefined, principal: Principal | undefined): Promise<never> {
    if (messageId === undefined || !(error instanceof A2AError) || error.code !== ErrorCode.InvalidTaskState) throw error;
    const stored = await this.store.get(taskId);
    const record = stored && upgradeRecord(stored);
    if (!record || indexOfMessage(record, messageId) < 0) throw error;
    assertOwner(record, principal);
    throw new MessageTaken(record);
  }

  /** Runs the handler for a started turn, in the background. */
  run(start: TurnStart): RunningTurn {
    let resolveEnded!: () => void;
    const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
    const run: Run = {
      taskId: start.record.task.id,
      started: start,
      turn: start.record.turn,
      attempt: start.record.attempt ?? 1,
      controller: undefined,
      aborted: false,
      over: false,
      ended,
      executed: Promise.resolve(),
      error: undefined,
      finalRecord: undefined,
      markEnded() {
        run.over = true;
        resolveEnded();
      },
    };
    this.running.set(run.taskId, run);
    // A child of the call that started the turn (its context is the active one here), and the
    // context the handler runs in: its own calls out become the turn's children, and so stay
    // tied to the call even when the turn outlives its request.
    // A turn taken up from its record (by a worker, or resumed) has no call here: its parent is
    // the call that started it, wherever that ran.
    const parent = start.traceparent === undefined ? undefined : contextOfTraceparent(start.traceparent);
    const span = startChildSpan('a2a turn', { [A2A_ATTRIBUTES.taskId]: run.taskId, [A2A_ATTRIBUTES.turn]: run.turn }, undefined, parent);
    if (run.attempt > 1) span.setAttribute('a2a.turn.attempt', run.attempt);
    const startedAt = performance.now();
    run.executed = withSpan(span, () => this.execute(run, start)).finally(() => {
      run.markEnded();
      if (this.running.get(run.taskId) === run) this.running.delete(run.taskId);
      const state = run.finalRecord?.task.status.state ?? (run.aborted ? 'aborted' : 'unknown');
      this.metrics?.turnEnded(state, (performance.now() - startedAt) / 1000);
      if (span.isRecording()) {
        span.setAttribute(A2A_ATTRIBUTES.state, state);
        if (state === 'failed') failSpan(span, 'the turn failed');
        span.end();
      }
    });
    return run;
  }

  /**
   * Cancels a task that is not finished: it becomes `canceled` at once and the running handler's
   * signal aborts. Unknown task → -32001; completed, failed or canceled → -32002.
   */
  async cancel(taskId: string, principal?: Principal): Promise<TaskRecord> {
    const { record } = await this.commit(taskId, (current) => {
      if (!current) throw A2AError.taskNotFound(taskId);
      assertOwner(current, principal);
      const { state } = current.task.status;
      if (isTerminalState(state)) throw A2AError.taskNotCancelable(taskId, state);
      return { record: current, events: [statusEvent(taskId, 'canceled')] };
    });
    this.abortTurn(taskId, record.turn);
    return record;
  }

  /**
   * Sets the task's push config of `config.id` (adding it, or replacing the one of that id); the
   * caller has checked the config. Unknown task (or someone else's) → -32001.
   */
  async setPushConfig(taskId: string, config: StoredPushConfig, principal?: Principal): Promise<TaskRecord> {
    return this.changePushConfigs(taskId, principal, (current) => withPushConfig(current, config, '/pushNotificationConfig'));
  }

  /** Removes the task's push config of that id; one it does not have is removed already (nothing is written). */
  async deletePushConfig(taskId: string, configId: string, principal?: Principal): Promise<TaskRecord> {
    return this.changePushConfigs(taskId, principal, (current) => {
      const configs = current.pushConfigs ?? [];
      return configs.some((config) => config.id === configId) ? configs.filter((config) => config.id !== configId) : UNCHANGED;
    });
  }

  private async changePushConfigs(
    taskId: string,
    principal: Principal | undefined,
    change: (current: TaskRecord) => readonly StoredPushConfig[] | typeof UNCHANGED,
  ): Promise<TaskRecord> {
    let unchanged: TaskRecord | undefined;
    try {
      const { record } = await this.commit(taskId, (current) => {
        if (!current) throw A2AError.taskNotFound(taskId);
        assertOwner(current, principal);
        const configs = change(current);
        if (configs === UNCHANGED) {
          unchanged = current;
          throw UNCHANGED;
        }
        const next = copyRecord(current);
        next.pushConfigs = configs;
        next.bytes = Math.max(0, (current.bytes ?? 0) + pushConfigsSize(next.pushConfigs) - pushConfigsSize(current.pushConfigs));
        if (next.bytes > this.limits.maxTaskBytes)
          throw tooLargeForTask(taskId, '/pushNotificationConfig', this.limits.maxTaskBytes, current.bytes);
        return { record: next, events: [] };
      });
      return record;
    } catch (error) {
      if (error === UNCHANGED && unchanged) return unchanged;
      throw error;
    }
  }

  /**
   * Aborts the handler of this turn if it runs in this process and the turn is not over: the
   * turn was canceled, or failed by another process (a shared store tells of both); given
   * `attempt`, only a run of an earlier attempt (another process took the turn over).
   */
  abortTurn(taskId: string, turn: number, attempt?: number): void {
    const run = this.running.get(taskId);
    if (!run || run.turn !== turn || run.over) return;
    if (attempt !== undefined && run.attempt >= attempt) return;
    abort(run);
    run.markEnded();
  }

  /** Aborts every handler running in this process (their tasks stay as they are). */
  abortAll(): void {
    for (const run of this.running.values()) abort(run);
  }

  /** The tasks whose handlers run in this process now. */
  runningTaskIds(): string[] {
    return [...this.running.keys()];
  }

  /** Settles once every turn running in this process now has ended, or when `deadline` settles first. */
  async allEnded(deadline: Promise<void>): Promise<void> {
    await Promise.race([Promise.all([...this.running.values()].map((run) => run.ended)), deadline]);
  }

  /**
   * Ends every turn still running in this process: aborts its handler and fails its task with
   * `reason`, one final event that its streams, webhooks and waiting `tasks/send` callers get.
   * How a shutdown ends the turns that did not finish in time. Returns how many it stopped.
   */
  async stopAll(reason: string): Promise<number> {
    const runs = [...this.running.values()].filter((run) => !run.over);
    await Promise.all(
      runs.map((run) => {
        abort(run);
        return this.endFailed(run, reason, this.logger.child({ taskId: run.taskId }));
      }),
    );
    return runs.length;
  }

  /**
   * Hands every turn still running here over to the other replicas: how a drain with resume on a
   * shared store ends the turns that did not finish in time, instead of failing them. Each
   * turn's handler is aborted (`ctx.signal`) and given up to HANDLER_STOP_WAIT_MS to return; then
   * one change of its task begins the turn's next attempt, held by no process ({@link HANDED_OVER})
   * and with its lease expired, and appends a `working` status event marked
   * {@link HAND_OVER_METADATA_KEY}. The store announces it, and the replica that claims it first
   * runs the handler again with `ctx.resumed.reason` `'hand-over'`. From its start this process
   * takes over no turn itself. Returns the turns it handed over: the id of each one's hand-over
   * event, by task.
   */
  async handOverAll(): Promise<Map<string, number>> {
    this.handingOver = true;
    const runs = [...this.running.values()].filter((run) => !run.over);
    const eventIds = await Promise.all(runs.map((run) => this.handOver(run)));
    const handedOver = new Map<string, number>();
    for (let i = 0; i < runs.length; i++) {
      const eventId = eventIds[i];
      if (eventId !== undefined) handedOver.set(runs[i]!.taskId, eventId);
    }
    return handedOver;
  }

  /** Hands one turn over (see {@link handOverAll}): the id of its hand-over event, undefined when it had ended. */
  private async handOver(run: Run): Promise<number | undefined> {
    const log = this.logger.child({ taskId: run.taskId });
    abort(run);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([run.executed, new Promise<void>((resolve) => (timer = setTimeout(resolve, HANDLER_STOP_WAIT_MS)))]);
    clearTimeout(timer);
    try {
      const { record } = await this.commit(run.taskId, (current) => {
        if (!isCurrentTurn(current, run)) throw STALE_TURN;
        const next = copyRecord(current);
        next.attempt = run.attempt + 1;
        next.holder = HANDED_OVER;
        next.handOvers = (current.handOvers ?? 0) + 1;
        const metadata = { [HAND_OVER_METADATA_KEY]: { attempt: next.attempt } };
        return { record: next, events: [statusEvent(run.taskId, 'working', undefined, metadata)] };
      });
      return record.lastEventId;
    } catch (error) {
      // Its lease runs out all the same: another replica resumes it then, as after a crash.
      if (error !== STALE_TURN)
        log.error({ err: error }, 'could not hand the turn over; another replica resumes it once its lease runs out');
      return undefined;
    } finally {
      run.markEnded();
      // No more renewals of its lease from here.
      if (this.running.get(run.taskId) === run) this.running.delete(run.taskId);
    }
  }

  /**
   * Takes over a task whose process stopped renewing its lease (a shared store found it expired
   * and this process claimed it), or that a draining replica handed over, unless it has ended
   * meanwhile: with resume, and attempts left, begins the turn's next attempt in one
   * compare-and-set (from then on the writes of every earlier attempt are refused) and runs its
   * handler here; otherwise fails the task, saying why. Attempts that ended by a hand-over do not
   * count against `maxAttempts`: a deploy does not use up a turn's tries. Undefined when the task
   * had ended, or when this process hands its own turns over (it takes none).
   */
  async recoverAbandoned(taskId: string): Promise<Recovery | undefined> {
    if (this.handingOver) return undefined;
    let recovery: Recovery | undefined;
    let record: TaskRecord;
    try {
      ({ record } = await this.commit(taskId, (current) => {
        if (!current || isFinalState(current.task.status.state)) throw STALE_TURN;
        const handedOver = isHandedOver(current);
        const attempts = current.attempt ?? 1;
        const { opening } = current;
        // The attempts lost with their process, this one included; a handed-over one has not begun.
        const lost = attempts - (current.handOvers ?? 0);
        if (
          !this.resumes ||
          opening === undefined ||
          current.history[opening.messageAt] === undefined ||
          (!handedOver && lost >= this.limits.maxAttempts)
        ) {
          recovery = { action: 'failed', attempts };
          const text =
            !this.resumes && handedOver ? NOT_RESUMED_HERE : this.resumes && opening !== undefined ? attemptsSpent(lost) : PROCESS_LOST;
          return { record: current, events: [statusEvent(taskId, 'failed', withMessageId(agentMessage(text)))] };
        }
        // A hand-over numbered the attempt that goes on already.
        const attempt = handedOver ? attempts : attempts + 1;
        recovery = { action: 'resumed', attempt, reason: handedOver ? 'hand-over' : 'crash' };
        const next = copyRecord(current);
        next.attempt = attempt;
        // Queued again for a worker (the store adds the entry with this write), or run here.
        next.holder = this.queuesTurns ? QUEUED_HOLDER : this.processId;
        // The worker that claims it tells its handler why it runs again.
        if (this.queuesTurns) next.resumeReason = handedOver ? 'hand-over' : 'crash';
        return { record: next, events: [] };
      }));
    } catch (error) {
      if (error === STALE_TURN) return undefined;
      throw error;
    }
    const taken = recovery!;
    this.metrics?.turnInterrupted(taken.action, taken.action === 'resumed' ? taken.reason : 'crash');
    if (taken.action === 'resumed' && !this.queuesTurns) {
      const resumed: TurnResumed = { attempt: taken.attempt, reason: taken.reason, checkpoint: record.checkpoint };
      this.run(resumedStart(record, record.opening!, resumed));
    }
    return taken;
  }

  /**
   * Claims a turn a worker took from the store's turn queue and runs its handler here: in one
   * compare-and-set, the task's holder goes from `queued` to this process (so one worker alone runs
   * it; its lease starts), unless the turn is no longer the one queued (canceled meanwhile, or
   * claimed already). A turn queued again after its worker was lost runs with `ctx.resumed`.
   * Undefined when there is nothing to run.
   */
  async claimQueued(taken: QueuedTurn): Promise<RunningTurn | undefined> {
    let record: TaskRecord;
    let reason: TurnResumed['reason'] = 'crash';
    try {
      ({ record } = await this.commit(taken.taskId, (current) => {
        if (
          !current ||
          isFinalState(current.task.status.state) ||
          current.turn !== taken.turn ||
          (current.attempt ?? 1) !== taken.attempt ||
          current.holder !== QUEUED_HOLDER ||
          current.opening === undefined ||
          current.history[current.opening.messageAt] === undefined
        ) {
          throw STALE_TURN;
        }
        reason = current.resumeReason ?? 'crash';
        const next = copyRecord(current);
        next.holder = this.processId;
        next.resumeReason = undefined;
        return { record: next, events: [] };
      }));
    } catch (error) {
      if (error === STALE_TURN) return undefined;
      throw error;
    }
    const resumed: TurnResumed | undefined =
      taken.attempt > 1 ? { attempt: taken.attempt, reason, checkpoint: record.checkpoint } : undefined;
    return this.run(resumedStart(record, record.opening!, resumed));
  }

  /**
   * What a turn keeps of how it was started, for another process to run it again; undefined
   * (the turn is not resumable) when that is more than MAX_OPENING_BYTES.
   */
  private openingOf(
    params: SendMessageParams,
    principal: Principal | undefined,
    call: CallContext | undefined,
  ): Omit<StoredTurnOpening, 'messageAt' | 'isNewTask'> | undefined {
    const { acceptedOutputModes, historyLength, returnImmediately, taskPushNotificationConfig: push } = params.configuration ?? {};
    const configuration: Record<string, unknown> = {};
    if (acceptedOutputModes) configuration.acceptedOutputModes = acceptedOutputModes;
    if (historyLength !== undefined) configuration.historyLength = historyLength;
    if (returnImmediately !== undefined) configuration.returnImmediately = returnImmediately;
    // What the handler is shown of the push config: never its token or credentials.
    if (push) {
      configuration.taskPushNotificationConfig = {
        url: push.url,
        ...(push.id && { id: push.id }),
        ...(push.authentication?.schemes && { authentication: { schemes: push.authentication.schemes } }),
      };
    }
    const source = call && turnCallSourceOf(call);
    const traceparent = activeTraceparent();
    const opening = {
      configuration,
      ...(traceparent && { traceparent }),
      ...(params.metadata && { metadata: params.metadata }),
      ...(principal && { owner: principal }),
      ...(source && {
        call: {
          ...turnCallOf(source, this.credentialHeaders),
          extensions: source.extensions?.requested ?? [],
          ...(source.principal && { principal: source.principal }),
        },
      }),
    };
    try {
      const copy = copyFromHandler(opening) as StoredTurnOpening;
      return jsonSize(copy) <= MAX_OPENING_BYTES ? copy : undefined;
    } catch {
      return undefined;
    }
  }

  private async execute(run: Run, start: TurnStart): Promise<void> {
    const writer = new TurnWriter((events, checkpoints) => this.write(run, events, checkpoints));
    let handlerError: { error: unknown } | undefined;
    try {
      const updates = await updatesOf(this.handler(new HandlerContext(run, start, this.logger, this.credentialHeaders)));
      let sinceYield = 0;
      let sinceStart = 0;
      // Leaving the loop early calls a generator's return(), so its finally blocks run.
      for await (const update of updates) {
        if (run.aborted || writer.over) break;
        const event = toEvent(run.taskId, update);
        const checkpoint = update.checkpoint === undefined ? undefined : this.checkpointOf(update);
        // A reply is the whole answer only as the turn's first update: after others, the client
        // has been shown the task, and the reply completes it like any final message.
        if (sinceStart++ > 0 && 'reply' in event) event.reply = undefined;
        writer.add(event, checkpoint);
        // Nothing the handler yields after its final state is asked for.
        if (isFinalEvent(event)) break;
        // Bounded: while a full batch waits, the handler waits for the write ahead of it.
        while (writer.backlog >= MAX_EVENTS_PER_WRITE && !writer.over) await writer.batchWritten();
        if (++sinceYield === UPDATES_BETWEEN_YIELDS) {
          sinceYield = 0;
          await yieldToEventLoop();
        }
      }
    } catch (error) {
      handlerError = { error };
    }
    // What the handler yielded before it failed is written first, in order.
    await writer.settled();
    const failure = writer.failure ?? handlerError;
    if (failure) return this.fail(run, failure.error);
    if (writer.over || run.aborted) return;
    // A handler that ends without a final state has done its work.
    writer.add(statusEvent(run.taskId, 'completed'));
    await writer.settled();
    if (writer.failure) await this.fail(run, writer.failure.error);
  }

  /**
   * Writes a batch of the handler's events; false once the turn is over. A batch that would take
   * the task past `maxTaskBytes` is written event by event, so that what fits is kept, as it
   * would have been had the events come one at a time.
   */
  private async write(run: Run, events: readonly TaskEvent[], checkpoints?: readonly (GivenCheckpoint | undefined)[]): Promise<boolean> {
    if (run.aborted) return false;
    const checkpoint = checkpoints && lastCheckpoint(checkpoints);
    try {
      const { record } = await this.commit(run.taskId, (current) => {
        // Refused to a turn that is over, and to an attempt another process has taken over.
        if (!isCurrentTurn(current, run)) throw STALE_TURN;
        let record = current;
        if (checkpoint) {
          const next = copyRecord(current);
          next.checkpoint = checkpoint.value;
          record = next;
        }
        return { record, events: withArtifactIndexes(current, events), check: this.checkSize };
      });
      if (!isFinalState(record.task.status.state)) return true;
      run.finalRecord = record;
      run.markEnded();
      return false;
    } catch (error) {
      if (error === STALE_TURN) {
        // Another process runs this turn now: this run stops (its handler is aborted).
        if (!run.over) abort(run);
        return false;
      }
      if (error instanceof TaskTooLargeError && events.length > 1) {
        for (let i = 0; i < events.length; i++) {
          const given = checkpoints?.[i];
          if (!(await this.write(run, [events[i]!], given && [given]))) return false;
        }
        return true;
      }
      throw error;
    }
  }

  /**
   * The checkpoint given with an update, copied, when turns are resumed (it is checked either
   * way, so that a handler's checkpoints are refused alike wherever it runs): InvalidUpdateError
   * past `maxCheckpointBytes`.
   */
  private checkpointOf(update: TaskUpdate): GivenCheckpoint | undefined {
    const value = copyFromHandler(update.checkpoint!);
    const { maxCheckpointBytes } = this.limits;
    const size = jsonSize(value);
    if (size > maxCheckpointBytes) {
      throw new InvalidUpdateError(
        `checkpoint: ${size} bytes of JSON, more than maxCheckpointBytes (${maxCheckpointBytes}); a checkpoint says where the handler got to, not what it made`,
      );
    }
    return this.resumes ? { value } : undefined;
  }

  private async fail(run: Run, error: unknown): Promise<void> {
    if (run.aborted) return;
    const log = this.logger.child({ taskId: run.taskId });
    let text = HANDLER_FAILED;
    let refusal: StoredRefusal | undefined;
    if (error instanceof A2AError) {
      run.error = error;
      text = error.message;
      refusal = { code: error.code, message: error.message, data: storableRefusalData(error.data), reason: error.reason };
      log.warn({ code: error.code }, 'handler refused the task');
    } else if (error instanceof InvalidUpdateError) {
      text = INVALID_UPDATE;
      log.error({ reason: error.message }, 'handler yielded an invalid update');
    } else if (error instanceof TaskTooLargeError) {
      text = TOO_LARGE;
      log.warn({ maxTaskBytes: this.limits.maxTaskBytes }, 'the task grew past maxTaskBytes');
    } else {
      log.error({ err: error }, 'handler failed');
    }
    await this.endFailed(run, text, log, refusal);
  }

  /**
   * Ends a turn as `failed` with `text`, if it is still the task's current turn, and keeps the
   * record as the turn's answer; the turn is over either way. What a handler's error and a
   * shutdown both end a turn with.
   */
  private async endFailed(run: Run, text: string, log: Logger, refusal?: StoredRefusal): Promise<void> {
    try {
      const { record } = await this.commit(run.taskId, (current) => {
        if (!isCurrentTurn(current, run)) throw STALE_TURN;
        let failed = current;
        if (refusal) {
          const refused = copyRecord(current);
          refused.refusal = refusal;
          failed = refused;
        }
        return { record: failed, events: [statusEvent(run.taskId, 'failed', withMessageId(agentMessage(text)))] };
      });
      run.finalRecord = record;
    } catch (storeError) {
      if (storeError !== STALE_TURN) log.error({ err: storeError }, 'could not record the failure');
    }
    run.markEnded();
  }
}

function newRecord(taskId: string, params: SendMessageParams, principal: Principal | undefined): TaskRecord {
  const record = copyRecord({
    task: {
      id: taskId,
      contextId: contextIdOf(params) ?? crypto.randomUUID(),
      status: { state: 'submitted', timestamp: now() },
    },
    history: [],
    lastEventId: 0,
    turn: 0,
    updatedAt: Date.now(),
  });
  record.owner = ownerOf(principal);
  record.bytes = taskBaseSize(record.task);
  return record;
}

/** The context a send names: the request's (0.1.0's `sessionId`), else its message's, if any. */
function contextIdOf(params: SendMessageParams): string | undefined {
  const { contextId } = params.message as { contextId?: unknown };
  return params.task?.contextId ?? (typeof contextId === 'string' && contextId !== '' ? contextId : undefined);
}

/** -32602 for what a client sent that would take its task past `maxTaskBytes`. */
/**
 * A refusal's `data` as a record may keep it: only while small, since it rides in the record's
 * head, which every change rewrites; and only plain JSON (a cycle would not serialize).
 */
function storableRefusalData(data: unknown): unknown {
  if (data === undefined) return undefined;
  try {
    const json = JSON.stringify(data);
    return json !== undefined && json.length <= MAX_STORED_REFUSAL_DATA_CHARS ? JSON.parse(json) : undefined;
  } catch {
    return undefined;
  }
}

function tooLargeForTask(taskId: string, path: string, limit: number, taskBytes = 0, messageBytes?: number): A2AError {
  return A2AError.invalidParams([
    {
      path,
      message: `would take task ${taskId} past ${limit} bytes of history and artifacts; start a new task`,
      keyword: 'maxTaskBytes',
      params: messageBytes === undefined ? { limit, taskBytes } : { limit, taskBytes, messageBytes },
    },
  ]);
}

/** What a task's push configs cost; none cost nothing. */
function pushConfigsSize(configs: readonly StoredPushConfig[] | undefined): number {
  let size = 0;
  for (const config of configs ?? []) size += jsonSize(config);
  return size;
}

/**
 * The task's push configs with `config` in place of the one of its id, or after the others;
 * -32602 at `path` when that would make more than {@link MAX_PUSH_CONFIGS_PER_TASK}.
 */
function withPushConfig(current: TaskHead, config: StoredPushConfig, path: string): StoredPushConfig[] {
  const configs = current.pushConfigs ?? [];
  const at = configs.findIndex((existing) => existing.id === config.id);
  if (at >= 0) return configs.map((existing, i) => (i === at ? config : existing));
  assertRoomForPushConfig(current, config.id, path);
  return [...configs, config];
}

/** -32602 at `path` when the task has no config of `configId` and no room for one more. */
export function assertRoomForPushConfig(record: TaskHead, configId: string, path: string): void {
  const configs = record.pushConfigs ?? [];
  if (configs.length < MAX_PUSH_CONFIGS_PER_TASK || configs.some((existing) => existing.id === configId)) return;
  throw A2AError.invalidParams([
    {
      path,
      message: `task ${record.task.id} has ${configs.length} push configs, the most one task keeps; delete one first`,
      keyword: 'maxPushConfigs',
      params: { limit: MAX_PUSH_CONFIGS_PER_TASK },
    },
  ]);
}

/**
 * -32602 when a send names another context than its task's (spec 1.0 3.4.3): checked before the
 * task's state, as a client that mixes up its conversations is told so first.
 */
function assertSameContext(current: TaskHead, params: SendMessageParams): void {
  const named = params.task?.contextId !== undefined ? 'task' : 'message';
  const contextId = named === 'task' ? params.task!.contextId : params.message.contextId;
  if (contextId == null || contextId === '' || contextId === current.task.contextId) return;
  throw A2AError.invalidParams([
    {
      path: `/${named}/contextId`,
      message: `does not match the context of task ${current.task.id}`,
      keyword: 'contextId',
      params: { expected: current.task.contextId },
    },
  ]);
}

function assertContinuable(current: TaskHead, rules: TurnRules): void {
  const { state } = current.task.status;
  const taskId = current.task.id;
  if (state === 'submitted' || state === 'working') {
    throw A2AError.invalidTaskState(taskId, state, 'the task is still working on an earlier message');
  }
  if (state !== 'input-required' && state !== 'auth-required' && (state !== 'completed' || rules.completedIsTerminal)) {
    throw A2AError.invalidTaskState(taskId, state, `the task has ${state === 'unknown' ? 'no known state' : 'ended'}; start a new task`);
  }
}

function isCurrentTurn(current: TaskRecord | undefined, run: Run): current is TaskRecord {
  return (
    current !== undefined && current.turn === run.turn && (current.attempt ?? 1) === run.attempt && !isFinalState(current.task.status.state)
  );
}

/** The last checkpoint of a batch's, which is written with the batch. */
function lastCheckpoint(checkpoints: readonly (GivenCheckpoint | undefined)[]): GivenCheckpoint | undefined {
  for (let i = checkpoints.length - 1; i >= 0; i--) if (checkpoints[i] !== undefined) return checkpoints[i];
  return undefined;
}

/** A turn to run (again: given `resumed`), from its record as the process that takes it wrote it. */
function resumedStart(record: TaskRecord, opening: StoredTurnOpening, resumed: TurnResumed | undefined): TurnStart {
  const params: SendMessageParams = { message: record.history[opening.messageAt]! };
  if (opening.configuration) params.configuration = opening.configuration as SendMessageParams['configuration'];
  if (opening.metadata) params.metadata = opening.metadata;
  const stored = opening.call;
  const call: TurnCallSource | undefined = stored && {
    principal: stored.principal as Principal | undefined,
    headers: stored.headers,
    origin: { protocol: stored.protocol, binding: stored.binding, method: stored.method, params: undefined },
    tenant: stored.tenant,
    extensions: new CallExtensions(stored.extensions),
  };
  return {
    record,
    events: [],
    isNewTask: opening.isNewTask,
    params,
    principal: opening.owner as Principal | undefined,
    call,
    ...(resumed && { resumed }),
    ...(opening.traceparent && { traceparent: opening.traceparent }),
    messageAt: opening.messageAt,
  };
}
