// Optional: understanding requests with an LLM, through the Vercel AI SDK (any of its providers:
// OpenAI, Anthropic, Google, or an OpenAI-compatible server such as a local one), with the rate
// lookup offered as its tool. Whatever goes wrong — no answer, a timeout, no tool call,
// arguments that make no sense — the caller falls back to the built-in parser. Loaded only by an
// agent configured with an LLM (llm-config.ts), so that one without loads no AI library.
import { generateText, jsonSchema, type ModelMessage } from 'ai';
import { languageModelOf } from 'a2a-ai/ai-sdk';
import type { LlmOptions } from 'a2a-ai/llm-config';
import { CURRENCY_CODES } from './currencies.js';
import type { CurrencyRequest } from './parse.js';

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

const SYSTEM_PROMPT =
  'You are a currency conversion assistant. When the user asks about exchange rates or converting money, ' +
  'call get_exchange_rate with ISO 4217 codes. Use currency_date only for a specific date (YYYY-MM-DD). ' +
  'Give amount only when the user converts an amount.';

interface RateToolInput {
  currency_from?: unknown;
  currency_to?: unknown;
  currency_date?: unknown;
  amount?: unknown;
}

// No `execute`: the model's call is what the agent wants (its arguments, checked below); the
// agent looks the rate up itself, as without an LLM.
const RATE_TOOL = {
  description: 'Exchange rate between two currencies, for a date or the latest, optionally applied to an amount.',
  inputSchema: jsonSchema<RateToolInput>({
    type: 'object',
    properties: {
      currency_from: { type: 'string', description: 'ISO 4217 code converted from, e.g. USD' },
      currency_to: { type: 'string', description: 'ISO 4217 code converted to, e.g. EUR' },
      currency_date: { type: 'string', description: 'YYYY-MM-DD, or "latest"' },
      amount: { type: 'number', description: 'Amount of currency_from to convert' },
    },
    required: ['currency_from', 'currency_to'],
  }),
};

/** The request as the LLM understood it, or undefined when it did not give a usable tool call. */
export async function understandWithLlm(
  options: LlmOptions,
  conversation: readonly ChatTurn[],
  signal?: AbortSignal,
): Promise<CurrencyRequest | undefined> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const result = await generateText({
    model: await languageModelOf(options),
    instructions: SYSTEM_PROMPT,
    messages: conversation.map((turn): ModelMessage => ({ role: turn.role, content: turn.content })),
    tools: { get_exchange_rate: RATE_TOOL },
    toolChoice: 'auto',
    // One call: the built-in parser answers at once, where a retry would keep the user waiting.
    maxRetries: 0,
    abortSignal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  const call = result.toolCalls.find((c) => c.toolName === 'get_exchange_rate' && !c.invalid);
  if (!call) return undefined;
  const args = (call.input ?? {}) as RateToolInput;
  const from = typeof args.currency_from === 'string' ? args.currency_from.toUpperCase() : '';
  const to = typeof args.currency_to === 'string' ? args.currency_to.toUpperCase() : '';
  if (!CURRENCY_CODES.has(from) || !CURRENCY_CODES.has(to)) return undefined;
  const request: CurrencyRequest = { from, to, kind: 'rate', unknownCodes: [], onTopic: true };
  if (typeof args.amount === 'number' && args.amount > 0) Object.assign(request, { amount: args.amount, kind: 'convert' });
  if (typeof args.currency_date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(args.currency_date)) request.date = args.currency_date;
  return request;
}
