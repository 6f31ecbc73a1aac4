// Idempotency claims kept in this process (docs/idempotency.md): the in-memory store's, and the
// router's own when a store of the app's keeps none. Bounded: at most `maxKeys`, the oldest
// dropped first to make room, each dropped once its window is over.
import type { IdempotencyClaim } from './task-store.js';

/** A claim as held: its ids, and when its window ends (milliseconds since the epoch). One object a claim. */
interface Held extends IdempotencyClaim {
  readonly key: string;
  readonly until: number;
}

export class ClaimsInProcess {
  private readonly held = new Map<string, Held>();
  /**
   * The claims in the order made, oldest at `head`: with one window for every claim (the
   * router's), also the order they end in. A claim replaced since (the map holds another) is
   * skipped. A queue rather than Map iteration, whose cost grows with every entry ever deleted
   * from the front.
   */
  private queue: Held[] = [];
  private head = 0;

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
    if (held !== undefined && held.until > now) return { taskId: held.taskId, messageId: held.messageId };
    // Full of claims still in their window: the oldest goes early (a retry of its send then runs again).
    if (held === undefined && this.held.size >= this.maxKeys) this.dropOldest();
    const made: Held = { key, taskId: claim.taskId, messageId: claim.messageId, until: now + windowMs };
    this.held.set(key, made);
    this.queue.push(made);
    return undefined;
  }

  private dropExpired(now: number): void {
    for (let oldest = this.oldest(); oldest !== undefined && oldest.until <= now; oldest = this.oldest()) this.dropOldest();
  }

  /** The oldest claim still held, skipping those replaced. */
  private oldest(): Held | undefined {
    while (this.head < this.queue.length) {
      const held = this.queue[this.head]!;
      if (this.held.get(held.key) === held) return held;
      this.head++;
    }
    this.queue = [];
    this.head = 0;
    return undefined;
  }

  private dropOldest(): void {
    const oldest = this.oldest();
    if (oldest === undefined) return;
    this.held.delete(oldest.key);
    this.head++;
    // Compacted once most of the queue has been consumed.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
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
