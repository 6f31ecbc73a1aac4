// The events the kit makes itself: a status change, stamped with the time.
import {
  isFinalState,
  isStatusUpdateEvent,
  type Message,
  type TaskEvent,
  type TaskState,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from '../model/task.js';

let lastMillis = 0;
let lastIso = '';

/** The current time in ISO 8601 UTC; formatted once per millisecond, not once per event. */
export function now(): string {
  const millis = Date.now();
  if (millis !== lastMillis) {
    lastMillis = millis;
    lastIso = new Date(millis).toISOString();
  }
  return lastIso;
}

export function statusEvent(
  taskId: string,
  state: TaskState,
  message?: Message | null,
  metadata?: Record<string, unknown> | null,
): TaskStatusUpdateEvent {
  const status: TaskStatus = message ? { state, message, timestamp: now() } : { state, timestamp: now() };
  const event: TaskStatusUpdateEvent = { id: taskId, status, final: isFinalState(state) };
  if (metadata) event.metadata = metadata;
  return event;
}

/** Whether this event ends a stream: a status event in a final state [7.2.2]. */
export function isFinalEvent(event: TaskEvent): boolean {
  return isStatusUpdateEvent(event) && event.final === true;
}
