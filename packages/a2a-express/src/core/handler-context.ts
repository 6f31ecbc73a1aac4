// The context a handler runs with. Everything in it is the handler's own: the task, message and
// history are copies (made on first use, as most handlers read only some), so a handler that
// changes them changes nothing stored.
import type { Message, Metadata } from '../model/task.js';
import type { SendMessageParams } from './operations.js';
import type { Logger } from 'pino';
import type { Principal } from './auth.js';
import { turnCallOf, type TurnCall, type TurnCallSource } from './call.js';
import { NO_EXTENSIONS, type CallExtensions } from './extensions.js';
import type { SendConfiguration, TaskContext, TaskView, TurnResumed } from './handler.js';
import { jsonCopy } from '../model/plain-json.js';
import { taskSnapshot, type TaskRecord } from '../model/record.js';

/** How a turn's abort reaches its handler: the controller is made when the handler first reads `signal`. */
export interface TurnSignal {
  readonly taskId: string;
  controller: AbortController | undefined;
  aborted: boolean;
}

/** What a turn starts from: the record after its opening event, and the request that opened it. */
export interface TurnOpening {
  readonly record: TaskRecord;
  readonly isNewTask: boolean;
  readonly params: SendMessageParams;
  readonly principal: Principal | undefined;
  /** What it keeps of the call that opened it; undefined for a turn the core started itself. */
  readonly call: TurnCallSource | undefined;
  /** Set when the turn runs again after its process was lost. */
  readonly resumed?: TurnResumed;
  /** Where the turn's message is in the record's history, when not last (a resumed turn's). */
  readonly messageAt?: number;
}

/** A class: V8 builds an object literal with getters on a slow path, and this is made once per turn. */
export class HandlerContext implements TaskContext {
  readonly contextId: string;
  readonly sessionId: string;
  readonly isNewTask: boolean;
  readonly requestMetadata: Metadata | undefined;
  readonly principal: Principal | undefined;
  readonly resumed: TurnResumed | undefined;
  readonly #turn: TurnSignal;
  readonly #opening: TurnOpening;
  readonly #baseLogger: Logger;
  readonly #credentialHeaders: ReadonlySet<string>;
  #task: TaskView | undefined;
  #call: TurnCall | undefined;
  #configuration: SendConfiguration | undefined;
  #message: Message | undefined;
  #history: Message[] | undefined;
  #logger: Logger | undefined;

  constructor(turn: TurnSignal, opening: TurnOpening, baseLogger: Logger, credentialHeaders: ReadonlySet<string> = new Set()) {
    const { record, params } = opening;
    this.contextId = record.task.contextId;
    this.sessionId = this.contextId;
    this.isNewTask = opening.isNewTask;
    this.requestMetadata = params.metadata ?? undefined;
    // The caller's own principal (the turn's owner may be its tenant with it).
    this.principal = opening.call ? opening.call.principal : opening.principal;
    this.resumed = opening.resumed;
    this.#turn = turn;
    this.#opening = opening;
    this.#baseLogger = baseLogger;
    this.#credentialHeaders = credentialHeaders;
  }

  get call(): TurnCall {
    const context = this.#opening.call;
    return (this.#call ??= context
      ? turnCallOf(context, this.#credentialHeaders)
      : { protocol: '', binding: '', method: '', headers: {}, tenant: undefined });
  }

  get extensions(): CallExtensions {
    return this.#opening.call?.extensions ?? NO_EXTENSIONS;
  }

  get configuration(): SendConfiguration {
    return (this.#configuration ??= configurationOf(this.#opening.params));
  }

  get acceptedOutputModes(): readonly string[] | undefined {
    return this.configuration.acceptedOutputModes;
  }

  get task(): TaskView {
    return (this.#task ??= jsonCopy({ ...taskSnapshot(this.#opening.record), sessionId: this.contextId }));
  }

  get message(): Message {
    return (this.#message ??= jsonCopy(this.#opening.params.message));
  }

  get history(): Message[] {
    return (this.#history ??= jsonCopy(this.#opening.record.history.slice(0, this.#opening.messageAt ?? -1)));
  }

  get signal(): AbortSignal {
    const turn = this.#turn;
    if (!turn.controller) {
      turn.controller = new AbortController();
      if (turn.aborted) turn.controller.abort();
    }
    return turn.controller.signal;
  }

  get logger(): Logger {
    return (this.#logger ??= this.#baseLogger.child({ taskId: this.#turn.taskId }));
  }
}

/**
 * The send's configuration as a handler is shown it: a copy, the push config's credentials (its
 * token, its authentication's credentials) left out.
 */
function configurationOf(params: SendMessageParams): SendConfiguration {
  const { acceptedOutputModes, historyLength, returnImmediately, taskPushNotificationConfig: push } = params.configuration ?? {};
  const configuration: SendConfiguration = { returnImmediately: returnImmediately === true };
  if (acceptedOutputModes) configuration.acceptedOutputModes = [...acceptedOutputModes];
  if (historyLength !== undefined) configuration.historyLength = historyLength;
  if (push) {
    // What the client gave: its URL, its id (an empty one is the task's own), the schemes of its
    // authentication; never the token or the credentials.
    const shown: NonNullable<SendConfiguration['pushNotificationConfig']> = { url: push.url };
    if (push.id) shown.id = push.id;
    if (push.authentication?.schemes) shown.authentication = { schemes: [...push.authentication.schemes] };
    configuration.pushNotificationConfig = shown;
  }
  return configuration;
}
