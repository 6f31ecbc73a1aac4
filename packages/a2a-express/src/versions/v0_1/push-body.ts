import type { PushNotificationPayload } from 'a2a-types';
import type { PushBody } from '../../push/push-notifier.js';
import { statusTo01 } from './mapping.js';

/** A 0.1.0 webhook gets the kit's `PushNotificationPayload`: the status event, with the task's ids and the event's id. */
export const pushBody01: PushBody = (record, event, eventId) =>
  ({
    eventType: 'taskStatusUpdate',
    taskId: record.task.id,
    sessionId: record.task.contextId,
    status: statusTo01(event.status),
    final: event.final === true,
    eventId,
  }) satisfies PushNotificationPayload;
