// The kit's task model as A2A 0.1.0 says it. 0.1.0 has most of it: what it lacks gets the most
// faithful word 0.1.0 has (README, "What each version sees"):
// - `rejected` is `failed` (the task ends undone), `auth-required` is `input-required` (the
//   client must act before the task goes on); the status message says which;
// - a message that is the whole answer (`reply`) is the task completed with that message;
// - the context id is the `sessionId`.
// Everything else is the same object, passed as it is: this runs for every event of a stream.
import type * as v01 from 'a2a-types';
import type { PushBody } from '../../push/push-notifier.js';
import type { StoredEvent, TaskRecord } from '../../model/record.js';
import type { A2AError } from 'a2a-types';
import { withPathsRenamed } from '../../core/error-paths.js';
import type { PushConfigInput, SendMessageParams } from '../../core/operations.js';
import type { Task, TaskEvent, TaskState, TaskStatus } from '../../model/task.js';
import { taskSnapshot } from '../../model/record.js';

/** How the kit names this version: in logs, and on the push configs set over it. */
export const PROTOCOL_NAME_01 = '0.1.0';

/** The 0.1.0 state for each state 0.1.0 lacks. */
const STATE_01: Partial<Record<TaskState, v01.TaskState>> = { rejected: 'failed', 'auth-required': 'input-required' };

export function statusTo01(status: TaskStatus): v01.TaskStatus {
  const state = STATE_01[status.state];
  return (state ? { ...status, state } : status) as v01.TaskStatus;
}

/** The task as a 0.1.0 answer carries it, with the last `historyLength` messages. */
export function taskTo01(record: TaskRecord, historyLength?: number | null): v01.Task {
  const { contextId, status, ...snapshot } = taskSnapshot(record, historyLength) as Task & { history?: v01.Message[] };
  return { id: snapshot.id, sessionId: contextId, status: statusTo01(status), ...withoutId(snapshot) };
}

function withoutId<T extends { id: string }>({ id: _id, ...rest }: T): Omit<T, 'id'> {
  return rest;
}

/** A stored event as a 0.1.0 stream sends it: the same object unless its state or `reply` is not 0.1.0's. */
export function eventTo01(stored: StoredEvent): v01.TaskEvent {
  const event: TaskEvent = stored.event;
  if (!('status' in event) || (event.reply === undefined && STATE_01[event.status.state] === undefined)) return event as v01.TaskEvent;
  const { reply: _reply, status, ...rest } = event;
  return { ...rest, status: statusTo01(status) } as v01.TaskStatusUpdateEvent;
}

/**
 * A 0.1.0 send in the core's model: the task and session the request names, beside the message
 * as it came; its push config, if it has one, is the task's own (its id the task's).
 */
export function sendFrom01(params: v01.TaskSendParams): SendMessageParams {
  const { id, sessionId, message, pushNotification, historyLength, metadata } = params;
  const send: SendMessageParams = { message, task: sessionId == null ? { id } : { id, contextId: sessionId } };
  if (pushNotification || historyLength != null) {
    send.configuration = {};
    if (pushNotification) send.configuration.taskPushNotificationConfig = pushConfigFrom01(pushNotification);
    if (historyLength != null) send.configuration.historyLength = historyLength;
  }
  if (metadata != null) send.metadata = metadata;
  return send;
}

/** Where 0.1.0 sends what the core's operations name otherwise. */
const PATHS_01: Readonly<Record<string, string>> = {
  '/task/id': '/id',
  '/task/contextId': '/sessionId',
  '/configuration/taskPushNotificationConfig': '/pushNotification',
};

/** An error as a 0.1.0 client gets it: the kit's codes are 0.1.0's; the paths of its issues are renamed to 0.1.0's fields. */
export function errorTo01(error: A2AError): A2AError {
  return withPathsRenamed(error, PATHS_01) ?? error;
}

/**
 * A config a 0.1.0 client sent, marked as 0.1.0's. It has no id: 0.1.0 knows one config a task,
 * the core's config without an id (the task's own, else its oldest).
 */
export function pushConfigFrom01(config: v01.PushNotificationConfig): PushConfigInput {
  return { ...config, protocol: PROTOCOL_NAME_01 };
}

/** A 0.1.0 webhook gets the kit's `PushNotificationPayload`: the status event, with the task's ids and the event's id. */
export const pushBodyTo01: PushBody = (record, event, eventId) =>
  ({
    eventType: 'taskStatusUpdate',
    taskId: record.task.id,
    sessionId: record.task.contextId,
    status: statusTo01(event.status),
    final: event.final === true,
    eventId,
  }) satisfies v01.PushNotificationPayload;
