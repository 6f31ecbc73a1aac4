import { A2AError, validateTaskSendParams, type TaskSendParams } from 'a2a-types';
import { taskSnapshot } from '../task-state.js';
import { acceptPushConfig } from './push-notification.js';
import type { UnaryMethod } from './method.js';

/**
 * tasks/send [7.1]: starts or continues the task, then answers once the turn ends (completed,
 * failed, canceled, input-required) or, for a long turn, after `sendWaitMs` with the task as it
 * stands (`working`); the handler keeps running and the client polls tasks/get.
 */
export const send: UnaryMethod<TaskSendParams> = {
  kind: 'unary',
  validateParams: validateTaskSendParams,
  async run(params, { env, principal }) {
    await acceptPushConfig(env, params.pushNotification);
    const run = env.engine.run(await env.engine.startTurn(params, principal));
    await settledWithin(run.ended, env.options.sendWaitMs);
    if (run.error) throw run.error;
    // A turn that ended by itself hands back its final record; otherwise (still working after
    // sendWaitMs, or canceled meanwhile) the store tells how the task stands now.
    const record = run.finalRecord ?? (await env.store.get(params.id));
    if (!record) throw A2AError.taskNotFound(params.id);
    return taskSnapshot(record, params.historyLength);
  },
};

async function settledWithin(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
