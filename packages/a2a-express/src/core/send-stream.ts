// A streamed send, the same on every version that can answer with a message alone (0.3, 1.0):
// the Task as the turn opened, then the turn's updates until its final one. The Task is sent with
// the handler's first update, so that a turn whose first update is a `reply` streams that
// message alone. Each version renders the task, the reply and the events in its own form.
import { SeveralEvents, TaskEventStream } from './event-feed.js';
import { streamHolder, type MethodCall } from './method.js';
import type { Message } from './model.js';
import type { SendOperation } from './operations.js';
import type { TurnRules, TurnStart } from './task-engine.js';
import type { StoredEvent, TaskRecord } from '../store/records.js';

/** How a version shows a streamed send. */
export interface SendStreamView {
  /** The task as the turn opened (`working`, the message in its history). */
  task(record: TaskRecord): unknown;
  /** A reply: the message that is the whole answer, of the task `taskId` in `contextId`. */
  reply(message: Message, taskId: string, contextId: string): unknown;
  /** The task's events, made from the task as the turn opened. */
  events(record: TaskRecord): (stored: StoredEvent) => unknown;
}

export async function openSendStream(
  send: SendOperation,
  call: MethodCall,
  rules: TurnRules,
  view: SendStreamView,
): Promise<TaskEventStream> {
  const feed = await call.service.openFeed(send.id, streamHolder(call));
  let started: TurnStart;
  try {
    ({ started } = await call.service.startTurn(send, call.principal, rules));
  } catch (error) {
    feed.close();
    throw error;
  }
  // The Task stands for the events that opened the turn; live events follow from the next one.
  const opening = started.events[started.events.length - 1]!;
  const task = view.task(started.record);
  const render = view.events(started.record);
  let taskSent = false;
  const renderFirst = (stored: StoredEvent): unknown => {
    taskSent = true;
    const { event } = stored;
    if ('status' in event && event.reply && event.status.message) {
      return view.reply(event.status.message, event.id, started.record.task.contextId);
    }
    return new SeveralEvents([
      { eventId: opening.id, value: task },
      { eventId: stored.id, value: render(stored) },
    ]);
  };
  return new TaskEventStream(feed, [], opening.id, (stored) => (taskSent ? render(stored) : renderFirst(stored)));
}
