import { validateTaskQueryParams, type TaskQueryParams } from 'a2a-types';
import { taskSnapshot } from '../../store/records.js';
import type { UnaryMethod } from '../../core/method.js';

/** tasks/get [7.3]: the task as it stands, with the last `historyLength` messages. */
export const get: UnaryMethod<TaskQueryParams> = {
  kind: 'unary',
  validateParams: validateTaskQueryParams,
  async run(params, { service, principal }) {
    return taskSnapshot(await service.readTask(params.id, principal), params.historyLength);
  },
};
