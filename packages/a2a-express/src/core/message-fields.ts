// The fields of a message that more than one protocol version reads. The kit keeps a message as
// it came, extras included, and shows it to clients of every version; a field that one version
// carries as an extra and another gives a meaning (a 0.1.0 part's `kind`, which 0.3 reads as the
// part's type; a 0.1.0 message's `referenceTaskIds`) must therefore mean the same to both, or the
// message is refused. Nothing is ever overridden or dropped on the way out.
import type { Message, ValidationIssue } from 'a2a-types/model';

/** The task a message belongs to, as the newer versions name it in every message. */
interface MessageOwner {
  readonly taskId: string;
  /** The task's session (0.3's `contextId`), when it is known. */
  readonly contextId: string | undefined;
}

/**
 * What is wrong with a message's fields that another version reads, as -32602 issues relative to
 * the message (empty when nothing is). The schema of the version it came in has checked the rest.
 */
export function messageFieldIssues(message: Message, owner: MessageOwner): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const fields = message as Message & Record<string, unknown>;
  const issue = (path: string, text: string, keyword: string, params: Record<string, unknown> = {}) =>
    issues.push({ path, message: text, keyword, params });
  if (fields.kind !== undefined && fields.kind !== 'message') {
    issue('/kind', 'must be "message" (it is how A2A 0.3 tells a message from a task)', 'const', { allowedValue: 'message' });
  }
  if (fields.messageId !== undefined && typeof fields.messageId !== 'string') {
    issue('/messageId', 'must be a string (the message id of A2A 0.3 and 1.0)', 'type', { type: 'string' });
  }
  if (fields.taskId !== undefined && fields.taskId !== owner.taskId) {
    issue('/taskId', `must be the id of the task it is sent to (${owner.taskId}) when present`, 'const', { allowedValue: owner.taskId });
  }
  if (fields.contextId !== undefined && owner.contextId !== undefined && fields.contextId !== owner.contextId) {
    issue('/contextId', `must be the context (session) of task ${owner.taskId} when present`, 'const', { allowedValue: owner.contextId });
  } else if (fields.contextId !== undefined && typeof fields.contextId !== 'string') {
    issue('/contextId', 'must be a string', 'type', { type: 'string' });
  }
  for (const key of ['referenceTaskIds', 'extensions'] as const) {
    const value = fields[key];
    if (value !== undefined && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
      issue(`/${key}`, 'must be an array of strings (as A2A 0.3 and 1.0 define it)', 'type', { type: 'array' });
    }
  }
  issues.push(...partFieldIssues(message.parts, '/parts'));
  return issues;
}

/**
 * A part names its type once: `type` in 0.1.0, `kind` in 0.3. A part that carried the other
 * version's name too would be one type to one client and another type to the other, so that name
 * (`kind` on a part in 0.1.0's form, `type` on one in 0.3's) is refused, whatever its value.
 */
export function partFieldIssues(parts: readonly object[], at: string, otherVersionsName: 'kind' | 'type' = 'kind'): ValidationIssue[] {
  const ownName = otherVersionsName === 'kind' ? 'type' : 'kind';
  const version = otherVersionsName === 'kind' ? 'A2A 0.3' : 'A2A 0.1.0';
  const issues: ValidationIssue[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (Object.hasOwn(parts[i]!, otherVersionsName)) {
      issues.push({
        path: `${at}/${i}/${otherVersionsName}`,
        message: `must not be present: it is the ${version} name of \`${ownName}\`, and a part names its type once`,
        keyword: 'not',
        params: {},
      });
    }
  }
  return issues;
}
