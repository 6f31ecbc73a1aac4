// A streamed send. With a view that shows the task (0.3, 1.0): the Task as the turn opened, then
// the turn's updates until its final one; the Task is sent with the handler's first update, so
// that a turn whose first update is a `reply` streams that message alone. Without (0.1.0): every
// event of the turn, from its opening `working` status on.
import { CORE_VIEW, ownerIn, streamHolder, type CallContext } from './call.js';
import { SeveralEvents, TaskEventStream } from './event-feed.js';
import type { SendMessageParams } from './operations.js';
import type { TurnRules } from './operations.js';
import type { TurnStart } from './task-engine.js';
import type { TaskService } from './task-service.js';
import type { StoredEvent } from '../model/record.js';

export async function openSendStream(
  service: TaskService,
  taskId: string,
  send: SendMessageParams,
  context: CallContext,
  rules: TurnRules,
): Promise<TaskEventStream> {
  const view = context.view ?? CORE_VIEW;
  // The feed subscribes before the turn starts, so the stream holds every event of the turn.
  const feed = await service.openFeed(taskId, streamHolder(context));
  let started: TurnStart;
  try {
    ({ started } = await service.startTurn(taskId, send, ownerIn(context), rules, context));
  } catch (error) {
    feed.close();
    throw error;
  }
  if (!view.task) return new TaskEventStream(feed, [], 0, view.events(started.record));
  // The Task stands for the events that opened the turn; live events follow from the next one.
  const opening = started.events[started.events.length - 1]!;
  const task = view.task(started.record);
  const render = view.events(started.record);
  const { reply } = view;
  let taskSent = false;
  const renderFirst = (stored: StoredEvent): unknown => {
    taskSent = true;
    const { event } = stored;
    if (reply && 'status' in event && event.reply && event.status.message) {
      return reply(event.status.message, event.id, started.record.task.contextId);
    }
    return new SeveralEvents([
      { eventId: opening.id, value: task },
      { eventId: stored.id, value: render(stored) },
    ]);
  };
  return new TaskEventStream(feed, [], opening.id, (stored) => (taskSent ? render(stored) : renderFirst(stored)));
}
