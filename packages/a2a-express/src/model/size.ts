// How much of a task counts toward `maxTaskBytes` and the store budgets: the length of the JSON
// that everything kept from a client or a handler takes on the wire. Everything counts — ids,
// metadata, properties beyond the schema's, every part — because everything is kept and sent
// back. Sizes are estimates, cheap enough for every chunk of a stream, and for any value at all
// (a hostile shape, a missing field, a wrong type) they are finite and never negative: a store
// adds and subtracts them for as long as it runs.
import type { Artifact, Message, Task } from './task.js';

/** Characters JSON.stringify writes as more than one: quotes, backslashes, controls, surrogates. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** The length of a string as JSON text, quotes and escapes included. */
export function stringSize(text: string): number {
  if (!ESCAPED.test(text)) return text.length + 2;
  let size = 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 || code === 0x5c) size += 2;
    else if (code < 0x20) size += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A well-formed pair is written as it is.
      size += 2;
      i++;
    } else if (code >= 0xd800 && code <= 0xdfff) size += 6;
    else size += 1;
  }
  return size;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * About the length of `JSON.stringify(value)`: exact for strings, booleans and null, close for
 * numbers, objects and arrays. Values JSON cannot carry count as nothing (in an array, as
 * `null`); the values counted here come from JSON or through a JSON-safe copy.
 */
export function jsonSize(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return stringSize(value);
    case 'number':
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object': {
      if (value === null) return 4;
      let size = 2;
      if (Array.isArray(value)) {
        for (const item of value)
          size += (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 4 : jsonSize(item)) + 1;
        return size;
      }
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const field = (value as Record<string, unknown>)[key];
        if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
        size += stringSize(key) + jsonSize(field) + 2;
      }
      return size;
    }
    default:
      return 0;
  }
}

/**
 * What one message of a task's history costs: the message, and what the newer versions add to
 * it on the wire for every message (its kind, a derived message id, and the task and context
 * ids, repeated in each). Counting those keeps an answer within a small multiple of the task's
 * size however many messages share one long id.
 */
export function historyEntrySize(task: Pick<Task, 'id' | 'contextId'>, message: Message): number {
  return jsonSize(message) + MESSAGE_WIRE_OVERHEAD + stringSize(task.id) + stringSize(task.contextId);
}

/** `"kind":"message","messageId":"<22>","taskId":,"contextId":` and separators. */
const MESSAGE_WIRE_OVERHEAD = 80;

/** What a task costs before any message: its ids, status and the record around them. */
export function taskBaseSize(task: Pick<Task, 'id' | 'contextId'>): number {
  return TASK_OVERHEAD + stringSize(task.id) + stringSize(task.contextId);
}

/** The task's envelope, its status and timestamp: what every task has whatever it holds. */
const TASK_OVERHEAD = 160;

/** What an artifact costs in a task, with the id the newer versions give it. */
export function artifactSize(artifact: Artifact): number {
  return jsonSize(artifact) + ARTIFACT_WIRE_OVERHEAD;
}

/** `"artifactId":"artifact-<index>"` and separators. */
const ARTIFACT_WIRE_OVERHEAD = 40;

/**
 * What an appended chunk adds to the artifact it extends: its parts and metadata, and a name or
 * description the artifact takes from it (see `appendedFields`).
 */
export function appendedSize(existing: Artifact, chunk: Artifact): number {
  let size = jsonSize(chunk.parts);
  if (chunk.metadata != null) size += jsonSize(chunk.metadata);
  if (existing.name == null && chunk.name != null) size += jsonSize(chunk.name) + 8;
  if (existing.description == null && chunk.description != null) size += jsonSize(chunk.description) + 15;
  return size;
}
