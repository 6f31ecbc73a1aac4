// What each replica does for the others when they share a store: renew the leases of the tasks
// it runs, take over tasks whose process died (their lease ran out: resumed here, or failed),
// and abort its handlers whose turn was canceled, failed or taken over elsewhere.
import type { Logger } from 'pino';

import type { SharedTaskStore } from './task-store.js';

/** What the duties need of the process's task engine. */
interface ReplicaWork {
  /** This process, as a task's record names the process that runs its turn. */
  readonly processId: string;
  /** The tasks whose handlers run in this process. */
  runningTaskIds(): string[];
  /** False once a drain hands this process's turns over: it takes over none of the others'. */
  readonly takesOverTurns: boolean;
  /** Aborts this turn's handler if it runs here (given an attempt, only a run of an earlier one). */
  abortTurn(taskId: string, turn: number, attempt?: number): void;
  /** Resumes or fails a task whose lease ran out, unless it ended meanwhile; what it did. */
  recoverAbandoned(
    taskId: string,
  ): Promise<
    | { readonly action: 'resumed'; readonly attempt: number; readonly reason: 'crash' | 'hand-over' }
    | { readonly action: 'failed'; readonly attempts: number }
    | undefined
  >;
}

/**
 * Starts the duties; the returned function stops them. Renewal runs every third of the lease,
 * so two renewals can be missed (a long GC pause, a slow Redis) before a live task is lost;
 * the sweep runs every half lease, so a dead process's task fails within 1.5 leases. A turn
 * handed over by a draining replica (its lease written expired) is swept for at once, when its
 * notice arrives.
 */
export function startReplicaDuties(engine: ReplicaWork, store: SharedTaskStore, logger: Logger): () => Promise<void> {
  const log = logger.child({ component: 'replicas' });
  const renewer = setInterval(() => {
    store
      .renewLeases(engine.runningTaskIds(), engine.processId)
      .catch((error: Error) => log.warn({ reason: error.message }, 'could not renew task leases'));
  }, store.leaseMs / 3);
  let sweeping = false;
  /** A hand-over was heard during a sweep, which may have claimed before its lease was written expired: sweep once more. */
  let sweepAgain = false;
  const sweep = () => {
    if (!engine.takesOverTurns) return;
    if (sweeping) {
      sweepAgain = true;
      return;
    }
    sweeping = true;
    sweepAgain = false;
    void recoverAbandonedTasks(engine, store, log).finally(() => {
      sweeping = false;
      if (sweepAgain) sweep();
    });
  };
  const sweeper = setInterval(sweep, store.leaseMs / 2);
  // Node's timers hold the process open unless unref'd; elsewhere they are numbers.
  (renewer as { unref?: () => void }).unref?.();
  (sweeper as { unref?: () => void }).unref?.();
  const unsubscribe = store
    .onTurnEnded(({ taskId, turn, state, attempt }) => {
      if (state === 'handed-over') sweep();
      else engine.abortTurn(taskId, turn, state === 'resumed' ? attempt : undefined);
    })
    .catch((error: Error) => {
      log.error({ err: error }, 'cannot hear of cancellations made by other replicas');
      return () => undefined;
    });
  return async () => {
    clearInterval(renewer);
    clearInterval(sweeper);
    (await unsubscribe)();
  };
}

async function recoverAbandonedTasks(engine: ReplicaWork, store: SharedTaskStore, log: Logger): Promise<void> {
  try {
    for (const taskId of await store.claimExpiredLeases()) {
      const recovery = await engine.recoverAbandoned(taskId);
      if (recovery?.action === 'resumed' && recovery.reason === 'hand-over') {
        log.info({ taskId, attempt: recovery.attempt }, 'task resumed here: the replica running it handed it over as it stopped');
      } else if (recovery?.action === 'resumed') {
        log.warn({ taskId, attempt: recovery.attempt }, 'task resumed here: the process running it stopped renewing its lease');
      } else if (recovery) {
        log.warn({ taskId, attempts: recovery.attempts }, 'task failed: the process running it stopped renewing its lease');
      }
    }
  } catch (error) {
    log.warn({ reason: (error as Error).message }, 'could not check for abandoned tasks');
  }
}
