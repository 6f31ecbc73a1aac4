import { validateTaskSendParams, type TaskSendParams } from 'a2a-types';
import { TaskEventStream } from '../../core/event-feed.js';
import { streamHolder, type StreamingMethod } from '../../core/method.js';
import { eventTo01, sendOperation01 } from './mapping.js';
import { SEND_ID_PATHS } from './send.js';

/**
 * tasks/sendSubscribe [7.2]: starts or continues the task and streams its events until the
 * turn's final one. The feed subscribes before the turn starts, so the stream holds every event
 * of the turn from its opening `working` status on.
 */
export const sendSubscribe: StreamingMethod<TaskSendParams> = {
  kind: 'streaming',
  requires: 'streaming',
  validateParams: validateTaskSendParams,
  idPaths: SEND_ID_PATHS,
  async open(params, call) {
    const { service, principal } = call;
    const feed = await service.openFeed(params.id, streamHolder(call));
    try {
      await service.startTurn(sendOperation01(params), principal);
    } catch (error) {
      feed.close();
      throw error;
    }
    return new TaskEventStream(feed, [], 0, eventTo01);
  },
};
