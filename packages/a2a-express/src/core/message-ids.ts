// Message and artifact ids. A message has its own id from the moment the kit has it: a client's
// message without one (0.1.0) and every message an agent makes are given a random one before they
// are kept, so two identical messages of one task are two messages to a client that de-duplicates
// by `messageId` (as 1.0 invites). What the previous release kept without one is shown with an
// id derived from it, the same on every version and in every read, as it was shown then.
import { hash, randomUUID } from 'node:crypto';
import type { Message } from './model.js';

/** The `artifactId` of the artifact at `index`: unique within its task. */
export function artifactIdOf(index: number | undefined): string {
  return `artifact-${index ?? 0}`;
}

/** `message` with an id of its own: its sender's, else a new random one (a copy; the sender's object is left as it is). */
export function withMessageId<M extends Message>(message: M): M {
  return message.messageId === undefined ? { ...message, messageId: randomUUID() } : message;
}

/**
 * The `messageId` shown for a message kept without one, by a release before messages were given
 * theirs: derived from its task and its content, so that it is the same in every read, in history
 * and in a stream, and the same as that release showed. Never used for a message kept now.
 */
export function derivedMessageId(taskId: string, message: Message): string {
  // The one-shot hash: the same digest as a Hash object's, without making one (a third of the cost).
  return hash('sha256', `${taskId}\0${JSON.stringify(message)}`, 'base64url').slice(0, 22);
}
