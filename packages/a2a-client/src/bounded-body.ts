// Reading what an agent we do not control sends: every body (a card, a JWKS, an answer) is read
// through here, to a bound. Past the bound the body is canceled, so the connection is closed and
// nothing more is read: a card of 150 MB costs 8 MiB, not the 1.5 GB its parse would.

/** The statuses of a redirect (a 304 is not one: it answers a conditional request). */
export const isRedirect = (status: number): boolean =>
  status === 301 || status === 302 || status === 303 || status === 307 || status === 308;

/** What a redirect is reported as: where it pointed, and that it was not followed. */
export function redirectReason(response: Response): string {
  const location = response.headers.get('location');
  return `HTTP ${response.status}, a redirect${location ? ` to ${location.slice(0, 200)}` : ''}: not followed (a redirect could carry the credentials elsewhere)`;
}

/** Most bytes of an agent card read. */
export const MAX_CARD_BYTES = 8 * 1024 * 1024;
/** Most bytes of a JWKS read: a key set of a few keys is a few kilobytes. */
export const MAX_KEYS_BYTES = 1024 * 1024;

/** A body larger than its bound: the message says which and what the bound is. */
export class BodyTooLarge extends Error {
  constructor(
    what: string,
    readonly maxBytes: number,
  ) {
    super(`${what} is too large: over ${sizeOf(maxBytes)}, not read further`);
  }
}

export interface BoundedText {
  /** What was read (for a body cut by its bound, the bytes before it). */
  text: string;
  /** The body went past `maxBytes` and was canceled there. */
  overBound?: true;
  /** A stream went past `maxEvents` and was canceled there. */
  overEvents?: true;
  /** Reading failed (a reset, a timeout): the error, and `text` holds what came before. */
  error?: unknown;
}

/**
 * Reads a body to `maxBytes` (and a stream to `maxEvents` SSE events), canceling it past either.
 * Never throws: a failure mid-way is `error`, with the text read before it.
 */
export async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
  maxEvents = Number.POSITIVE_INFINITY,
): Promise<BoundedText> {
  if (!body) return { text: '' };
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  let events = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text: text + decoder.decode() };
      bytes += value.byteLength;
      if (bytes > maxBytes)
        return { text: text + decoder.decode(value.subarray(0, value.byteLength - (bytes - maxBytes))), overBound: true };
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      if (maxEvents !== Number.POSITIVE_INFINITY) {
        events += chunk.split('\n\n').length - 1;
        if (events > maxEvents) return { text, overEvents: true };
      }
    }
  } catch (error) {
    return { text, error };
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** A whole JSON document (a card, a JWKS) of at most `maxBytes`, as text; a larger one is BodyTooLarge, a failed read its error. */
export async function readDocument(response: Response, maxBytes: number, what: string): Promise<string> {
  const { text, overBound, error } = await readBounded(response.body, maxBytes);
  if (overBound) throw new BodyTooLarge(what, maxBytes);
  if (error !== undefined) throw error;
  return text;
}

/**
 * The response with a body that tells `seen` the text read through it: when it ends, or when
 * its reader cancels it or fails (then with why). Only what the reader asks for is read, so the
 * reader's bound holds; the text is not kept twice over by a clone.
 */
export function watchedText(response: Response, seen: (text: string, cut?: string) => void): Response {
  if (!response.body) {
    seen('');
    return response;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let told = false;
  const tell = (cut?: string) => {
    if (told) return;
    told = true;
    seen(text + decoder.decode(), cut);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            tell();
            controller.close();
            return;
          }
          text += decoder.decode(value, { stream: true });
          controller.enqueue(value);
        } catch (error) {
          tell(describeError(error));
          controller.error(error);
        }
      },
      async cancel(reason) {
        tell(reason === undefined ? 'not read to its end' : describeError(reason));
        await reader.cancel(reason).catch(() => undefined);
      },
    },
    // Nothing read ahead of the reader: its bound is what is read.
    { highWaterMark: 0 },
  );
  const copy = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(copy, 'url', { value: response.url });
  return copy;
}

/** Why a read failed: fetch says "fetch failed", why is in its cause (a refused connection, a reset). */
export function describeError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } } | null)?.cause;
  if (cause) return cause.code ?? cause.errors?.[0]?.code ?? cause.message ?? String(cause);
  if (error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error))
    return (error as Error).name === 'TimeoutError' ? 'TimeoutError' : (error as Error).message;
  return String(error);
}

function sizeOf(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}
