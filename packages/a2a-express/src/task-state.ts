// Pure functions from a task record and an event to the next record. The engine decides which
// events happen; these functions decide what each one does to the stored task, the same way for
// every store.
import {
  isFinalState,
  type Part,
  isStatusUpdateEvent,
  type Artifact,
  type Message,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskEvent,
  type TaskState,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from 'a2a-types';
import type { TaskRecord } from './task-store.js';

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
  const status: TaskStatus = message
    ? { state, message, timestamp: now() }
    : { state, timestamp: now() };
  const event: TaskStatusUpdateEvent = { id: taskId, status, final: isFinalState(state) };
  if (metadata) event.metadata = metadata;
  return event;
}

/** Whether this event ends a stream: a status event in a final state [7.2.2]. */
export function isFinalEvent(event: TaskEvent): boolean {
  return isStatusUpdateEvent(event) && event.final === true;
}

/** The record after `events`, in order. */
export function applyEvents(record: TaskRecord, events: readonly TaskEvent[]): TaskRecord {
  let next = record;
  for (const event of events) {
    next = isStatusUpdateEvent(event) ? applyStatus(next, event) : applyArtifact(next, event);
  }
  return next;
}

function applyStatus(record: TaskRecord, event: TaskStatusUpdateEvent): TaskRecord {
  const { message } = event.status;
  return {
    ...record,
    task: { ...record.task, status: event.status },
    // Like the reference server, every agent message of a status goes into the history, so
    // `historyLength` shows the conversation as both sides saw it.
    history: message ? [...record.history, message] : record.history,
    updatedAt: Date.now(),
  };
}

function applyArtifact(record: TaskRecord, event: TaskArtifactUpdateEvent): TaskRecord {
  return {
    ...record,
    task: { ...record.task, artifacts: mergeArtifact(record.task.artifacts ?? [], event.artifact) },
    updatedAt: Date.now(),
  };
}

/**
 * Assembles streamed chunks [6.7]: `append: true` adds the chunk's parts to the artifact with
 * the same index; otherwise the chunk replaces it. Stored artifacts are kept sorted by index and
 * lose the streaming-only `append`/`lastChunk` flags.
 */
export function mergeArtifact(artifacts: readonly Artifact[], chunk: Artifact): Artifact[] {
  const index = chunk.index ?? 0;
  const position = artifacts.findIndex((a) => (a.index ?? 0) === index);
  const existing = position >= 0 ? artifacts[position] : undefined;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { append, lastChunk, ...content } = chunk;
  const merged: Artifact =
    append && existing
      ? withAppendedParts(
          {
            ...fieldsOf(existing),
            name: existing.name ?? chunk.name,
            description: existing.description ?? chunk.description,
            metadata: chunk.metadata ? { ...existing.metadata, ...chunk.metadata } : existing.metadata,
          },
          existing,
          chunk.parts,
        )
      : { ...content, index };
  const next = artifacts.slice();
  if (existing) next[position] = merged;
  else {
    const insertAt = next.findIndex((a) => (a.index ?? 0) > index);
    next.splice(insertAt < 0 ? next.length : insertAt, 0, merged);
  }
  return next;
}

/**
 * Parts of an artifact grown by appends: a backing array shared along the chain of records,
 * and how many of its parts this artifact owns. Appending copies nothing when the backing array
 * ends where this artifact does (the usual case: each chunk extends the newest record), so a
 * stream of n chunks costs O(n), not O(n²). Older records still see exactly their own parts.
 */
interface GrowingParts {
  readonly backing: Part[];
  readonly count: number;
}
const GROWING = Symbol('growing parts');

/** Every field but `parts` (which may be a getter). */
function fieldsOf(artifact: Artifact): Omit<Artifact, 'parts'> {
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(artifact)) if (key !== 'parts') fields[key] = (artifact as unknown as Record<string, unknown>)[key];
  return fields as Omit<Artifact, 'parts'>;
}

function withAppendedParts(fields: Omit<Artifact, 'parts'>, existing: Artifact, added: readonly Part[]): Artifact {
  const previous = (existing as { [GROWING]?: GrowingParts })[GROWING];
  let backing: Part[];
  let count: number;
  if (previous) {
    count = previous.count;
    backing = previous.backing.length === count ? previous.backing : previous.backing.slice(0, count);
  } else {
    backing = existing.parts.slice();
    count = backing.length;
  }
  for (const part of added) backing.push(part);
  count += added.length;
  const grown = { ...fields } as Artifact;
  // A fresh array on every read: what a reader holds never grows under it.
  Object.defineProperty(grown, 'parts', { enumerable: true, get: () => backing.slice(0, count) });
  Object.defineProperty(grown, GROWING, { enumerable: false, value: { backing, count } satisfies GrowingParts });
  return grown;
}

/** The index a new chunk gets when the handler did not choose one. */
export function nextArtifactIndex(record: TaskRecord, append: boolean): number {
  const indices = (record.task.artifacts ?? []).map((a) => a.index ?? 0);
  if (indices.length === 0) return 0;
  const highest = Math.max(...indices);
  return append ? highest : highest + 1;
}

/**
 * The task as a client sees it. `historyLength` N > 0 adds the last N messages, oldest first;
 * omitted, null or 0 adds none [7.1.1, 7.3.1].
 */
export function taskSnapshot(record: TaskRecord, historyLength?: number | null): Task {
  const { task } = record;
  const snapshot: Task = { id: task.id, sessionId: task.sessionId, status: task.status };
  if (task.artifacts && task.artifacts.length > 0) snapshot.artifacts = task.artifacts;
  if (historyLength && historyLength > 0) snapshot.history = record.history.slice(-historyLength);
  if (task.metadata) snapshot.metadata = task.metadata;
  return snapshot;
}
