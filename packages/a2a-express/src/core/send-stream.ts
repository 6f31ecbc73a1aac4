// A streamed send. With a view that shows the task (0.3, 1.0): the Task as the turn opened, then
// the turn's updates until its final one; the Task is sent with the handler's first update, so
// that a turn whose first update is a `reply` streams that message alone. Without (0.1.0): every
// event of the turn, from its opening `working` status on. A retry of a send whose message the
// agent has taken (docs/idempotency.md) streams that turn again: replayed from the task's log,
// then live.
import { CORE_VIEW, ownerIn, streamHolder, type CallContext, type CallView } from './call.js';
import { type EventFeed, SeveralEvents, TaskEventStream } from './event-feed.js';
import { indexOfMessage } from './idempotency.js';
import type { SendMessageParams } from './operations.js';
import type { TurnRules } from './operations.js';
import type { SendOutcome, TaskService } from './task-service.js';
import { copyRecord, type StoredEvent, type TaskRecord } from '../model/record.js';
import { isFinalState } from '../model/task.js';

export async function openSendStream(
  service: TaskService,
  taskId: string,
  send: SendMessageParams,
  context: CallContext,
  rules: TurnRules,
): Promise<TaskEventStream> {
  const view = context.view ?? CORE_VIEW;
  const owner = ownerIn(context);
  const admitted = await service.admitSend(taskId, send, owner, context);
  // The feed subscribes before the turn starts, so the stream holds every event of the turn.
  const feed = await service.openFeed(admitted.taskId, streamHolder(context));
  let outcome: SendOutcome;
  try {
    outcome = await service.startTurn(admitted, owner, rules, context);
    if (outcome.taken) return await streamOfTaken(service, feed, outcome.taken, admitted.params.message.messageId!, view);
  } catch (error) {
    feed.close();
    throw error;
  }
  const { started } = outcome.run;
  if (!view.task) return new TaskEventStream(feed, [], 0, view.events(started.record));
  // The Task stands for the events that opened the turn; live events follow from the next one.
  return turnStream(feed, [], started.record, started.events[started.events.length - 1]!, view);
}

/**
 * The stream of a turn in a view that shows the task: the Task as the turn opened (`opened`,
 * standing for the events through `opening`), sent with the first of the events after it (the
 * message alone when that is a `reply`); `replayed` are those of them read from the log.
 */
function turnStream(
  feed: EventFeed,
  replayed: readonly StoredEvent[],
  opened: TaskRecord,
  opening: StoredEvent,
  view: CallView,
): TaskEventStream {
  const task = view.task!(opened);
  const render = view.events(opened);
  const { reply } = view;
  let taskSent = false;
  const renderFirst = (stored: StoredEvent): unknown => {
    taskSent = true;
    const { event } = stored;
    if (reply && 'status' in event && event.reply && event.status.message) {
      return reply(event.status.message, event.id, opened.task.contextId);
    }
    return new SeveralEvents([
      { eventId: opening.id, value: task },
      { eventId: stored.id, value: render(stored) },
    ]);
  };
  const coveredThrough = replayed.length > 0 ? replayed[replayed.length - 1]!.id : opening.id;
  return new TaskEventStream(feed, replayed, coveredThrough, (stored) => (taskSent ? render(stored) : renderFirst(stored)));
}

/**
 * A retried streaming send, whose message `messageId` the task `record` took before: the turn's
 * stream again from its start, replayed from the task's log, then live, when the message opened
 * the task (its turn's events are the log's first) and the bounded log still holds them.
 * Otherwise the task as it stands (0.1.0: its status), then live.
 */
async function streamOfTaken(
  service: TaskService,
  feed: EventFeed,
  record: TaskRecord,
  messageId: string,
  view: CallView,
): Promise<TaskEventStream> {
  const taskId = record.task.id;
  const replayed = indexOfMessage(record, messageId) === 0 ? await service.eventsAfter(taskId, 0) : undefined;
  const opening = replayed?.[0];
  if (replayed && opening?.id === 1) {
    if (!view.task) return new TaskEventStream(feed, replayed, replayed[replayed.length - 1]!.id, view.events(record));
    if ('status' in opening.event) {
      // The task as its first turn opened it: that status, its first message, no artifacts yet.
      const opened = copyRecord(record);
      opened.task = { ...record.task, status: opening.event.status, artifacts: undefined };
      opened.history = record.history.slice(0, 1);
      opened.lastEventId = opening.id;
      opened.replied = undefined;
      return turnStream(feed, replayed.slice(1), opened, opening, view);
    }
  }
  const { status } = record.task;
  const now: StoredEvent = { id: record.lastEventId, event: { id: taskId, status, final: isFinalState(status.state) } };
  const render = view.events(record);
  const { task: showTask, reply } = view;
  if (!showTask) return new TaskEventStream(feed, [now], now.id, render);
  const shown = record.replied && reply && status.message ? reply(status.message, taskId, record.task.contextId) : showTask(record);
  return new TaskEventStream(feed, [now], now.id, (stored) => (stored === now ? shown : render(stored)));
}
