// Resubscription, the same on every version: which of a task's events a stream that joins late
// starts from, then the live ones. Each version renders the events in its own form.
import { A2AError } from 'a2a-types/model';
import { isFinalState } from '../model/task.js';
import type { StoredEvent, TaskRecord } from '../model/record.js';
import { CORE_VIEW, streamHolder, type CallContext } from './call.js';
import { TaskEventStream } from './event-feed.js';
import type { TaskService } from './task-service.js';
import { isFinalEvent } from './task-events.js';

/**
 * Without `Last-Event-ID`: the current status, then every later event until the final one. With
 * it: every event after that id (a replay from the task's log), then the live ones. A task whose
 * turn is over gets its final status as the one final event. When the bounded log no longer
 * reaches back to the id, the client gets the task's current state instead: each artifact whole
 * (replacing what it has), then the status.
 */
export async function openResubscription(service: TaskService, taskId: string, context: CallContext): Promise<TaskEventStream> {
  const { principal, lastEventId: header } = context;
  const feed = await service.openFeed(taskId, streamHolder(context));
  try {
    const record = await service.readTask(taskId, principal);
    const lastSeen = lastEventId(header, record);
    const initial = lastSeen === undefined ? [statusOf(record)] : ((await service.eventsAfter(taskId, lastSeen)) ?? currentState(record));
    if (isFinalState(record.task.status.state) && !initial.some((e) => isFinalEvent(e.event))) {
      initial.push(statusOf(record));
    }
    const coveredThrough = Math.max(record.lastEventId, ...initial.map((e) => e.id));
    return new TaskEventStream(feed, initial, coveredThrough, (context.view ?? CORE_VIEW).events(record));
  } catch (error) {
    feed.close();
    throw error;
  }
}

/** The `Last-Event-ID` header as an event id of this task; -32602 if it cannot be one. */
function lastEventId(header: string | undefined, record: TaskRecord): number | undefined {
  if (header === undefined || header === '') return undefined;
  const id = /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : NaN;
  if (!(id <= record.lastEventId)) {
    throw A2AError.invalidParams([
      {
        path: '',
        message: `Last-Event-ID ${JSON.stringify(header)} is not an event id of task ${record.task.id}`,
        keyword: 'lastEventId',
        params: { lastEventId: record.lastEventId },
      },
    ]);
  }
  return id;
}

function statusOf(record: TaskRecord): StoredEvent {
  const { id, status } = record.task;
  return { id: record.lastEventId, event: { id, status, final: isFinalState(status.state) } };
}

function currentState(record: TaskRecord): StoredEvent[] {
  const artifacts = (record.task.artifacts ?? []).map((artifact) => ({
    id: record.lastEventId,
    event: { id: record.task.id, artifact: { ...artifact, append: false } },
  }));
  return [...artifacts, statusOf(record)];
}
