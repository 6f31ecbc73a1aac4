import { validateTaskQueryParams, type TaskQueryParams } from 'a2a-types';
import { taskSnapshot } from '../task-state.js';
import { readOwnTask, type UnaryMethod } from './method.js';

/** tasks/get [7.3]: the task as it stands, with the last `historyLength` messages. */
export const get: UnaryMethod<TaskQueryParams> = {
  kind: 'unary',
  validateParams: validateTaskQueryParams,
  async run(params, { env, principal }) {
    return taskSnapshot(await readOwnTask(env, params.id, principal), params.historyLength);
  },
};
