import { validateTaskIdParams, type TaskIdParams } from 'a2a-types';
import { taskSnapshot } from '../../store/records.js';
import type { UnaryMethod } from '../../core/method.js';

/**
 * tasks/cancel [7.4]: a task that is not finished becomes `canceled` and its handler's signal
 * aborts; unknown → -32001, completed/failed/canceled → -32002.
 */
export const cancel: UnaryMethod<TaskIdParams> = {
  kind: 'unary',
  validateParams: validateTaskIdParams,
  async run(params, { service, principal }) {
    return taskSnapshot(await service.cancel(params.id, principal));
  },
};
