import { validateTaskSendParams, type TaskSendParams } from 'a2a-types';
import { sendOperation01, taskTo01 } from './mapping.js';
import type { UnaryMethod } from '../../core/method.js';

/** The ids a send carries: the task's, its session's, and those the newer versions give a message. */
export const SEND_ID_PATHS: readonly string[] = [
  '/id',
  '/sessionId',
  '/message/messageId',
  '/message/taskId',
  '/message/contextId',
  '/message/referenceTaskIds/*',
];

/**
 * tasks/send [7.1]: starts or continues the task, then answers once the turn ends (completed,
 * failed, canceled, input-required) or, for a long turn, after `sendWaitMs` with the task as it
 * stands (`working`); the handler keeps running and the client polls tasks/get.
 */
export const send: UnaryMethod<TaskSendParams> = {
  kind: 'unary',
  validateParams: validateTaskSendParams,
  idPaths: SEND_ID_PATHS,
  async run(params, { service, principal }) {
    return taskTo01(await service.sendAndWait(sendOperation01(params), principal), params.historyLength);
  },
};
