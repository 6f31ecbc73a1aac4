import { validateTaskIdParams, type TaskIdParams } from 'a2a-types';
import { taskTo01 } from './mapping.js';
import type { UnaryMethod } from '../../core/method.js';

/**
 * tasks/cancel [7.4]: a task that is not finished becomes `canceled` and its handler's signal
 * aborts; unknown → -32001, completed/failed/canceled → -32002.
 */
export const cancel: UnaryMethod<TaskIdParams> = {
  kind: 'unary',
  validateParams: validateTaskIdParams,
  async run(params, { service, principal }) {
    return taskTo01(await service.cancel(params.id, principal));
  },
};
