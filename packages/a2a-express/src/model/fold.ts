// How events fold into a task record: pure functions, the same for every store. A store applies
// a change's events with `settleChange`; the in-memory store swaps in a faster artifact merge
// that gives the same records (the store contract tests check both).
import { isStatusUpdateEvent, type Artifact, type Message, type Task, type TaskArtifactUpdateEvent, type TaskEvent } from './task.js';
import { appendedSize, artifactSize, historyEntrySize } from './size.js';
import { copyRecord, type StoredEvent, type TaskChange, type TaskRecord, type TaskUpdateResult } from './record.js';

/**
 * Merges a streamed chunk into a task's artifacts; see {@link mergeArtifact}. `fold` numbers the
 * fold under way (the same number for each chunk of one batch, another for every fold): an
 * artifact the merge made earlier in the same fold belongs to no stored record yet, and a merge
 * may change it in place. A number rather than an object, so that what a merge keeps of it holds
 * on to nothing.
 */
export type ArtifactMerge = (artifacts: readonly Artifact[], chunk: Artifact, fold?: number) => Artifact[];

/** The last fold's number (see `ArtifactMerge`). */
let folds = 0;

/**
 * The record a store keeps for `change` made to `current`: the change's events applied to its
 * record, numbered on from the current record's last event id (they are the SSE ids), and
 * checked by the change. Throws what the change's check throws.
 */
export function settleChange(current: TaskRecord | undefined, change: TaskChange, merge: ArtifactMerge = mergeArtifact): TaskUpdateResult {
  const { events } = change;
  const folded = applyEvents(change.record, events, merge);
  change.check?.(folded);
  const firstId = (current?.lastEventId ?? 0) + 1;
  // Events made the fold a record of its own; without any it is the change's, to copy.
  const saved = folded === change.record ? copyRecord(folded) : (folded as MutableRecord);
  saved.lastEventId = firstId + events.length - 1;
  const stored: StoredEvent[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) stored[i] = { id: firstId + i, event: events[i]! };
  return { record: saved, events: stored };
}

/**
 * The record after `events`, in order: a new record when there are any (`record` is left as it
 * is), `record` itself when there are none. One copy of the record and its task for the whole
 * batch, changed event by event, rather than two for each event.
 */
export function applyEvents(record: TaskRecord, events: readonly TaskEvent[], merge: ArtifactMerge = mergeArtifact): TaskRecord {
  if (events.length === 0) return record;
  const next = copyRecord(record);
  next.task = copyTask(record.task);
  const fold = ++folds;
  let historyIsOwn = false;
  for (const event of events) {
    if (!isStatusUpdateEvent(event)) {
      applyArtifact(next, event, merge, fold);
      continue;
    }
    const task = next.task as MutableTask;
    task.status = event.status;
    const { message } = event.status;
    // Like the reference server, every agent message of a status goes into the history, so
    // `historyLength` shows the conversation as both sides saw it.
    if (message) {
      if (historyIsOwn) (next.history as Message[]).push(message);
      else next.history = [...next.history, message];
      historyIsOwn = true;
      next.bytes = (next.bytes ?? 0) + historyEntrySize(task, message);
    }
    if (event.reply) next.replied = true;
  }
  next.updatedAt = Date.now();
  return next;
}

/** Folds a chunk into `next`, the batch's own copy of the record and its task. */
function applyArtifact(next: MutableRecord, event: TaskArtifactUpdateEvent, merge: ArtifactMerge, fold: number): void {
  const task = next.task as MutableTask;
  const artifacts = task.artifacts ?? [];
  const chunk = event.artifact;
  // An appended chunk adds to the artifact at its index; any other chunk replaces it. Counted
  // before the merge, which may grow that artifact in place.
  const index = chunk.index ?? 0;
  const existing = artifacts.find((a) => (a.index ?? 0) === index);
  let bytes = next.bytes ?? 0;
  if (chunk.append && existing) bytes += appendedSize(existing, chunk);
  else bytes += artifactSize(chunk) - (existing ? artifactSize(existing) : 0);
  // Never below zero, whatever a record stored by an older release counted.
  next.bytes = Math.max(0, bytes);
  task.artifacts = merge(artifacts, chunk, fold);
}

type MutableTask = { -readonly [K in keyof Task]: Task[K] };
type MutableRecord = ReturnType<typeof copyRecord>;

/** A task to change before it is stored; by name, like {@link copyRecord}, as it runs for every event. */
function copyTask(task: Task): MutableTask {
  const copy: MutableTask = { id: task.id, contextId: task.contextId, status: task.status };
  if (task.artifacts !== undefined) copy.artifacts = task.artifacts;
  if (task.metadata !== undefined) copy.metadata = task.metadata;
  return copy;
}

/**
 * Assembles streamed chunks [6.7]: `append: true` adds the chunk's parts to the artifact with
 * the same index; otherwise the chunk replaces it. Stored artifacts are kept sorted by index and
 * lose the streaming-only `append`/`lastChunk` flags.
 */
export function mergeArtifact(artifacts: readonly Artifact[], chunk: Artifact): Artifact[] {
  return placeArtifact(artifacts, chunk, (existing, index) => {
    const grown = appendedFields(existing, chunk, index, extraFieldsOf(existing));
    grown.parts = [...existing.parts, ...chunk.parts];
    return grown;
  });
}

/**
 * The artifacts with the chunk in its place: appended by `append` to the artifact at its index
 * when it has `append` and that artifact exists, otherwise standing for itself.
 */
export function placeArtifact(
  artifacts: readonly Artifact[],
  chunk: Artifact,
  append: (existing: Artifact, index: number) => Artifact,
): Artifact[] {
  const index = chunk.index ?? 0;
  // One pass finds the artifact at the chunk's index and where a new one would go.
  let position = -1;
  let insertAt = artifacts.length;
  for (let i = 0; i < artifacts.length; i++) {
    const at = artifacts[i]!.index ?? 0;
    if (at === index) position = i;
    if (at > index && insertAt === artifacts.length) insertAt = i;
  }
  const existing = position >= 0 ? artifacts[position] : undefined;
  const merged = chunk.append && existing ? append(existing, index) : withoutStreamingFlags(chunk, index);
  const next: Artifact[] = [];
  for (let i = 0; i < artifacts.length; i++) {
    if (!existing && i === insertAt) next.push(merged);
    next.push(i === position ? merged : artifacts[i]!);
  }
  if (!existing && insertAt === artifacts.length) next.push(merged);
  return next;
}

function withoutStreamingFlags(chunk: Artifact, index: number): Artifact {
  const { append: _append, lastChunk: _lastChunk, ...content } = chunk;
  return { ...content, index };
}

const SCHEMA_FIELDS = new Set(['name', 'description', 'parts', 'index', 'append', 'lastChunk', 'metadata']);

/** The fields of an artifact beyond the schema's (rare); an append keeps them. */
export function extraFieldsOf(artifact: Artifact): string[] {
  return Object.keys(artifact).filter((key) => !SCHEMA_FIELDS.has(key));
}

/**
 * Every field of an appended artifact but its parts: the first name and description it had,
 * metadata merged (the chunk's keys win), and the fields beyond the schema's.
 */
export function appendedFields(
  existing: Artifact,
  chunk: Artifact,
  index: number,
  extraFields: readonly string[],
): { -readonly [K in keyof Artifact]: Artifact[K] } {
  const grown = { index } as { -readonly [K in keyof Artifact]: Artifact[K] };
  const name = existing.name ?? chunk.name;
  if (name !== undefined) grown.name = name;
  const description = existing.description ?? chunk.description;
  if (description !== undefined) grown.description = description;
  const metadata = chunk.metadata ? { ...existing.metadata, ...chunk.metadata } : existing.metadata;
  if (metadata !== undefined) grown.metadata = metadata;
  for (const key of extraFields) (grown as Record<string, unknown>)[key] = (existing as unknown as Record<string, unknown>)[key];
  return grown;
}
