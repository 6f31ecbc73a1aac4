// What a handler hands over, made safe to store and send: its updates checked against the
// schema and turned into protocol events, and every value copied so the handler keeps nothing
// it could change afterwards.
import { formatIssues, setOwnField, validateArtifact, validateMessage, type ValidationIssue } from 'a2a-types/model';
import type { HandlerState, TaskUpdate } from './handler.js';
import { messageFieldIssues, partFieldIssues } from './message-fields.js';
import type { Artifact, Message, Metadata, Part, TaskEvent, TaskStatusUpdateEvent } from '../model/task.js';
import { jsonCopy } from '../model/plain-json.js';
import type { TaskRecord } from '../model/record.js';
import { statusEvent } from './task-events.js';

/** An update the kit cannot accept; the turn fails with a generic message (the reason is logged). */
export class InvalidUpdateError extends Error {}

const HANDLER_STATES: readonly HandlerState[] = [
  'working',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'canceled',
  'rejected',
];

/**
 * Turns a handler's update into a protocol event, or refuses it with InvalidUpdateError. An
 * artifact chunk without an index keeps none here: {@link withArtifactIndexes} gives it the one
 * it gets from the task as stored, when the event is written.
 */
export function toEvent(taskId: string, update: TaskUpdate): TaskEvent {
  if (update?.kind === 'status') {
    if (!HANDLER_STATES.includes(update.state)) {
      throw new InvalidUpdateError(`a handler cannot set the state ${JSON.stringify(update.state)}`);
    }
    const message = update.message === undefined ? undefined : checkedMessage(taskId, update.message, 'status message');
    return statusEvent(taskId, update.state, message, metadataOf(update));
  }
  if (update?.kind === 'reply') {
    if (update.message === undefined) throw new InvalidUpdateError('a reply needs a message');
    const event: TaskStatusUpdateEvent = statusEvent(
      taskId,
      'completed',
      checkedMessage(taskId, update.message, 'reply'),
      metadataOf(update),
    );
    event.reply = true;
    return event;
  }
  if (update?.kind === 'artifact') {
    const artifact = copyFromHandler(update.artifact);
    // No index (null too) is resolved against the task when written.
    if ((artifact as { index?: number | null }).index === null) delete artifact.index;
    if (!validateArtifact(artifact)) {
      throw new InvalidUpdateError(`artifact: ${formatIssues(validateArtifact.issues)}`);
    }
    assertPublishedDataParts(artifact.parts, 'artifact');
    assertNoConflicts(partFieldIssues(artifact.parts, '/parts'), 'artifact');
    return update.metadata ? { id: taskId, artifact, metadata: copyFromHandler(update.metadata) } : { id: taskId, artifact };
  }
  throw new InvalidUpdateError('an update must be a status, an artifact or a reply (see the helpers)');
}

/** A copy of a handler's message, checked as what clients will receive. */
function checkedMessage(taskId: string, sent: Message, where: string): Message {
  const message = copyFromHandler(sent);
  if (!validateMessage(message)) throw new InvalidUpdateError(`${where}: ${formatIssues(validateMessage.issues)}`);
  assertPublishedDataParts(message.parts, where);
  assertNoConflicts(messageFieldIssues(message, { taskId, contextId: undefined }), where);
  // Each update is a message of its own, even when the handler sends one object twice.
  message.messageId ??= crypto.randomUUID();
  return message;
}

function metadataOf(update: { readonly metadata?: Metadata }): Metadata | undefined {
  return update.metadata && copyFromHandler(update.metadata);
}

/**
 * The events with every artifact chunk indexed: one without an index extends the task's highest
 * artifact (`append`) or starts the next one, counting the chunks before it. Events that had an
 * index are passed as they are; the others are copied, as a store may write the same events
 * again on a task that changed meanwhile.
 */
export function withArtifactIndexes(current: TaskRecord, events: readonly TaskEvent[]): readonly TaskEvent[] {
  let indexed: TaskEvent[] | undefined;
  let highest: number | undefined;
  for (const artifact of current.task.artifacts ?? []) highest = Math.max(highest ?? 0, artifact.index ?? 0);
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (!('artifact' in event)) continue;
    let index = event.artifact.index;
    if (index == null) {
      index = highest === undefined ? 0 : event.artifact.append === true ? highest : highest + 1;
      indexed ??= events.slice();
      indexed[i] = { ...event, artifact: withIndex(event.artifact, index) };
    }
    highest = Math.max(highest ?? 0, index);
  }
  return indexed ?? events;
}

/**
 * The chunk with `index` set, its fields in their order. Built field by field: in V8 the spread
 * `{ ...artifact, index }` here gave every stored chunk a hidden class of its own (a map, its
 * descriptors and enum cache, about a kilobyte a task the store keeps), which the collector
 * then traces for as long as the task is kept.
 */
function withIndex(artifact: Artifact, index: number): Artifact {
  const copy: Record<string, unknown> = {};
  for (const key in artifact) {
    if (Object.hasOwn(artifact, key)) setOwnField(copy, key, (artifact as unknown as Record<string, unknown>)[key]);
  }
  copy.index = index;
  return copy as unknown as Artifact;
}

/**
 * Spec 6.5.3 lets a data part hold an array, and our schema takes one from clients; but what the
 * agent sends must also pass the published schema, which wants an object there, and the reference
 * Python client refuses anything else.
 */
function assertPublishedDataParts(parts: readonly Part[], where: string): void {
  const at = parts.findIndex((part) => part.type === 'data' && Array.isArray(part.data));
  if (at >= 0) {
    throw new InvalidUpdateError(
      `${where}: /parts/${at}/data is an array; the published schema and the reference clients take only an object (wrap it: { items: [...] })`,
    );
  }
}

/** A message or artifact whose fields another protocol version would read otherwise (message-fields.ts). */
function assertNoConflicts(issues: readonly ValidationIssue[], where: string): void {
  if (issues.length > 0) throw new InvalidUpdateError(`${where}: ${formatIssues(issues)}`);
}

/**
 * What a handler hands over, as a detached JSON copy (`jsonCopy`): what a client will receive,
 * and nothing the handler can still change. A value JSON cannot carry (cycles, BigInt, overly
 * deep nesting) is the handler's mistake: an InvalidUpdateError.
 */
export function copyFromHandler<T>(value: T): T {
  try {
    return jsonCopy(value);
  } catch (error) {
    throw new InvalidUpdateError(`not JSON-serializable: ${(error as Error).message}`);
  }
}

/** The handler's output as updates, whichever of the allowed forms it took. */
export async function updatesOf(output: unknown): Promise<AsyncIterable<TaskUpdate> | Iterable<TaskUpdate>> {
  return isAsyncIterable(output) ? output : asList(await (output as Promise<TaskUpdate | readonly TaskUpdate[] | undefined>));
}

/** What an async-function handler returned, as a list of updates. */
function asList(value: TaskUpdate | readonly TaskUpdate[] | undefined): readonly TaskUpdate[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value as TaskUpdate];
}

function isAsyncIterable(value: unknown): value is AsyncIterable<TaskUpdate> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';
}
