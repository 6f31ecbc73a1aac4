// What a worker does (the router's `role: 'worker'`, docs/replicas.md): takes turns from the
// store's turn queue, as many as it has room for (`maxConcurrentTurns`), claims each in its task's
// record (one worker alone runs a turn: the claim is a compare-and-set from the holder `queued`)
// and runs its handler; says it is alive with a heartbeat in the store, so that front ends can
// tell whether anything will run what they queue. The rest (leases, takeover of a dead worker's
// turns, fencing of its writes) is the replicas' machinery every role shares (replica-duties.ts).
import type { Logger } from 'pino';
import type { QueuedTurn, SharedTaskStore, TurnQueue } from './task-store.js';

/** What the worker needs of the process's task engine. */
interface WorkerEngine {
  readonly processId: string;
  /** Claims a queued turn and runs it here; undefined when it needs no running (over, or claimed elsewhere). */
  claimQueued(taken: QueuedTurn): Promise<{ readonly ended: Promise<void> } | undefined>;
}

export interface TurnWorkerOptions {
  /** Most turns whose handlers run here at once; the rest wait in the queue. */
  readonly maxConcurrentTurns: number;
  readonly logger: Logger;
}

export interface TurnWorker {
  /** Turns whose handlers this worker runs now. */
  running(): number;
  /** Stops taking turns (those running go on) and says so in the store; resolves once the loop has stopped. */
  stop(): Promise<void>;
}

/** Longest wait of one read of the queue: how long a stopping worker may take to notice. */
const TAKE_WAIT_MS = 1_000;
/** Pause after a failed read (the store away) before the next. */
const RETRY_MS = 500;

export function startTurnWorker(engine: WorkerEngine, store: SharedTaskStore & TurnQueue, options: TurnWorkerOptions): TurnWorker {
  const log = options.logger.child({ component: 'worker' });
  const worker = engine.processId;
  const max = options.maxConcurrentTurns;
  let running = 0;
  let stopped = false;
  /** Wakes the loop when a slot frees up (or the worker stops). */
  let wake: (() => void) | undefined;
  const slotFreed = () => {
    const woken = wake;
    wake = undefined;
    woken?.();
  };
  // Alive for a lease, said every third of one: two missed heartbeats (a slow store) before front
  // ends think no worker is left.
  const ttlMs = store.leaseMs;
  const beat = () => store.heartbeatWorker(worker, ttlMs).catch((error: Error) => log.warn({ reason: error.message }, 'heartbeat failed'));
  const heartbeat = setInterval(() => void beat(), ttlMs / 3);
  (heartbeat as { unref?: () => void }).unref?.();

  const runTaken = async (taken: QueuedTurn): Promise<void> => {
    // Counted from before the claim, so that the reads that follow leave room for it.
    running++;
    let ended: Promise<void> | undefined;
    try {
      ended = (await engine.claimQueued(taken))?.ended;
      await store.settleQueuedTurn(taken);
    } catch (error) {
      // The entry stays taken: once a lease has passed, a worker (this one, or another) takes it again.
      log.warn({ taskId: taken.taskId, reason: (error as Error).message }, 'could not claim a queued turn');
    }
    if (ended === undefined) {
      running--;
      slotFreed();
      return;
    }
    void ended.then(() => {
      running--;
      slotFreed();
    });
  };

  const loop = (async () => {
    await beat();
    while (!stopped) {
      const room = max - running;
      if (room <= 0) {
        await new Promise<void>((resolve) => (wake = resolve));
        continue;
      }
      let taken: QueuedTurn[];
      try {
        taken = await store.takeQueuedTurns(worker, room, TAKE_WAIT_MS);
      } catch (error) {
        if (stopped) break;
        log.warn({ reason: (error as Error).message }, 'could not read the turn queue');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      // Taken as the worker stops: left to be taken again by another once a lease has passed.
      if (stopped) break;
      await Promise.all(taken.map(runTaken));
    }
  })();

  return {
    running: () => running,
    async stop() {
      if (stopped) return loop;
      stopped = true;
      clearInterval(heartbeat);
      slotFreed();
      await loop;
      await store.heartbeatWorker(worker, 0).catch(() => undefined);
    },
  };
}
