// The operations the core performs, in the form the `authorize` hook is shown them: 0.1.0's
// method names and params, which every version's call is put in (a method's `toOperation`), so
// that one rule means the same whichever version a call came over.
import type { TaskSendParams } from 'a2a-types';
import type { StoredPushConfig } from './model.js';

/** Starting or continuing a task with a message: `tasks/send`'s params, its push config with an id. */
export interface SendOperation extends Omit<TaskSendParams, 'pushNotification'> {
  pushNotification?: StoredPushConfig | null;
}
