// What an agent author writes against: the handler's type, its context, the updates it yields,
// and one-line helpers to build them.
import type { DataPart, FileContent, FilePart, TextPart } from 'a2a-types/model';
import type { Artifact, Message, Metadata, Part, Task, TaskState } from '../model/task.js';
import type { JsonValue } from '../model/plain-json.js';
import type { Logger } from 'pino';
import type { Principal } from './auth.js';
import type { TurnCall } from './call.js';

/** The task as a handler sees it: the kit's task, with its context id under 0.1.0's name too. */
export interface TaskView extends Task {
  /** The task's `contextId`, by 0.1.0's name. */
  readonly sessionId: string;
}

/** What the handler learns about the turn it runs. */
export interface TaskContext {
  /** The task as it stands at the start of this turn (state `working`), without history. */
  readonly task: TaskView;
  /** The message that started this turn. */
  readonly message: Message;
  /** The task's earlier messages (the client's and the agent's), oldest first, without `message`. */
  readonly history: readonly Message[];
  /** The conversation the task belongs to: the `contextId` of 0.3 and 1.0, the `sessionId` of 0.1.0. */
  readonly contextId: string;
  /** The same as `contextId`, by its 0.1.0 name. */
  readonly sessionId: string;
  /** True on the first turn of a task; false when it resumes after input or reopens. */
  readonly isNewTask: boolean;
  /** The request's `metadata` (1.0's `SendMessageRequest.metadata`, 0.3's `MessageSendParams.metadata`, 0.1.0's `tasks/send`), if any. */
  readonly requestMetadata: Metadata | undefined;
  /** How the request asked to be answered, on every version in one form: see {@link SendConfiguration}. */
  readonly configuration: SendConfiguration;
  /** The media types the client takes in the answer's parts, when it said (`configuration.acceptedOutputModes`). */
  readonly acceptedOutputModes: readonly string[] | undefined;
  /**
   * The call this turn came with: its version, binding and method, its headers (gRPC: metadata)
   * without credentials, and the tenant it names.
   */
  readonly call: TurnCall;
  /**
   * The extensions the client asked for (`A2A-Extensions`; 0.3: `X-A2A-Extensions`), and a way
   * to say which the agent used: `activate(uri)` names it in the response's header of the same
   * name (for a stream, when activated before the first update), and returns false for one the
   * client did not ask for.
   */
  readonly extensions: {
    readonly requested: readonly string[];
    readonly activated: readonly string[];
    activate(uri: string): boolean;
  };
  /** Aborts when the task is canceled (`tasks/cancel`) or the router closes. */
  readonly signal: AbortSignal;
  /** A pino logger bound to this task (`taskId`), with secrets and file bytes redacted. */
  readonly logger: Logger;
  /** Who sent this turn's message, when the router authenticates requests. */
  readonly principal: Principal | undefined;
  /**
   * Set when this turn ran before and is run again (`onInterrupted: 'resume'`, docs/replicas.md):
   * the updates of the earlier attempts are stored and were streamed; carry on from `checkpoint`.
   * Undefined on a turn's first attempt.
   */
  readonly resumed: TurnResumed | undefined;
}

/** Why a turn's handler runs again, and where it had got to. */
export interface TurnResumed {
  /** This run of the turn: 2 the first time it is resumed. */
  readonly attempt: number;
  /**
   * `'crash'`: the process that ran it stopped renewing its lease (killed, out of memory, a node
   * lost); `'hand-over'`: a replica shutting down let it go.
   */
  readonly reason: 'crash' | 'hand-over';
  /** The turn's last checkpoint (the `checkpoint` of an update it yielded), undefined when it stored none. */
  readonly checkpoint: JsonValue | undefined;
}

/**
 * What every update may carry: a checkpoint, a small JSON state stored with the update in one
 * write, handed back in `ctx.resumed` if the turn is resumed (see {@link withCheckpoint}).
 */
interface Checkpointed {
  readonly checkpoint?: JsonValue;
}

/** A send's configuration as the handler sees it, whichever version the request came over. */
export interface SendConfiguration {
  /** The media types the client takes in the answer's parts (agents SHOULD tailor their output to them). */
  acceptedOutputModes?: string[];
  /** How many of the task's newest messages the answer shows. */
  historyLength?: number;
  /** Whether the client asked for an answer at once (1.0's `returnImmediately`, 0.3's `blocking: false`). */
  returnImmediately: boolean;
  /** The webhook the client gave with the message, without its token and credentials. */
  pushNotificationConfig?: { url: string; id?: string; authentication?: { schemes: string[] } };
}

/** The states a handler may move its task to. */
export type HandlerState = Extract<
  TaskState,
  'working' | 'input-required' | 'auth-required' | 'completed' | 'failed' | 'canceled' | 'rejected'
>;

export interface StatusUpdate extends Checkpointed {
  readonly kind: 'status';
  readonly state: HandlerState;
  readonly message?: Message;
  readonly metadata?: Metadata;
}

/**
 * An artifact or a chunk of one. Without `index`, a chunk with `append` continues the newest
 * artifact and any other chunk starts a new artifact after the existing ones.
 */
export interface ArtifactUpdate extends Checkpointed {
  readonly kind: 'artifact';
  readonly artifact: Artifact;
  readonly metadata?: Metadata;
}

/**
 * A message that is the whole answer: the turn ends, and clients that can take a message alone
 * (0.3, 1.0) get just this message, no task. 0.1.0 clients see the task completed with it.
 */
export interface MessageReply extends Checkpointed {
  readonly kind: 'reply';
  readonly message: Message;
  readonly metadata?: Metadata;
}

export type TaskUpdate = StatusUpdate | ArtifactUpdate | MessageReply;

/**
 * An agent's logic. Either an async generator that yields updates as they happen, or an async
 * function that returns its updates (one, an array, or nothing). A turn ends at the first
 * `completed`, `failed`, `canceled`, `rejected`, `input-required`, `auth-required` or `reply`; a
 * handler that ends without one completes its task. Throwing fails the task; an `A2AError` thrown is also sent to a
 * `tasks/send` caller that is still waiting, as that JSON-RPC error.
 */
export type TaskHandler = (
  context: TaskContext,
  // biome-ignore lint/suspicious/noConfusingVoidType: an async function that returns nothing is a handler too.
) => AsyncIterable<TaskUpdate> | Promise<TaskUpdate | readonly TaskUpdate[] | void>;

/** Text, parts, or a whole message: what the status helpers accept. */
export type MessageContent = string | Part | readonly Part[] | Message;

/** An agent message from text, parts or a message. */
export function agentMessage(content: MessageContent): Message {
  if (typeof content === 'string') return { role: 'agent', parts: [textPart(content)] };
  if (isMessage(content)) return content;
  return { role: 'agent', parts: Array.isArray(content) ? [...content] : [content as Part] };
}

function isMessage(content: MessageContent): content is Message {
  return !Array.isArray(content) && typeof content === 'object' && 'role' in content;
}

function status(state: HandlerState, content?: MessageContent, metadata?: Metadata): StatusUpdate {
  const update: { -readonly [K in keyof StatusUpdate]: StatusUpdate[K] } = { kind: 'status', state };
  if (content !== undefined) update.message = agentMessage(content);
  if (metadata) update.metadata = metadata;
  return update;
}

/** The task is being worked on; the optional message tells the client how it goes. */
export const working = (message?: MessageContent, metadata?: Metadata): StatusUpdate => status('working', message, metadata);
/** The task needs the client's answer; the message says what to send. Ends the turn. */
export const inputRequired = (message: MessageContent, metadata?: Metadata): StatusUpdate => status('input-required', message, metadata);
/** The task is done. Ends the turn. */
export const completed = (message?: MessageContent, metadata?: Metadata): StatusUpdate => status('completed', message, metadata);
/** The task could not be done; the message says why (it is sent to the client). Ends the turn. */
export const failed = (message?: MessageContent, metadata?: Metadata): StatusUpdate => status('failed', message, metadata);
/**
 * The agent will not do this task (state `rejected`); the message says why. Ends the task. 0.1.0
 * has no such state: its clients see `failed` with the message.
 */
export const rejected = (message?: MessageContent, metadata?: Metadata): StatusUpdate => status('rejected', message, metadata);
/**
 * The task needs the client to authenticate (state `auth-required`); the message says how. Ends
 * the turn; the client's next message continues the task. 0.1.0 clients see `input-required`.
 */
export const authRequired = (message: MessageContent, metadata?: Metadata): StatusUpdate => status('auth-required', message, metadata);

/**
 * Answers with a message alone, no task: a plain chat reply. Ends the turn. 0.3 and 1.0 clients
 * get the message (`message/send` answers with it, a stream sends it as its one event, if it is
 * the turn's first update); 0.1.0 clients see the task completed with the message.
 */
export function reply(content: MessageContent, metadata?: Metadata): MessageReply {
  const message = agentMessage(content);
  return metadata ? { kind: 'reply', message, metadata } : { kind: 'reply', message };
}

/**
 * The update with a checkpoint: the state the handler would carry on from, were its turn resumed
 * after this update (at most `maxCheckpointBytes` of JSON). The two are written together, so a
 * resumed turn never sends this update again, nor skips it.
 */
export function withCheckpoint<U extends TaskUpdate>(update: U, checkpoint: JsonValue): U {
  return Object.assign({}, update, { checkpoint });
}

export interface ArtifactOptions {
  name?: string;
  description?: string;
  index?: number;
  /** Add these parts to the artifact at `index` instead of replacing it. */
  append?: boolean;
  /** The last chunk of this artifact. */
  lastChunk?: boolean;
  metadata?: Metadata;
}

/** An artifact (or a chunk of one) from text, one part or several. */
export function artifact(content: string | Part | readonly Part[], options: ArtifactOptions = {}): ArtifactUpdate {
  const parts = typeof content === 'string' ? [textPart(content)] : Array.isArray(content) ? [...content] : [content as Part];
  // Object.assign, not a spread: on Node 20 a spread of the caller's fresh options object is
  // ten times slower, and streams build one chunk per event.
  return { kind: 'artifact', artifact: Object.assign({}, options, { parts }) };
}

export const textPart = (text: string, metadata?: Metadata): TextPart =>
  metadata ? { type: 'text', text, metadata } : { type: 'text', text };

/**
 * A data part. An object, not an array: the published schema and the reference clients take only
 * an object from an agent (an array is refused as an invalid update; wrap it in an object).
 */
export const dataPart = (data: Record<string, unknown>, metadata?: Metadata): DataPart =>
  metadata ? { type: 'data', data, metadata } : { type: 'data', data };

export const filePart = (file: FileContent, metadata?: Metadata): FilePart =>
  metadata ? { type: 'file', file, metadata } : { type: 'file', file };

/** The text of a message's (or parts') text parts, joined by newlines. */
export function textOf(source: Message | readonly Part[]): string {
  const parts = 'parts' in source ? source.parts : source;
  return parts
    .filter((p): p is TextPart => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}
