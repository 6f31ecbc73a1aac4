// Retries that never run a message twice (docs/idempotency.md). A send is recognized as a retry in
// two ways:
// - by its task: a message whose `messageId` the task's history holds already was taken by that
//   task, and starts no turn (the engine finds it in the same change that would start the turn,
//   so two copies sent at once start one turn between them);
// - by a claim, where the task cannot tell: a new task's id is made by the agent, so a retry of
//   the message that started it would start another; and an `Idempotency-Key` names a send
//   whatever its message's id. The first send claims its key (or its message id) in the store for
//   a window, with the task and the message id it used; a retry is given those, and then is found
//   by its task as above. A claim whose task was never made (its process died between the two) is
//   run by the retry, with the ids claimed.
import { A2AError } from 'a2a-types/model';
import type { TaskRecord } from '../model/record.js';
import type { Message } from '../model/task.js';
import { headerOf, type CallContext } from './call.js';
import { base64url, sha256 } from './sha256.js';

/** The request header (gRPC: metadata) a client names a send by, as the IETF draft and Stripe name it. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Longest Idempotency-Key taken: a UUID is 36; 255 is what Stripe takes. */
const MAX_KEY_CHARS = 255;

/** Thrown by the start of a turn whose message the task holds already: the task as it stands. */
export class MessageTaken {
  constructor(readonly record: TaskRecord) {}
}

/** Where the task's history holds the client's message `messageId`: its index, or -1. Newest first: a retry is of a recent message. */
export function indexOfMessage(record: Pick<TaskRecord, 'history'>, messageId: string): number {
  const { history } = record;
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i]!;
    if (message.messageId === messageId && message.role === 'user') return i;
  }
  return -1;
}

/**
 * The Idempotency-Key a call sends, undefined for none: its value, unquoted when sent as a
 * structured field's string (the IETF draft's form, `"8e03978e…"`). -32602 for a value that
 * cannot be one: empty, longer than 255 characters, or not printable ASCII.
 */
export function idempotencyKeyOf(context: Pick<CallContext, 'headers'>): string | undefined {
  const sent = headerOf(context, IDEMPOTENCY_KEY_HEADER);
  if (sent === undefined) return undefined;
  let key = sent.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (key === '' || key.length > MAX_KEY_CHARS || !/^[\x20-\x7e]+$/.test(key)) {
    throw A2AError.invalidParams([
      {
        path: '',
        message: `the Idempotency-Key header must be 1 to ${MAX_KEY_CHARS} printable ASCII characters`,
        keyword: 'idempotencyKey',
        params: { limit: MAX_KEY_CHARS },
      },
    ]);
  }
  return key;
}

/** What a claim is made by: a client's Idempotency-Key, or a new task's message id. */
export type ClaimedBy = 'key' | 'messageId';

/** Longest key a store is given as it is; a longer one is given as its digest. */
const MAX_PLAIN_KEY_CHARS = 256;

/**
 * The store's key of a claim: who (the owner: principal and tenant) claimed what, so that one
 * owner's key never meets another's. As JSON when short (a UUID's is about 100 characters), else
 * as a digest, so that a key has a bound whatever was sent: the digest (7 µs in JavaScript) is
 * not paid on every send.
 */
export function claimKeyOf(owner: string | undefined, by: ClaimedBy, value: string): string {
  const plain = JSON.stringify([owner ?? null, by, value]);
  return plain.length <= MAX_PLAIN_KEY_CHARS ? plain : `#${base64url(sha256(plain))}`;
}

/**
 * Whether a retry's message is the message its first try sent: the same content (role, parts,
 * metadata, references, extensions), keys in any order, whatever its `messageId`, context and
 * task ids (the task it took is found by them already).
 */
export function sameMessage(taken: Message, sent: Message): boolean {
  return canonical(contentOf(taken)) === canonical(contentOf(sent));
}

function contentOf(message: Message): unknown {
  const { role, parts, metadata, referenceTaskIds, extensions } = message;
  return { role, parts, metadata, referenceTaskIds, extensions };
}

/** JSON with every object's keys sorted, and absent what JSON leaves out. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonical(item))).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const fields = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
  return `{${fields.join(',')}}`;
}

/**
 * -32602 for a retry whose key (or message id) took another message: answering with the turn of
 * that message would tell the client its new message was run when it was not.
 */
export function takenByAnother(by: ClaimedBy, taskId: string): A2AError {
  const named = by === 'key' ? 'this Idempotency-Key' : 'this messageId';
  return A2AError.invalidParams([
    {
      path: by === 'key' ? '' : '/message/messageId',
      message: `${named} was sent before with another message (task ${taskId}); a retry sends the same message, a new message a new ${by === 'key' ? 'key' : 'messageId'}`,
      keyword: 'idempotency',
      params: { taskId },
    },
  ]);
}
