// Exchange rates: live from the Frankfurter API (European Central Bank reference rates) with a
// short timeout and a cache; when it cannot be reached or answers garbage, from the snapshot
// shipped with the app. Every quote says where it came from and for which date.
import { RATES_SNAPSHOT } from './rates-snapshot.js';

export interface RateQuote {
  from: string;
  to: string;
  /** 1 `from` = `rate` `to`. */
  rate: number;
  /** The date the rate is for (YYYY-MM-DD). */
  date: string;
  source: 'frankfurter' | 'offline-snapshot';
}

export interface RateSourceOptions {
  /** Frankfurter's base URL. Default `https://api.frankfurter.dev/v1`. */
  baseUrl?: string;
  /** Time allowed for one request, milliseconds. Default 2,500. */
  timeoutMs?: number;
  /** How long a live rate is reused, milliseconds. Default 10 minutes. */
  cacheTtlMs?: number;
  /** Called with each failure of the live source, for logging. */
  onLiveFailure?: (reason: string) => void;
}

export const DEFAULT_FRANKFURTER_URL = 'https://api.frankfurter.dev/v1';

export class RateSource {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly cacheTtlMs: number;
  private readonly cache = new Map<string, { quote: RateQuote; expires: number }>();

  constructor(private readonly options: RateSourceOptions = {}) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_FRANKFURTER_URL).replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 2_500;
    this.cacheTtlMs = options.cacheTtlMs ?? 10 * 60_000;
  }

  /** The rate from one currency to another, for a date (YYYY-MM-DD) or the latest. */
  async quote(from: string, to: string, date?: string, signal?: AbortSignal): Promise<RateQuote> {
    const key = `${date ?? 'latest'}:${from}:${to}`;
    const cached = this.cache.get(key);
    if (cached && cached.expires > Date.now()) return cached.quote;
    try {
      const quote = await this.live(from, to, date, signal);
      this.cache.set(key, { quote, expires: Date.now() + this.cacheTtlMs });
      return quote;
    } catch (error) {
      if (signal?.aborted) throw error;
      this.options.onLiveFailure?.((error as Error).message);
      return offlineQuote(from, to);
    }
  }

  private async live(from: string, to: string, date: string | undefined, signal?: AbortSignal): Promise<RateQuote> {
    if (from === to) return { from, to, rate: 1, date: date ?? new Date().toISOString().slice(0, 10), source: 'frankfurter' };
    const url = `${this.baseUrl}/${date ?? 'latest'}?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const response = await fetch(url, {
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`rate source answered HTTP ${response.status}`);
    const body = (await response.json()) as { base?: unknown; date?: unknown; rates?: Record<string, unknown> };
    const rate = body?.rates?.[to];
    if (
      body?.base !== from ||
      typeof rate !== 'number' ||
      !(rate > 0) ||
      typeof body.date !== 'string' ||
      !/^\d{4}-\d{2}-\d{2}$/.test(body.date)
    ) {
      throw new Error('rate source answered something that is not a rate');
    }
    return { from, to, rate, date: body.date, source: 'frankfurter' };
  }
}

/** A cross rate from the shipped snapshot (its rates are per euro). */
export function offlineQuote(from: string, to: string): RateQuote {
  const perEuroFrom = RATES_SNAPSHOT.rates[from];
  const perEuroTo = RATES_SNAPSHOT.rates[to];
  if (perEuroFrom === undefined || perEuroTo === undefined) throw new Error(`no offline rate for ${from}/${to}`);
  return { from, to, rate: perEuroTo / perEuroFrom, date: RATES_SNAPSHOT.date, source: 'offline-snapshot' };
}
