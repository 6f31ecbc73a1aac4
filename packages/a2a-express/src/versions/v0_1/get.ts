import { validateTaskQueryParams, type TaskQueryParams } from 'a2a-types';
import { taskTo01 } from './mapping.js';
import type { UnaryMethod } from '../../core/method.js';

/** tasks/get [7.3]: the task as it stands, with the last `historyLength` messages. */
export const get: UnaryMethod<TaskQueryParams> = {
  kind: 'unary',
  validateParams: validateTaskQueryParams,
  async run(params, { service, principal }) {
    return taskTo01(await service.readTask(params.id, principal), params.historyLength);
  },
};
