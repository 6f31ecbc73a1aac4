// The kit's id rules, the same for every id a client or a handler gives (task, context, message,
// push config, referenced task) and checked before anything is kept: the transports check every
// id of a call's params, and a store that keys by task id checks that one again itself.
import { A2AError, type ValidationIssue } from 'a2a-types/model';

/**
 * The longest id the kit accepts, in UTF-16 code units: task, context (session), message, push
 * config and referenced task ids alike. Ids are repeated in every message and event of the newer
 * versions and are keys in Redis; real ones (UUIDs, ULIDs, composite keys) are far shorter.
 */
export const MAX_ID_LENGTH = 1024;

/**
 * What is wrong with an id at `path`, as -32602 issues: longer than {@link MAX_ID_LENGTH}, or not
 * well-formed Unicode. Task ids are keys: in Redis, of UTF-8 bytes, where every lone surrogate
 * (`"\ud800"`, `"\udbff"`) becomes the same U+FFFD, so three different ids would be one task.
 */
export function idIssues(id: string, path: string): ValidationIssue[] {
  if (id.length > MAX_ID_LENGTH) {
    return [
      { path, message: `must NOT have more than ${MAX_ID_LENGTH} characters`, keyword: 'maxLength', params: { limit: MAX_ID_LENGTH } },
    ];
  }
  if (/\p{Cs}/u.test(id))
    return [{ path, message: 'must be well-formed Unicode (it holds a lone surrogate)', keyword: 'wellFormed', params: {} }];
  return [];
}

/** Refuses a task id with -32602 (see {@link idIssues}): by the router for every store, and by the Redis store itself. */
export function checkTaskId(taskId: string): void {
  const issues = idIssues(taskId, '/id');
  if (issues.length > 0) throw A2AError.invalidParams(issues);
}
