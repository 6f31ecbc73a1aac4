// How a notification travels to its webhook, once the URL guard has said where it may go. Two
// ways: Node's http and https, connecting only to the addresses the guard checked (node-delivery.ts),
// on Node, Bun and Deno; and the runtime's fetch, where Node's http is not (Cloudflare Workers).
// fetch cannot be told which address to connect to: it resolves the host name again itself, so
// what it connects to may differ from what was checked (DNS rebinding). That is why Node's is
// preferred wherever the runtime has it, the fetch handler's included.
import type { ResolvedAddress, Resolver } from './url-guard.js';

/** One request to a webhook. */
export interface WebhookRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /** The addresses the guard checked; none when the host was accepted without being resolved. */
  readonly addresses: readonly ResolvedAddress[];
  /** Aborts the request (its time is up, or the agent is closing). */
  readonly signal: AbortSignal;
}

/** What a webhook answered: its status, and the start of its body (only a validation token is ever read). */
export interface WebhookAnswer {
  readonly status: number;
  readonly body: string;
}

/** A way to deliver notifications. */
export interface WebhookDelivery {
  readonly name: 'node' | 'fetch';
  /** The runtime's resolver, for the guard; none where the runtime has none. */
  readonly resolve?: Resolver;
  /** Sends one request; rejects on a network failure. */
  send(request: WebhookRequest): Promise<WebhookAnswer>;
}

/** The most of an answer's body that is kept. */
export const MAX_ANSWER_BYTES = 4096;
