// The Vercel AI SDK (`ai`) as an A2A handler: a `streamText` result's stream as the kit's
// updates, and the task's conversation as the SDK's messages. Only this entry point loads `ai`.
import { jsonSchema, type LanguageModel, type ModelMessage, type TextStreamPart, type Tool, type ToolSet } from 'ai';
import type { TaskContext, TaskHandler, TaskUpdate } from 'a2a-express';
import { modelTurnUpdates, type ModelEvent, type ModelTurnOptions, type ModelUsage } from './model-turn.js';
import { AGENT_TOOL_INPUT_SCHEMA } from './agent-tool-input.js';
import type { LlmOptions } from './llm-config.js';
import { type AnyAgentCard, RemoteAgent, type RemoteAgentOptions, type RemoteAnswer, type RemoteConversation } from './remote-agent.js';
import { transcriptOf } from './transcript.js';

export { ASK_USER_TOOL, TURN_METADATA_KEY, type ModelTurnOptions } from './model-turn.js';

/**
 * The key, in a tool's `metadata`, that marks it as asking the user: a call of it ends the turn
 * in `input-required` with its `question`, and the user's answer is its result. `askUserTool()`
 * sets it; any tool without `execute` can carry it (`metadata: { [ASK_USER_METADATA_KEY]: true }`).
 */
export const ASK_USER_METADATA_KEY = 'a2a.askUser';

/** What the handler gives the model call: pass both to `streamText`. */
export interface AiSdkTurnInput {
  /** The task's conversation (its history and this turn's message), in the SDK's message shape. */
  messages: ModelMessage[];
  /** The task's abort signal: aborts when the task is canceled. Pass it as `abortSignal`. */
  abortSignal: AbortSignal;
}

/** What `streamText` returns, as far as this package reads it. */
export interface StreamTextLike {
  readonly stream: AsyncIterable<TextStreamPart<ToolSet>>;
}

/**
 * A handler from a model call: `start` calls `streamText` with the task's messages and abort
 * signal, and the handler streams what the model says as the turn's updates (see
 * {@link ModelTurnOptions}).
 *
 * ```ts
 * a2aRouter(aiSdkHandler(({ messages, abortSignal }) =>
 *   streamText({ model, instructions: 'You are ...', messages, tools, abortSignal, onError: () => {} })), { card });
 * ```
 */
export function aiSdkHandler(
  start: (input: AiSdkTurnInput, ctx: TaskContext) => StreamTextLike | PromiseLike<StreamTextLike>,
  options: ModelTurnOptions = {},
): TaskHandler {
  return (ctx) =>
    modelTurnUpdates(
      eventsOf(() => start({ messages: historyAsModelMessages(ctx), abortSignal: ctx.signal }, ctx)),
      ctx,
      options,
    );
}

/**
 * The updates of a `streamText` result, for a handler that calls the model itself:
 * `yield* streamTextUpdates(streamText({ ..., abortSignal: ctx.signal }), ctx)`.
 */
export function streamTextUpdates(
  result: StreamTextLike,
  ctx: Pick<TaskContext, 'signal' | 'logger'>,
  options: ModelTurnOptions = {},
): AsyncGenerator<TaskUpdate, void, undefined> {
  return modelTurnUpdates(
    eventsOf(() => result),
    ctx,
    options,
  );
}

async function* eventsOf(start: () => StreamTextLike | PromiseLike<StreamTextLike>): AsyncGenerator<ModelEvent> {
  const result = await start();
  for await (const part of result.stream) {
    const event = eventOf(part);
    if (event) yield event;
  }
}

function eventOf(part: TextStreamPart<ToolSet>): ModelEvent | undefined {
  switch (part.type) {
    case 'text-delta':
      return { type: 'text', text: part.text };
    case 'reasoning-delta':
      return { type: 'reasoning', text: part.text };
    case 'reasoning-end':
      return { type: 'reasoning-end' };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
        askUser: part.toolMetadata?.[ASK_USER_METADATA_KEY] === true,
      };
    case 'tool-result':
      return { type: 'tool-result', toolCallId: part.toolCallId, toolName: part.toolName, output: part.output };
    case 'tool-error':
      return { type: 'tool-error', toolCallId: part.toolCallId, toolName: part.toolName, error: part.error };
    case 'finish':
      return { type: 'usage', usage: usageOf(part.totalUsage) };
    case 'error':
      return { type: 'error', error: part.error };
    // The call was aborted: by the task's cancel (then the turn just stops), or by a signal of
    // the agent's own, such as a timeout, which fails the turn.
    case 'abort':
      return { type: 'error', error: new Error(`the model call was aborted${part.reason ? `: ${part.reason}` : ''}`) };
    default:
      return undefined;
  }
}

function usageOf(usage: {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
  outputTokenDetails?: { reasoningTokens?: number | undefined };
}): ModelUsage {
  const counted: ModelUsage = {};
  if (usage.inputTokens !== undefined) counted.inputTokens = usage.inputTokens;
  if (usage.outputTokens !== undefined) counted.outputTokens = usage.outputTokens;
  if (usage.totalTokens !== undefined) counted.totalTokens = usage.totalTokens;
  const reasoning = usage.outputTokenDetails?.reasoningTokens;
  if (reasoning !== undefined) counted.reasoningTokens = reasoning;
  return counted;
}

/**
 * The task's conversation as the SDK's messages: the user's messages, the model's earlier
 * answers, its tool calls with their results, and the user's answer to a question it asked as
 * that tool's result (see `transcriptOf`). The system prompt is yours (`instructions`).
 */
export function historyAsModelMessages(ctx: Pick<TaskContext, 'history' | 'message'>): ModelMessage[] {
  return transcriptOf(ctx).map((entry): ModelMessage => {
    if (entry.role === 'user') return { role: 'user', content: entry.text };
    if (entry.role === 'assistant') {
      if (entry.toolCalls.length === 0) return { role: 'assistant', content: entry.text };
      return {
        role: 'assistant',
        content: [
          ...(entry.text === '' ? [] : [{ type: 'text' as const, text: entry.text }]),
          ...entry.toolCalls.map((call) => ({
            type: 'tool-call' as const,
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            input: call.input,
          })),
        ],
      };
    }
    return {
      role: 'tool',
      content: entry.results.map((result) => ({
        type: 'tool-result' as const,
        toolCallId: result.toolCallId,
        toolName: result.toolName,
        output: result.isError
          ? { type: 'error-json' as const, value: (result.output ?? null) as never }
          : { type: 'json' as const, value: (result.output ?? null) as never },
      })),
    };
  });
}

export interface AskUserToolOptions {
  /** What the model is told the tool is for. */
  description?: string;
}

/**
 * A tool the model calls to ask the user something (`{ question }`): the turn ends in
 * `input-required` with the question, and the user's next message on the task is the tool's
 * result, `{ answer }`, when the model is called again. It has no `execute`: the SDK stops its
 * tool loop at it.
 */
export function askUserTool(options: AskUserToolOptions = {}): Tool<{ question: string }> {
  return {
    description:
      options.description ??
      'Ask the user a question when you need information only they can give. The conversation continues with their answer.',
    inputSchema: jsonSchema<{ question: string }>({
      type: 'object',
      properties: { question: { type: 'string', description: 'The question for the user' } },
      required: ['question'],
      additionalProperties: false,
    }),
    metadata: { [ASK_USER_METADATA_KEY]: true },
  };
}

/** What the model sends a remote agent: one message, in natural language. */
export interface AgentToolInput {
  message: string;
}

export interface A2AAgentToolOptions extends RemoteAgentOptions {
  /**
   * The conversation the tool continues. Default: one of its own, so that each tool is one
   * conversation; make a tool per conversation of yours (or give each its own here).
   */
  conversation?: RemoteConversation;
}

/**
 * Another A2A agent as an AI SDK tool: the model sends it a message, and the tool streams the
 * call (with a2a-client, in the version and binding the card offers) and returns its answer
 * (`RemoteAnswer`: text, data parts, or the question the agent asks when it needs more, which
 * the model answers by calling the tool again). Successive calls continue the same remote
 * conversation. `agent` is its URL or card (read here, once), or a `RemoteAgent` already
 * connected (then only `conversation` of the options applies).
 *
 * ```ts
 * const echo = await a2aAgentTool('http://127.0.0.1:41241');
 * streamText({ model, tools: { echo }, ... });
 * ```
 */
export async function a2aAgentTool(
  agent: string | URL | AnyAgentCard | RemoteAgent,
  options: A2AAgentToolOptions = {},
): Promise<Tool<AgentToolInput, RemoteAnswer>> {
  const { conversation: given, ...connectOptions } = options;
  const remote = agent instanceof RemoteAgent ? agent : await RemoteAgent.connect(agent, connectOptions);
  const conversation = given ?? remote.conversation();
  return {
    description: remote.description,
    inputSchema: jsonSchema<AgentToolInput>(AGENT_TOOL_INPUT_SCHEMA),
    execute: ({ message }, { abortSignal }) => remote.send(message, conversation, abortSignal),
  };
}

/**
 * The AI SDK model the options name (see `llmOptionsFromEnv` in `a2a-ai/llm-config`): OpenAI,
 * Anthropic, Google, or an OpenAI-compatible server (a local one, say). The provider's package
 * (`@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/google`, `@ai-sdk/openai-compatible`: install
 * the one you use) is loaded when first asked for, so an agent loads none of the others.
 */
export async function languageModelOf(options: LlmOptions): Promise<LanguageModel> {
  if (typeof options.model !== 'string') return options.model;
  const settings = { ...(options.apiKey ? { apiKey: options.apiKey } : {}), ...(options.baseUrl ? { baseURL: options.baseUrl } : {}) };
  switch (options.provider ?? 'openai-compatible') {
    case 'openai':
      return (await import('@ai-sdk/openai')).createOpenAI(settings)(options.model);
    case 'anthropic':
      return (await import('@ai-sdk/anthropic')).createAnthropic(settings)(options.model);
    case 'google':
      return (await import('@ai-sdk/google')).createGoogle(settings)(options.model);
    case 'openai-compatible': {
      if (!options.baseUrl) throw new Error('an OpenAI-compatible provider needs a base URL');
      const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
      return createOpenAICompatible({
        name: 'llm',
        baseURL: options.baseUrl,
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      }).chatModel(options.model);
    }
  }
}
