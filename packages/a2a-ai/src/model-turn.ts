// A model's turn as the kit's updates, whichever library drove the model: each adapter (ai-sdk.ts,
// langchain.ts) turns its library's stream into these events, and this file alone decides what
// a client sees. Updates are built as plain objects (the shapes of a2a-express's helpers) so
// that nothing of a2a-express is loaded here: an agent served by its fetch handler or node
// handler does not load its Express router through this package.
import type { Message, Metadata, Part, TaskContext, TaskUpdate } from 'a2a-express';

/** Token counts of a turn, summed over its model calls; a count the provider did not give is left out. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
}

/** A tool call as the model made it. */
export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/** What a model's stream tells, in the terms of this package (each adapter maps its library's parts to these). */
export type ModelEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  /** The end of a block of reasoning: what was gathered since is sent as one `working` message. */
  | { type: 'reasoning-end' }
  /** `askUser`: the adapter knows this tool asks the user, whatever its name. */
  | ({ type: 'tool-call'; askUser?: boolean } & ModelToolCall)
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: unknown }
  | { type: 'tool-error'; toolCallId: string; toolName: string; error: unknown }
  | { type: 'usage'; usage: ModelUsage }
  | { type: 'error'; error: unknown };

/** The tool name a model calls to ask the user, unless `askUserTools` names others. */
export const ASK_USER_TOOL = 'ask_user';

/**
 * The key, in the metadata of the messages this package sends, of what the model did (its tool
 * calls, their results, its questions), so that the next turn gives the model its own history
 * back: see {@link transcriptOf}.
 */
export const TURN_METADATA_KEY = 'a2a-ai';

export interface ModelTurnOptions {
  /**
   * How the answer's text reaches the client: `'artifact'` (the default) streams it as one
   * artifact in chunks, as the model writes it; `'reply'` sends it at the end as one message
   * (a `reply`: 0.3 and 1.0 clients may get the message alone, with no task).
   */
  answer?: 'artifact' | 'reply';
  /** The name of the answer's artifact. Default `answer`. */
  artifactName?: string;
  /** Send the model's reasoning to the client, one `working` message a block. Default false. */
  reasoning?: boolean;
  /**
   * The names of the tools that ask the user (a call of one ends the turn in `input-required`,
   * and the user's next message on the task is its result). Default `['ask_user']`; the AI SDK's
   * tools made by `askUserTool()` are found by their metadata whatever their name.
   */
  askUserTools?: readonly string[];
  /** What the client is told when the model fails (the error itself is logged, never sent). */
  failureMessage?: string;
}

export const DEFAULT_FAILURE_MESSAGE = 'The model could not answer. Please try again later.';

/** What this package writes into a message's metadata (under {@link TURN_METADATA_KEY}). */
export type TurnRecord =
  | { kind: 'tool-call'; text?: string; toolCall: ModelToolCall }
  | { kind: 'tool-result'; toolCallId: string; toolName: string; output: unknown; isError?: boolean }
  | { kind: 'reasoning' }
  | { kind: 'ask-user'; text?: string; toolCalls: ModelToolCall[] };

/**
 * The updates of one turn from a model's events: text as one artifact streamed in chunks (or a
 * reply), tool calls and results as `working` messages, reasoning as `working` messages when
 * asked, a call of a tool that asks the user as `input-required`, the turn's usage in the final
 * status's metadata (`usage`), and a failure of the model as `failed` with a safe message, its
 * detail in `ctx.logger`. When the task is canceled (`ctx.signal`), it stops without an update.
 */
export async function* modelTurnUpdates(
  events: AsyncIterable<ModelEvent>,
  ctx: Pick<TaskContext, 'signal' | 'logger'>,
  options: ModelTurnOptions = {},
): AsyncGenerator<TaskUpdate, void, undefined> {
  const asReply = options.answer === 'reply';
  const askUserTools = new Set(options.askUserTools ?? [ASK_USER_TOOL]);
  const artifactName = options.artifactName ?? 'answer';
  // One chunk is held back so that the artifact's last chunk can say it is the last.
  let heldChunk: string | undefined;
  let artifactStarted = false;
  // The text since the last message this package sent: what the model said before a tool call,
  // kept with it so that the next turn's history has it where it was said.
  let textSinceLastMessage = '';
  let replyText = '';
  let reasoning = '';
  const questions: ModelToolCall[] = [];
  let usage: ModelUsage | undefined;
  let failure: unknown;
  let failed = false;

  const chunk = (text: string, lastChunk: boolean): TaskUpdate => {
    const artifact: { name?: string; parts: Part[]; append?: boolean; lastChunk?: boolean } = artifactStarted
      ? { parts: [{ type: 'text', text }], append: true }
      : { name: artifactName, parts: [{ type: 'text', text }] };
    if (lastChunk) artifact.lastChunk = true;
    artifactStarted = true;
    return { kind: 'artifact', artifact };
  };
  /** The chunk held back, sent before a status so that the client sees the text where it was said. */
  function* flush(): Generator<TaskUpdate> {
    if (heldChunk !== undefined) yield chunk(heldChunk, false);
    heldChunk = undefined;
  }
  const takeText = (): string | undefined => {
    const text = textSinceLastMessage;
    textSinceLastMessage = '';
    return text === '' || asReply ? undefined : text;
  };

  try {
    for await (const event of events) {
      switch (event.type) {
        case 'text':
          if (event.text === '') break;
          textSinceLastMessage += event.text;
          if (asReply) replyText += event.text;
          else {
            if (heldChunk !== undefined) yield chunk(heldChunk, false);
            heldChunk = event.text;
          }
          break;
        case 'reasoning':
          reasoning += event.text;
          break;
        case 'reasoning-end':
          if (options.reasoning && reasoning.trim() !== '') {
            yield* flush();
            yield working(reasoning, { kind: 'reasoning' });
          }
          reasoning = '';
          break;
        case 'tool-call': {
          const call: ModelToolCall = { toolCallId: event.toolCallId, toolName: event.toolName, input: event.input };
          // A question for the user ends the turn, once the step's other tools have answered.
          if (event.askUser || askUserTools.has(event.toolName)) {
            questions.push(call);
            break;
          }
          yield* flush();
          const text = takeText();
          yield working(
            [textPart(`Calling ${event.toolName}`), dataPart({ toolCall: jsonSafe(call) })],
            text === undefined ? { kind: 'tool-call', toolCall: jsonSafe(call) } : { kind: 'tool-call', text, toolCall: jsonSafe(call) },
          );
          break;
        }
        case 'tool-result': {
          const output = jsonSafe(event.output);
          yield* flush();
          yield working(
            [
              textPart(`${event.toolName} answered`),
              dataPart({ toolResult: { toolCallId: event.toolCallId, toolName: event.toolName, output } }),
            ],
            { kind: 'tool-result', toolCallId: event.toolCallId, toolName: event.toolName, output },
          );
          break;
        }
        case 'tool-error':
          // A tool's error may hold anything (a stack, a URL with a key): the log has it, the
          // client is told only which tool failed.
          ctx.logger.warn({ err: event.error, toolName: event.toolName, toolCallId: event.toolCallId }, 'a tool failed');
          yield* flush();
          yield working(`${event.toolName} failed`, {
            kind: 'tool-result',
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            output: { error: 'The tool failed.' },
            isError: true,
          });
          break;
        case 'usage':
          usage = addUsage(usage, event.usage);
          break;
        case 'error':
          failure = event.error;
          failed = true;
          break;
      }
      if (failed) break;
    }
  } catch (error) {
    failure = error;
    failed = true;
  }
  // A canceled task is the kit's to end: the model's abort is no failure of the agent.
  if (ctx.signal.aborted) return;
  const metadata: Metadata | undefined = usage ? { usage: { ...usage } } : undefined;
  if (failed) {
    ctx.logger.error({ err: failure }, 'the model failed; the task fails with a generic message');
    yield* flush();
    yield status('failed', agentMessage([textPart(options.failureMessage ?? DEFAULT_FAILURE_MESSAGE)]), metadata);
    return;
  }
  if (heldChunk !== undefined) yield chunk(heldChunk, true);
  else if (artifactStarted) yield chunk('', true);
  heldChunk = undefined;
  if (questions.length > 0) {
    const text = takeText();
    const record: TurnRecord = { kind: 'ask-user', toolCalls: questions.map(jsonSafe) };
    if (text !== undefined) record.text = text;
    const question = questions.map(questionOf).join('\n');
    yield status('input-required', { role: 'agent', parts: [textPart(question)], metadata: { [TURN_METADATA_KEY]: record } }, metadata);
    return;
  }
  if (asReply && replyText !== '') {
    const reply: TaskUpdate = { kind: 'reply', message: agentMessage([textPart(replyText)]) };
    yield metadata ? { ...reply, metadata } : reply;
    return;
  }
  yield status('completed', undefined, metadata);
}

/** What the user is asked: the call's `question` (or `prompt`, `message`), else its input as text. */
function questionOf(call: ModelToolCall): string {
  const input = call.input as Record<string, unknown> | string | null | undefined;
  if (typeof input === 'string') return input;
  for (const key of ['question', 'prompt', 'message']) {
    const value = input?.[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return JSON.stringify(input ?? {});
}

function addUsage(total: ModelUsage | undefined, more: ModelUsage): ModelUsage {
  const sum: ModelUsage = { ...total };
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens', 'reasoningTokens'] as const) {
    const value = more[key];
    if (typeof value === 'number' && Number.isFinite(value)) sum[key] = (sum[key] ?? 0) + value;
  }
  return sum;
}

/**
 * A value as plain JSON, or a note that it was not: a tool's input or output is the agent's to
 * show, but one JSON cannot carry (a BigInt, a cycle) would make the kit refuse the update and
 * fail the task.
 */
function jsonSafe<T>(value: T): T {
  try {
    const text = JSON.stringify(value);
    return (text === undefined ? null : JSON.parse(text)) as T;
  } catch {
    return { unserializable: true } as T;
  }
}

const textPart = (text: string): Part => ({ type: 'text', text });
const dataPart = (data: Record<string, unknown>): Part => ({ type: 'data', data });
const agentMessage = (parts: Part[], metadata?: Metadata): Message =>
  metadata ? { role: 'agent', parts, metadata } : { role: 'agent', parts };

function working(content: string | Part[], record: TurnRecord): TaskUpdate {
  const parts = typeof content === 'string' ? [textPart(content)] : content;
  return status('working', agentMessage(parts, { [TURN_METADATA_KEY]: record }));
}

function status(state: 'working' | 'input-required' | 'completed' | 'failed', message?: Message, metadata?: Metadata): TaskUpdate {
  const update: { kind: 'status'; state: typeof state; message?: Message; metadata?: Metadata } = { kind: 'status', state };
  if (message) update.message = message;
  if (metadata) update.metadata = metadata;
  return update;
}
