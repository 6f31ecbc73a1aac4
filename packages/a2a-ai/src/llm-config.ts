// Which LLM an agent uses, if any, from its options or environment (`LLM_PROVIDER`, `LLM_MODEL`,
// ...): the sample agents' shared settings. Its own entry point (`a2a-ai/llm-config`), so that
// reading the configuration loads no AI library: an agent without an LLM never does. The model
// itself is `languageModelOf` (`a2a-ai/ai-sdk`), which loads the provider's package when asked.
import type { LanguageModel } from 'ai';

/** The providers an agent can be configured with by environment (`LLM_PROVIDER`). */
export const LLM_PROVIDERS = ['openai-compatible', 'openai', 'anthropic', 'google'] as const;
export type LlmProvider = (typeof LLM_PROVIDERS)[number];

export interface LlmOptions {
  /**
   * The model: its id at the provider (e.g. `gpt-4o-mini`), or an AI SDK model itself (any
   * provider's, or the SDK's test model).
   */
  model: string | LanguageModel;
  /** Whose model a model id names. Default `openai-compatible`. */
  provider?: LlmProvider;
  /** The provider's API base URL, e.g. a local server's `http://127.0.0.1:11434/v1`; required for `openai-compatible`. */
  baseUrl?: string;
  /** The API key; without one, the provider's own variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GOOGLE_GENERATIVE_AI_API_KEY`). */
  apiKey?: string;
  /** Time allowed for the call, milliseconds. Default 10,000. */
  timeoutMs?: number;
}

/**
 * The LLM settings from the environment, or undefined when none is configured (the agent then
 * does without): `LLM_MODEL`, with `LLM_BASE_URL` (an OpenAI-compatible
 * server, as before) or `LLM_PROVIDER`; `LLM_API_KEY`, `LLM_TIMEOUT_MS`.
 */
export function llmOptionsFromEnv(env: NodeJS.ProcessEnv, timeoutMs: number): LlmOptions | undefined {
  const model = env.LLM_MODEL;
  const named = env.LLM_PROVIDER?.trim().toLowerCase();
  if (!model || (!named && !env.LLM_BASE_URL)) return undefined;
  const provider = (named || 'openai-compatible') as LlmProvider;
  if (!LLM_PROVIDERS.includes(provider)) throw new Error(`LLM_PROVIDER must be one of ${LLM_PROVIDERS.join(', ')}, not "${named}"`);
  if (provider === 'openai-compatible' && !env.LLM_BASE_URL) throw new Error('LLM_PROVIDER=openai-compatible needs LLM_BASE_URL');
  const options: LlmOptions = { provider, model, timeoutMs };
  if (env.LLM_BASE_URL) options.baseUrl = env.LLM_BASE_URL;
  if (env.LLM_API_KEY) options.apiKey = env.LLM_API_KEY;
  return options;
}

/** What a configuration says to show at start: the model, and whose. */
export function describeLlm(options: LlmOptions): string {
  return typeof options.model === 'string' ? `${options.provider ?? 'openai-compatible'} ${options.model}` : 'an AI SDK model';
}
