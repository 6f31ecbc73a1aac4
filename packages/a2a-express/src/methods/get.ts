import { A2AError, validateTaskQueryParams, type TaskQueryParams } from 'a2a-types';
import { taskSnapshot } from '../task-state.js';
import type { UnaryMethod } from './method.js';

/** tasks/get [7.3]: the task as it stands, with the last `historyLength` messages. */
export const get: UnaryMethod<TaskQueryParams> = {
  kind: 'unary',
  validateParams: validateTaskQueryParams,
  async run(params, { env }) {
    const record = await env.store.get(params.id);
    if (!record) throw A2AError.taskNotFound(params.id);
    return taskSnapshot(record, params.historyLength);
  },
};
