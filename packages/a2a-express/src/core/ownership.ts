// A task belongs to the principal that created it. Anyone else is told it does not exist
// (-32001), with no hint that it does. Every read and change of a task goes through here.
import { A2AError } from 'a2a-types/model';
import { ownerKey, type Principal } from './auth.js';
import { upgradeRecord, type TaskHead, type TaskRecord } from '../model/record.js';
import type { TaskStore } from '../store/task-store.js';
import { TENANT_SCHEME } from './tenants.js';

/** The owner a new task gets from the principal that creates it. */
export function ownerOf(principal: Principal | undefined): string | undefined {
  return principal ? ownerKey(principal) : undefined;
}

/**
 * Throws -32001 unless `principal` may see the task. A task without an owner (made without
 * authentication) is seen by every caller of the default tenant, and by no tenant's.
 */
export function assertOwner(record: TaskHead, principal: Principal | undefined): void {
  if (record.owner === undefined) {
    if (principal?.scheme === TENANT_SCHEME) throw A2AError.taskNotFound(record.task.id);
    return;
  }
  if (!principal || record.owner !== ownerKey(principal)) throw A2AError.taskNotFound(record.task.id);
}

/** The task, if it exists and the caller may see it; -32001 otherwise. */
export async function readOwnTask(store: TaskStore, taskId: string, principal: Principal | undefined): Promise<TaskRecord> {
  const stored = await store.get(taskId);
  if (!stored) throw A2AError.taskNotFound(taskId);
  // A store of the app's own may hand back records of the previous release.
  const record = upgradeRecord(stored);
  assertOwner(record, principal);
  return record;
}
