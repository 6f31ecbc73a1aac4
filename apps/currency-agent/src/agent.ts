// The currency agent: the sample to clone for an agent that talks to an outside service. It
// understands requests without an LLM (or with one, when configured), asks for what is missing
// (input-required), streams its progress, and answers with a sentence and structured data.
import {
  a2aRouter,
  artifact,
  completed,
  dataPart,
  inputRequired,
  textOf,
  textPart,
  working,
  type A2ARouter,
  type A2ARouterOptions,
  type AgentCardInput,
  type Message,
  type TaskContext,
  type TaskHandler,
} from 'a2a-express';
import { CURRENCIES } from './currencies.js';
import type { LlmOptions } from 'a2a-ai/llm-config';
import type { ChatTurn } from './llm.js';
import { understandConversation, type CurrencyRequest, type Slot, type Turn } from './parse.js';
import type { RateQuote, RateSource } from './rates.js';

export const currencyCard: AgentCardInput = {
  name: 'Currency Agent',
  description: 'Helps with exchange rates for currencies',
  version: '1.0.0',
  defaultInputModes: ['text', 'text/plain'],
  defaultOutputModes: ['text', 'text/plain', 'application/json'],
  skills: [
    {
      id: 'convert_currency',
      name: 'Currency Exchange Rates Tool',
      description: 'Helps with exchange values between various currencies',
      tags: ['currency conversion', 'currency exchange'],
      examples: ['What is exchange rate between USD and GBP?', 'Convert 100 USD to EUR', 'EUR→JPY rate on 2024-01-15'],
    },
  ],
};

export interface CurrencyAgentOptions {
  rates: RateSource;
  /** When set, an LLM understands requests first; any failure falls back to the built-in parser. */
  llm?: LlmOptions;
  /** What "today" is (for "yesterday"); default the clock. */
  now?: () => Date;
}

export const REFUSAL =
  'I can only help with currencies: converting an amount ("convert 100 USD to EUR") or telling an exchange rate ' +
  '("what is the exchange rate between USD and GBP?", optionally "on 2024-01-15"). What would you like to know?';

export function createCurrencyHandler(options: CurrencyAgentOptions): TaskHandler {
  return async function* currency(ctx) {
    const request = await understand(ctx, options);
    const question = missing(request);
    if (question) {
      yield inputRequired(question);
      return;
    }
    const { from, to } = request as Required<Pick<CurrencyRequest, 'from' | 'to'>>;
    yield working('Looking up the exchange rates...');
    const quote = await options.rates.quote(from, to, request.date, ctx.signal);
    yield working('Processing the exchange rates...');
    const answer = compose(request, quote);
    yield artifact([textPart(answer.sentence), dataPart(answer.data)], { name: 'exchange_rate' });
    yield completed();
  };
}

/** The user's turns with the slot asked for before each (from the agent's question's metadata). */
function turnsOf(ctx: TaskContext): Turn[] {
  const turns: Turn[] = [];
  let awaiting: Slot | undefined;
  for (const message of [...ctx.history, ctx.message]) {
    if (message.role === 'agent') awaiting = message.metadata?.awaiting as Slot | undefined;
    else turns.push({ text: textOf(message), ...(awaiting ? { awaiting } : {}) });
  }
  return turns;
}

async function understand(ctx: TaskContext, options: CurrencyAgentOptions): Promise<CurrencyRequest> {
  const builtIn = understandConversation(turnsOf(ctx), options.now?.() ?? new Date());
  if (!options.llm) return builtIn;
  const conversation: ChatTurn[] = [...ctx.history, ctx.message].map((m) => ({
    role: m.role === 'agent' ? 'assistant' : 'user',
    content: textOf(m),
  }));
  try {
    const { understandWithLlm } = await import('./llm.js');
    const understood = await understandWithLlm(options.llm, conversation, ctx.signal);
    if (understood) return understood;
    ctx.logger.info('LLM gave no usable tool call; using the built-in understanding');
  } catch (error) {
    ctx.logger.warn({ err: error }, 'LLM unavailable; using the built-in understanding');
  }
  return builtIn;
}

/** The question to ask when something needed is missing, as an agent message that names the slot. */
function missing(request: CurrencyRequest): Message | undefined {
  const ask = (text: string, awaiting?: Slot): Message => ({
    role: 'agent',
    parts: [textPart(text)],
    ...(awaiting ? { metadata: { awaiting } } : {}),
  });
  if (!request.onTopic) return ask(REFUSAL);
  if (request.unknownCodes.length > 0) {
    const codes = request.unknownCodes.join(', ');
    return ask(
      `I don't know the currency ${codes}. I can work with: ${CURRENCIES.map((c) => c.code).join(', ')}. Which one did you mean?`,
      request.from ? 'to' : 'from',
    );
  }
  const amount = request.amount === undefined ? '' : `${format(request.amount)} `;
  if (!request.from && !request.to) return ask('Which currencies should I use? For example: "convert 100 USD to EUR".', 'from');
  if (!request.to) return ask(`Which currency should I convert ${amount}${request.from} to?`, 'to');
  if (!request.from) return ask(`Which currency should I convert ${amount}to ${request.to} from?`, 'from');
  if (request.kind === 'convert' && request.amount === undefined)
    return ask(`How many ${request.from} should I convert to ${request.to}?`, 'amount');
  return undefined;
}

/** The answer: a sentence (the reference agent's form) and the same as data. */
export function compose(request: CurrencyRequest, quote: RateQuote): { sentence: string; data: Record<string, unknown> } {
  const amount = request.amount ?? 1;
  const result = amount * quote.rate;
  const main =
    request.kind === 'convert'
      ? `${format(amount)} ${quote.from} is ${format(result)} ${quote.to}.`
      : `The exchange rate for 1 ${quote.from} to ${quote.to} is ${format(quote.rate)}.` +
        (amount !== 1 ? ` ${format(amount)} ${quote.from} is ${format(result)} ${quote.to}.` : '');
  const source =
    quote.source === 'frankfurter'
      ? ` (European Central Bank reference rate of ${quote.date}, via the Frankfurter API.)`
      : ` (The rate service could not be reached, so this uses the offline snapshot of European Central Bank rates of ${quote.date}` +
        (request.date && request.date !== quote.date ? `, not of ${request.date} as asked` : '') +
        '.)';
  return {
    sentence: main + source,
    data: { amount, from: quote.from, to: quote.to, rate: quote.rate, result: round(result, 6), date: quote.date, source: quote.source },
  };
}

function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}

/** 2 decimals from 1 up; 4 significant digits below 1 (0.9234), without trailing zeros. */
function format(value: number): string {
  const text = value >= 1 ? value.toFixed(2) : value.toPrecision(4);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

/** The currency agent's router; mount it with `app.use(...)`. */
export function currencyRouter(options: CurrencyAgentOptions & Omit<A2ARouterOptions, 'card'>): A2ARouter {
  const { rates, llm, now, ...routerOptions } = options;
  return a2aRouter(createCurrencyHandler({ rates, ...(llm ? { llm } : {}), ...(now ? { now } : {}) }), {
    card: currencyCard,
    ...routerOptions,
  });
}
