// Optional: understanding requests with an LLM (any OpenAI-compatible chat completions endpoint),
// with the rate lookup offered as its tool. Whatever goes wrong — no answer, a timeout, no tool
// call, arguments that make no sense — the caller falls back to the built-in parser.
import { CURRENCY_CODES } from './currencies.js';
import type { CurrencyRequest } from './parse.js';

export interface LlmOptions {
  /** e.g. `https://api.openai.com/v1` or a local server's `/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Time allowed for the call, milliseconds. Default 10,000. */
  timeoutMs?: number;
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

const SYSTEM_PROMPT =
  'You are a currency conversion assistant. When the user asks about exchange rates or converting money, ' +
  'call get_exchange_rate with ISO 4217 codes. Use currency_date only for a specific date (YYYY-MM-DD). ' +
  'Give amount only when the user converts an amount.';

const TOOL = {
  type: 'function',
  function: {
    name: 'get_exchange_rate',
    description: 'Exchange rate between two currencies, for a date or the latest, optionally applied to an amount.',
    parameters: {
      type: 'object',
      properties: {
        currency_from: { type: 'string', description: 'ISO 4217 code converted from, e.g. USD' },
        currency_to: { type: 'string', description: 'ISO 4217 code converted to, e.g. EUR' },
        currency_date: { type: 'string', description: 'YYYY-MM-DD, or "latest"' },
        amount: { type: 'number', description: 'Amount of currency_from to convert' },
      },
      required: ['currency_from', 'currency_to'],
    },
  },
};

/** The request as the LLM understood it, or undefined when it did not give a usable tool call. */
export async function understandWithLlm(
  options: LlmOptions,
  conversation: readonly ChatTurn[],
  signal?: AbortSignal,
): Promise<CurrencyRequest | undefined> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const response = await fetch(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
    body: JSON.stringify({
      model: options.model,
      messages: [{ role: 'system', content: SYSTEM_PROMPT }, ...conversation],
      tools: [TOOL],
      tool_choice: 'auto',
    }),
    signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
  });
  if (!response.ok) return undefined;
  const body = (await response.json()) as {
    choices?: { message?: { tool_calls?: { function?: { name?: string; arguments?: string } }[] } }[];
  };
  const call = body.choices?.[0]?.message?.tool_calls?.[0]?.function;
  if (call?.name !== 'get_exchange_rate' || typeof call.arguments !== 'string') return undefined;
  const args = JSON.parse(call.arguments) as Record<string, unknown>;
  const from = typeof args.currency_from === 'string' ? args.currency_from.toUpperCase() : '';
  const to = typeof args.currency_to === 'string' ? args.currency_to.toUpperCase() : '';
  if (!CURRENCY_CODES.has(from) || !CURRENCY_CODES.has(to)) return undefined;
  const request: CurrencyRequest = { from, to, kind: 'rate', unknownCodes: [], onTopic: true };
  if (typeof args.amount === 'number' && args.amount > 0) Object.assign(request, { amount: args.amount, kind: 'convert' });
  if (typeof args.currency_date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(args.currency_date)) request.date = args.currency_date;
  return request;
}
