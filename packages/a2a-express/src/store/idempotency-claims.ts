// Idempotency claims kept in this process (docs/idempotency.md): the in-memory store's, and the
// router's own when a store of the app's keeps none. Bounded: at most `maxKeys`, the oldest
// dropped first to make room, each dropped once its window is over.
import type { IdempotencyClaim } from './task-store.js';

interface Held {
  readonly claim: IdempotencyClaim;
  /** When the window ends, milliseconds since the epoch. */
  readonly until: number;
}

export class ClaimsInProcess {
  /** In the order claimed: with one window for every claim (the router's), also the order they expire in. */
  private readonly held = new Map<string, Held>();

  constructor(readonly maxKeys: number) {}

  /** How many claims are held now. */
  get size(): number {
    return this.held.size;
  }

  /** {@link TaskStore.claimIdempotencyKey}, in this process. */
  claim(key: string, claim: IdempotencyClaim, windowMs: number): IdempotencyClaim | undefined {
    const now = Date.now();
    this.dropExpired(now);
    const held = this.held.get(key);
    if (held !== undefined && held.until > now) return held.claim;
    this.held.delete(key);
    // Full of claims still in their window: the oldest goes early (a retry of its send then runs again).
    if (this.held.size >= this.maxKeys) this.held.delete(this.held.keys().next().value!);
    this.held.set(key, { claim, until: now + windowMs });
    return undefined;
  }

  private dropExpired(now: number): void {
    for (const [key, held] of this.held) {
      if (held.until > now) return;
      this.held.delete(key);
    }
  }
}

/** A claim as a shared store keeps it: JSON of its two ids. */
export function claimText(claim: IdempotencyClaim): string {
  return JSON.stringify({ taskId: claim.taskId, messageId: claim.messageId });
}

/** A claim a shared store kept (see {@link claimText}). */
export function claimOf(text: string): IdempotencyClaim {
  const { taskId, messageId } = JSON.parse(text) as IdempotencyClaim;
  return { taskId, messageId };
}
