// The HTTP side of `a2a check`: every request it sends to the agent goes through here, so that
// each is bounded (a timeout, a cap on the answer's bytes and on a stream's events), paced (at
// most `rate` requests a second) and recorded as an exchange the report can show.
import { readSse, type SseEvent } from '../sse.js';

/** One request and what came back, as the report shows them. */
export interface Exchange {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: { status: number; headers: Record<string, string>; body: string };
  /** Why no answer came (a refused connection, a timeout). */
  error?: string;
}

export type { SseEvent };

export interface ProberOptions {
  /** Headers every request carries (authentication). */
  headers: Record<string, string>;
  /** Most requests a second. */
  rate: number;
  /** Most requests in all: a checker must never flood an agent. */
  maxRequests: number;
  timeoutMs: number;
  fetcher: typeof fetch;
}

/** Most bytes of an answer kept; a stream read past it is cut. */
const MAX_BODY_BYTES = 1 << 20;
/** Most events of a stream read. */
const MAX_EVENTS = 1_000;

export class Prober {
  /** Every exchange, in order (the report's log). */
  readonly log: Exchange[] = [];
  private nextStart = 0;

  constructor(private readonly options: ProberOptions) {}

  /** Sends one request and reads its whole answer (a stream's too, into `events`). */
  async send(
    method: string,
    url: string,
    { headers = {}, body }: { headers?: Record<string, string>; body?: string } = {},
  ): Promise<Exchange & { events?: SseEvent[] }> {
    if (this.log.length >= this.options.maxRequests)
      throw new Error(`more than ${this.options.maxRequests} requests: the check stopped itself`);
    await this.pace();
    const allHeaders = { ...this.options.headers, ...headers };
    const exchange: Exchange & { events?: SseEvent[] } = {
      request: { method, url, headers: allHeaders, ...(body !== undefined && { body }) },
    };
    this.log.push(exchange);
    try {
      const response = await this.options.fetcher(url, {
        method,
        headers: allHeaders,
        ...(body !== undefined && { body }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const text = await readCapped(response);
      exchange.response = { status: response.status, headers: Object.fromEntries(response.headers), body: text };
      if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) exchange.events = await parseSse(text);
    } catch (error) {
      // fetch says "fetch failed"; why is in its cause (a refused connection, a reset, a timeout).
      const cause = (error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
      exchange.error = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (error as Error).message;
    }
    return exchange;
  }

  /** Waits until this request may start: requests start at most `rate` a second. */
  private async pace(): Promise<void> {
    const now = performance.now();
    const wait = this.nextStart - now;
    this.nextStart = Math.max(now, this.nextStart) + 1000 / this.options.rate;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The answer's text, at most MAX_BODY_BYTES of it (a stream of more than MAX_EVENTS events is cut there too). */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let events = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      events += chunk.split('\n\n').length - 1;
      if (text.length > MAX_BODY_BYTES || events > MAX_EVENTS) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

/** The events of a whole SSE body, read by the client's own reader (eventsource-parser). */
async function parseSse(text: string): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const body = (async function* () {
    yield new TextEncoder().encode(text);
  })();
  for await (const event of readSse(body)) events.push(event);
  return events;
}
