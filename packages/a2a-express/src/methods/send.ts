import { validateTaskSendParams, type TaskSendParams } from 'a2a-types';
import { taskSnapshot } from '../store/records.js';
import type { UnaryMethod } from './method.js';

/**
 * tasks/send [7.1]: starts or continues the task, then answers once the turn ends (completed,
 * failed, canceled, input-required) or, for a long turn, after `sendWaitMs` with the task as it
 * stands (`working`); the handler keeps running and the client polls tasks/get.
 */
export const send: UnaryMethod<TaskSendParams> = {
  kind: 'unary',
  validateParams: validateTaskSendParams,
  async run(params, { service, principal }) {
    return taskSnapshot(await service.sendAndWait(params, principal), params.historyLength);
  },
};
