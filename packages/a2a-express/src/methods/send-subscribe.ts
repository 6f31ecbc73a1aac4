import { validateTaskSendParams, type TaskSendParams } from 'a2a-types';
import { EventFeed } from '../event-feed.js';
import type { StreamingMethod } from './method.js';
import { acceptPushConfig } from './push-notification.js';

/**
 * tasks/sendSubscribe [7.2]: starts or continues the task and streams its events until the
 * turn's final one. The feed subscribes before the turn starts, so the stream holds every event
 * of the turn from its opening `working` status on.
 */
export const sendSubscribe: StreamingMethod<TaskSendParams> = {
  kind: 'streaming',
  requires: 'streaming',
  validateParams: validateTaskSendParams,
  async open(params, { env, principal }) {
    await acceptPushConfig(env, params.pushNotification);
    const feed = await EventFeed.open(env.store, params.id);
    try {
      env.engine.run(await env.engine.startTurn(params, principal));
    } catch (error) {
      feed.close();
      throw error;
    }
    return { feed, initial: [], coveredThrough: 0 };
  },
};
