// The ids the newer versions (0.3, 1.0) show for what the kit keeps without one, the same on
// every version so that a task read over one and then the other names its messages and artifacts
// alike.
import { hash } from 'node:crypto';
import type { Message } from './model.js';

/** The `artifactId` of the artifact at `index`: unique within its task. */
export function artifactIdOf(index: number | undefined): string {
  return `artifact-${index ?? 0}`;
}

/**
 * The `messageId` of a message that came without one (from a 0.1.0 client or a handler): derived
 * from its task and its content, so that it is the same in a read, in history and in a stream,
 * and costs nothing to store. Two identical messages of one task share it.
 */
export function derivedMessageId(taskId: string, message: Message): string {
  // The one-shot hash: the same digest as a Hash object's, without making one (a third of the cost).
  return hash('sha256', `${taskId}\0${JSON.stringify(message)}`, 'base64url').slice(0, 22);
}
