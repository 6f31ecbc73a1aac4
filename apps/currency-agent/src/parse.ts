// Understanding currency questions without an LLM: amounts ("100", "1,250.50", "1.5k"), ISO codes,
// names and symbols ("dollars", "euro", "€", "yen"), phrasings ("convert 100 USD to EUR",
// "how much is 1 USD in INR?", "exchange rate between USD and GBP", "EUR→JPY rate on 2024-01-15")
// and dates ("on 2024-01-15", "yesterday"). Case and punctuation do not matter.
import { CURRENCIES, CURRENCY_CODES } from './currencies.js';

/** What the client wants, as far as one message (or a conversation) says. */
export interface CurrencyRequest {
  /** `rate`: the exchange rate (of 1 unit); `convert`: an amount. */
  kind?: 'rate' | 'convert';
  amount?: number;
  from?: string;
  to?: string;
  /** YYYY-MM-DD; absent for the latest rates. */
  date?: string;
  /** Three-letter codes written where a currency goes but not known to the rate source. */
  unknownCodes: string[];
  /** A lone currency with nothing saying its role ("GBP"), used to answer a question we asked. */
  bare?: string;
  /** Whether the message is about currencies at all. */
  onTopic: boolean;
}

/** The slot the agent asked the client to fill. */
export type Slot = 'from' | 'to' | 'amount';

interface Mention {
  start: number;
  end: number;
  code: string;
  role?: 'from' | 'to';
  amount?: number;
}

// Words that are also currency codes: only taken as codes when written in capitals.
const AMBIGUOUS_CODES = new Set(['try']);
// Capitalised three-letter words that are not currency codes.
const NOT_CODES = new Set(['USA', 'ECB', 'API', 'CEO', 'FAQ', 'ETA', 'GMT', 'UTC', 'AND', 'THE', 'FOR', 'HOW', 'WHAT']);
const TOPIC_WORDS = /\b(convert|conversion|exchange|rate|rates|currency|currencies|forex|fx|worth)\b/;
const TO_WORDS = new Set(['to', 'into', 'in']);
const FROM_WORDS = new Set(['from']);
const MULTIPLIERS: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, million: 1e6, bn: 1e9, billion: 1e9 };

// Aliases longest first, so "hong kong dollar" wins over "dollar".
const ALIASES = CURRENCIES.flatMap((c) => c.aliases.map((alias) => ({ alias, code: c.code }))).sort(
  (a, b) => b.alias.length - a.alias.length,
);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const ALIAS_PATTERNS = ALIASES.map(({ alias, code }) => ({
  code,
  // Words need word boundaries; symbols ($, €) do not.
  pattern: new RegExp(/^[a-z]/.test(alias) ? `(?<![a-z])${escapeRegExp(alias)}(?![a-z])` : escapeRegExp(alias), 'g'),
}));

/** Parses one message. `today` fixes what "today" and "yesterday" mean (UTC). */
export function parseRequest(message: string, today: Date = new Date()): CurrencyRequest {
  let text = message.normalize('NFKC').replace(/\s*(→|->|=>|⇒|➔)\s*/g, ' to ');
  const result: CurrencyRequest = { unknownCodes: [], onTopic: false };

  // Dates first, so that their digits are not read as amounts.
  text = text.replace(/\b(\d{4})-(\d{2})-(\d{2})\b/, (whole, y: string, m: string, d: string) => {
    const parsed = new Date(`${y}-${m}-${d}T00:00:00Z`);
    if (!Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(whole)) result.date = whole;
    return ' '.repeat(whole.length);
  });
  text = text.replace(/\b(yesterday|today)\b/i, (word: string) => {
    const day = new Date(today.getTime() - (word.toLowerCase() === 'yesterday' ? 86_400_000 : 0));
    result.date = day.toISOString().slice(0, 10);
    return ' '.repeat(word.length);
  });

  const lower = text.toLowerCase();
  const mentions = findCurrencies(text, lower, result);
  const amounts = findAmounts(lower);
  attachAmounts(mentions, amounts, lower);
  assignRoles(mentions, lower);

  const explicitFrom = mentions.find((m) => m.role === 'from');
  const explicitTo = mentions.find((m) => m.role === 'to');
  const withAmount = mentions.find((m) => m.amount !== undefined && m.role !== 'to');
  const from = explicitFrom ?? withAmount ?? mentions.find((m) => m !== explicitTo);
  const to = explicitTo ?? mentions.find((m) => m !== from && m.code !== from?.code);
  if (mentions.length === 1 && !mentions[0]!.role && mentions[0]!.amount === undefined) {
    result.bare = mentions[0]!.code;
  } else {
    if (from) result.from = from.code;
    if (to) result.to = to.code;
  }
  const amount = from?.amount ?? (amounts.length > 0 && mentions.every((m) => m.amount === undefined) ? amounts[0]!.value : undefined);
  if (amount !== undefined) result.amount = amount;

  const asksRate = /\brates?\b/.test(lower);
  if (asksRate) result.kind = 'rate';
  else if (result.amount !== undefined) result.kind = 'convert';
  else if (/\b(convert|how much is|how many)\b/.test(lower) && (result.from || result.to)) result.kind = 'convert';
  result.onTopic = mentions.length > 0 || result.unknownCodes.length > 0 || TOPIC_WORDS.test(lower);
  return result;
}

function findCurrencies(text: string, lower: string, result: CurrencyRequest): Mention[] {
  const taken: Mention[] = [];
  const overlaps = (start: number, end: number) => taken.some((m) => start < m.end && end > m.start);
  for (const { code, pattern } of ALIAS_PATTERNS) {
    for (const match of lower.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (!overlaps(start, end)) taken.push({ start, end, code });
    }
  }
  for (const match of lower.matchAll(/(?<![a-z])[a-z]{3}(?![a-z])/g)) {
    const start = match.index;
    const end = start + 3;
    const word = text.slice(start, end);
    const code = word.toUpperCase();
    if (overlaps(start, end)) continue;
    if (CURRENCY_CODES.has(code)) {
      if (AMBIGUOUS_CODES.has(match[0]) && word !== code) continue;
      taken.push({ start, end, code });
    } else if (word === code && !NOT_CODES.has(code) && inCurrencyPosition(lower, start, end)) {
      result.unknownCodes.push(code);
    }
  }
  return taken.sort((a, b) => a.start - b.start);
}

/** After a number or a to/in/from, or before "to": where a currency would be. */
function inCurrencyPosition(lower: string, start: number, end: number): boolean {
  const before = lower.slice(0, start).trimEnd();
  const after = lower.slice(end).trimStart();
  return /(\d|\b(to|into|in|from|and|between))$/.test(before) || /^(to|into|in)\b/.test(after);
}

function findAmounts(lower: string): { start: number; end: number; value: number }[] {
  const amounts: { start: number; end: number; value: number }[] = [];
  const pattern = /(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:\s*(k|thousand|mn|m|million|bn|billion)(?![a-z]))?/g;
  for (const match of lower.matchAll(pattern)) {
    const whole = Number(match[1]!.replace(/,/g, '') + (match[2] ? `.${match[2]}` : ''));
    const multiplier = match[3] ? MULTIPLIERS[match[3]]! : 1;
    amounts.push({ start: match.index, end: match.index + match[0].length, value: whole * multiplier });
  }
  return amounts;
}

/** An amount written right before or after a currency ("100 USD", "$100", "100€") belongs to it. */
function attachAmounts(mentions: Mention[], amounts: { start: number; end: number; value: number }[], lower: string): void {
  for (const amount of amounts) {
    const next = mentions.find((m) => m.start >= amount.end && /^\s*$/.test(lower.slice(amount.end, m.start)));
    const previous = [...mentions].reverse().find((m) => m.end <= amount.start && /^\s*$/.test(lower.slice(m.end, amount.start)));
    const owner = next ?? previous;
    if (owner && owner.amount === undefined) owner.amount = amount.value;
  }
}

function assignRoles(mentions: Mention[], lower: string): void {
  for (const mention of mentions) {
    const words = lower
      .slice(0, mention.start)
      .replace(/[\d.,\s$€£¥₹]+$/, ' ')
      .trim()
      .split(/[^a-z]+/);
    const word = words.at(-1) ?? '';
    if (TO_WORDS.has(word)) mention.role = 'to';
    else if (FROM_WORDS.has(word)) mention.role = 'from';
  }
  // "How many yen is 100 dollars?": the currency asked about is the target.
  const howMany = /\bhow many\s+$/;
  const first = mentions[0];
  if (first && !first.role && howMany.test(lower.slice(0, first.start))) first.role = 'to';
}

/** One user turn, with the slot the agent had asked to fill before it (if any). */
export interface Turn {
  text: string;
  awaiting?: Slot;
}

/**
 * Understands a conversation: each turn's details fill or replace those of the turns before.
 * A lone currency or amount answers the slot the agent asked about.
 */
export function understandConversation(turns: readonly Turn[], today: Date = new Date()): CurrencyRequest {
  let state: CurrencyRequest = { unknownCodes: [], onTopic: false };
  for (const turn of turns) {
    const parsed = parseRequest(turn.text, today);
    if (parsed.bare) {
      const slot = turn.awaiting === 'from' || turn.awaiting === 'to' ? turn.awaiting : state.to && !state.from ? 'from' : 'to';
      parsed[slot] = parsed.bare;
      delete parsed.bare;
    }
    state = {
      kind: parsed.kind ?? state.kind,
      amount: parsed.amount ?? state.amount,
      from: parsed.from ?? state.from,
      to: parsed.to ?? state.to,
      date: parsed.date ?? state.date,
      unknownCodes: parsed.unknownCodes,
      onTopic: state.onTopic || parsed.onTopic,
    };
    for (const key of ['kind', 'amount', 'from', 'to', 'date'] as const) if (state[key] === undefined) delete state[key];
  }
  return state;
}
