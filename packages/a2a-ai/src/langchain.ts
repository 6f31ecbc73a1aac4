// LangChain.js (`@langchain/core`) as an A2A handler: what a chat model's or a runnable's
// `.stream()` yields as the kit's updates, and the task's conversation as LangChain messages.
// Only this entry point loads `@langchain/core`.
import { AIMessage, HumanMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { DynamicStructuredTool } from '@langchain/core/tools';
import type { TaskContext, TaskHandler, TaskUpdate } from 'a2a-express';
import { modelTurnUpdates, type ModelEvent, type ModelTurnOptions, type ModelUsage } from './model-turn.js';
import { AGENT_TOOL_INPUT_SCHEMA } from './agent-tool-input.js';
import { type AnyAgentCard, RemoteAgent, type RemoteAgentOptions, type RemoteConversation } from './remote-agent.js';
import { transcriptOf } from './transcript.js';

export { ASK_USER_TOOL, TURN_METADATA_KEY, type ModelTurnOptions } from './model-turn.js';

/** What the handler gives the model call: pass `messages` as the input and `signal` in its options. */
export interface LangChainTurnInput {
  /** The task's conversation (its history and this turn's message) as LangChain messages. */
  messages: BaseMessage[];
  /** The task's abort signal: aborts when the task is canceled. Pass it as `{ signal }`. */
  signal: AbortSignal;
}

/**
 * What a stream may yield: a chat model's `AIMessageChunk`s, messages (a `ToolMessage` is a
 * tool's result), text (a runnable ending in a string parser), or LangGraph's `[message,
 * metadata]` pairs (`streamMode: 'messages'`).
 */
export type LangChainStreamItem = BaseMessage | AIMessageChunk | string | readonly [BaseMessage, unknown];

/**
 * A handler from a LangChain.js stream: `start` calls `.stream()` with the task's messages and
 * abort signal, and the handler sends what the model says as the turn's updates (see
 * {@link ModelTurnOptions}). The model's tool calls are shown as they are made; running them
 * is the runnable's (an agent's), whose `ToolMessage`s are shown as their results. A call of
 * the tool that asks the user (`ask_user`, or `askUserTools`) ends the turn in `input-required`.
 *
 * ```ts
 * a2aRouter(langChainHandler(({ messages, signal }) => model.stream(messages, { signal })), { card });
 * ```
 */
export function langChainHandler(
  start: (
    input: LangChainTurnInput,
    ctx: TaskContext,
  ) => AsyncIterable<LangChainStreamItem> | PromiseLike<AsyncIterable<LangChainStreamItem>>,
  options: ModelTurnOptions = {},
): TaskHandler {
  return (ctx) =>
    modelTurnUpdates(
      eventsOf(() => start({ messages: historyAsLangChainMessages(ctx), signal: ctx.signal }, ctx)),
      ctx,
      options,
    );
}

/** The updates of a LangChain.js stream, for a handler that calls the model itself (pass it `{ signal: ctx.signal }`). */
export function langChainUpdates(
  stream: AsyncIterable<LangChainStreamItem>,
  ctx: Pick<TaskContext, 'signal' | 'logger'>,
  options: ModelTurnOptions = {},
): AsyncGenerator<TaskUpdate, void, undefined> {
  return modelTurnUpdates(
    eventsOf(() => stream),
    ctx,
    options,
  );
}

async function* eventsOf(
  start: () => AsyncIterable<LangChainStreamItem> | PromiseLike<AsyncIterable<LangChainStreamItem>>,
): AsyncGenerator<ModelEvent> {
  // A model's tool calls arrive in pieces (`tool_call_chunks`): the chunks of one message are
  // gathered, and its calls told when it ends (another message starts, or the stream ends).
  let gathered: AIMessageChunk | undefined;
  let reasoningOpen = false;
  function* endOfMessage(): Generator<ModelEvent> {
    if (reasoningOpen) yield { type: 'reasoning-end' };
    reasoningOpen = false;
    if (!gathered) return;
    for (const call of gathered.tool_calls ?? []) {
      yield { type: 'tool-call', toolCallId: call.id ?? crypto.randomUUID(), toolName: call.name, input: call.args };
    }
    const usage = usageOf(gathered.usage_metadata);
    if (usage) yield { type: 'usage', usage };
    gathered = undefined;
  }
  for await (const item of await start()) {
    const message = Array.isArray(item) ? (item[0] as BaseMessage) : (item as BaseMessage | string);
    if (typeof message === 'string') {
      yield { type: 'text', text: message };
      continue;
    }
    const type = message.type;
    if (type === 'ai') {
      const chunk = message as AIMessageChunk;
      if (gathered && chunk.id !== undefined && gathered.id !== undefined && chunk.id !== gathered.id) yield* endOfMessage();
      for (const event of contentEvents(chunk)) {
        if (event.type === 'reasoning') reasoningOpen = true;
        else if (reasoningOpen) {
          yield { type: 'reasoning-end' };
          reasoningOpen = false;
        }
        yield event;
      }
      gathered = gathered && typeof gathered.concat === 'function' ? gathered.concat(chunk) : chunk;
      continue;
    }
    yield* endOfMessage();
    if (type === 'tool') {
      const result = message as ToolMessage;
      const name = result.name ?? 'tool';
      if (result.status === 'error') yield { type: 'tool-error', toolCallId: result.tool_call_id, toolName: name, error: result.content };
      else yield { type: 'tool-result', toolCallId: result.tool_call_id, toolName: name, output: result.content };
    }
  }
  yield* endOfMessage();
}

/** The text and reasoning of a chunk: its content (a string, or blocks), and a provider's `reasoning_content`. */
function* contentEvents(chunk: AIMessageChunk): Generator<ModelEvent> {
  const reasoning = chunk.additional_kwargs?.reasoning_content;
  if (typeof reasoning === 'string' && reasoning !== '') yield { type: 'reasoning', text: reasoning };
  const content = chunk.content as unknown;
  if (typeof content === 'string') {
    if (content !== '') yield { type: 'text', text: content };
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content as Record<string, unknown>[]) {
    if (block.type === 'text' && typeof block.text === 'string') yield { type: 'text', text: block.text };
    else if (block.type === 'reasoning' && typeof block.reasoning === 'string') yield { type: 'reasoning', text: block.reasoning };
    else if (block.type === 'thinking' && typeof block.thinking === 'string') yield { type: 'reasoning', text: block.thinking };
  }
}

function usageOf(usage: { input_tokens?: number; output_tokens?: number; total_tokens?: number } | undefined): ModelUsage | undefined {
  if (!usage) return undefined;
  const counted: ModelUsage = {};
  if (typeof usage.input_tokens === 'number') counted.inputTokens = usage.input_tokens;
  if (typeof usage.output_tokens === 'number') counted.outputTokens = usage.output_tokens;
  if (typeof usage.total_tokens === 'number') counted.totalTokens = usage.total_tokens;
  return counted;
}

/**
 * The task's conversation as LangChain messages: the user's as `HumanMessage`s, the model's as
 * `AIMessage`s with their tool calls, tool results (and the user's answer to a question the
 * model asked, `{"answer": ...}`) as `ToolMessage`s. The system prompt is yours to put first.
 */
export function historyAsLangChainMessages(ctx: Pick<TaskContext, 'history' | 'message'>): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (const entry of transcriptOf(ctx)) {
    if (entry.role === 'user') messages.push(new HumanMessage(entry.text));
    else if (entry.role === 'assistant') {
      messages.push(
        new AIMessage({
          content: entry.text,
          tool_calls: entry.toolCalls.map((call) => ({
            id: call.toolCallId,
            name: call.toolName,
            args: (call.input ?? {}) as Record<string, unknown>,
            type: 'tool_call' as const,
          })),
        }),
      );
    } else {
      for (const result of entry.results) {
        messages.push(
          new ToolMessage({
            content: typeof result.output === 'string' ? result.output : JSON.stringify(result.output ?? null),
            tool_call_id: result.toolCallId,
            name: result.toolName,
            ...(result.isError ? { status: 'error' as const } : {}),
          }),
        );
      }
    }
  }
  return messages;
}

export interface A2AAgentToolOptions extends RemoteAgentOptions {
  /**
   * The conversation the tool continues. Default: one of its own, so that each tool is one
   * conversation; make a tool per conversation of yours (or give each its own here).
   */
  conversation?: RemoteConversation;
}

/**
 * Another A2A agent as a LangChain.js tool (named after its card, unless `name`): the model sends
 * it a message, and the tool streams the call (with a2a-client, in the version and binding the
 * card offers) and returns its answer as JSON (`RemoteAnswer`: text, data parts, or the question
 * the agent asks when it needs more, which the model answers by calling the tool again).
 * Successive calls continue the same remote conversation. `agent` is its URL or card (read here,
 * once), or a `RemoteAgent` already connected (then only `conversation` of the options applies).
 *
 * ```ts
 * const echo = await a2aAgentTool('http://127.0.0.1:41241');
 * const model = chatModel.bindTools([echo]);
 * ```
 */
export async function a2aAgentTool(
  agent: string | URL | AnyAgentCard | RemoteAgent,
  options: A2AAgentToolOptions = {},
): Promise<DynamicStructuredTool> {
  const { conversation: given, ...connectOptions } = options;
  const remote = agent instanceof RemoteAgent ? agent : await RemoteAgent.connect(agent, connectOptions);
  const conversation = given ?? remote.conversation();
  return new DynamicStructuredTool({
    name: remote.name,
    description: remote.description,
    schema: AGENT_TOOL_INPUT_SCHEMA,
    func: async (input: { message: string }, _run, config) =>
      JSON.stringify(await remote.send(input.message, conversation, config?.signal)),
  });
}
