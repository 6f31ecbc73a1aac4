// Delivery with the runtime's fetch, where Node's http is not (Cloudflare Workers). fetch resolves
// the host name itself: it cannot be held to the addresses the URL guard checked (see delivery.ts).
import { MAX_ANSWER_BYTES, type WebhookDelivery } from './delivery.js';

/** Delivery with the runtime's fetch: redirects are not followed (a webhook's answer is its own). */
export const fetchDelivery: WebhookDelivery = {
  name: 'fetch',
  async send({ method, url, headers, body, signal }) {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { 'User-Agent': 'a2a-express', ...headers },
        ...(body && { body }),
        signal,
        redirect: 'manual',
      });
    } catch (error) {
      // undici says "fetch failed" and puts the reason (ECONNREFUSED, ...) in its cause.
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new Error(cause ? `${(error as Error).message}: ${cause}` : (error as Error).message);
    }
    return { status: response.status, body: await startOf(response) };
  },
};

/** The first MAX_ANSWER_BYTES of a response's body, as text; the rest is not read. */
async function startOf(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ANSWER_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(Math.min(size, MAX_ANSWER_BYTES));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.length;
  }
  return new TextDecoder().decode(bytes);
}
