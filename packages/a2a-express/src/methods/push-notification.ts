import {
  A2AError,
  validateTaskIdParams,
  validateTaskPushNotificationConfig,
  type PushNotificationConfig,
  type TaskIdParams,
  type TaskPushNotificationConfig,
} from 'a2a-types';
import { maskSecrets } from '../push/push-notifier.js';
import { assertOwner } from '../task-engine.js';
import { readOwnTask, type MethodEnv, type UnaryMethod } from './method.js';

// With push notifications off, both methods answer -32003 before looking at their params
// (`requires`), and the card says `pushNotifications: false`.

/**
 * tasks/pushNotification/set [7.5]: checks the URL (SSRF guard, optional ownership check) and
 * stores the config on the task; `pushNotificationConfig: null` removes it. Answers with the
 * config as stored, its token and credentials masked, or `null` once it is removed: the published
 * schema allows a null result but no null config in it.
 */
export const pushNotificationSet: UnaryMethod<TaskPushNotificationConfig> = {
  kind: 'unary',
  requires: 'pushNotifications',
  validateParams: validateTaskPushNotificationConfig,
  async run({ id, pushNotificationConfig }, { env, principal }) {
    // Unknown (or someone else's) tasks are refused before any request is made for their URL.
    await readOwnTask(env, id, principal);
    await acceptPushConfig(env, pushNotificationConfig);
    const { record } = await env.engine.commit(id, (current) => {
      if (!current) throw A2AError.taskNotFound(id);
      assertOwner(current, principal);
      return { record: { ...current, pushNotification: pushNotificationConfig }, events: [] };
    });
    const stored = maskSecrets(record.pushNotification);
    return stored ? { id, pushNotificationConfig: stored } : null;
  },
};

/**
 * tasks/pushNotification/get [7.6]: the task's config, token and credentials masked. A task with
 * none gets -32001 "Push notification config not found": the spec's `pushNotificationConfig: null`
 * fails the published schema, and the reference Python client refuses the whole answer.
 */
export const pushNotificationGet: UnaryMethod<TaskIdParams> = {
  kind: 'unary',
  requires: 'pushNotifications',
  validateParams: validateTaskIdParams,
  async run({ id }, { env, principal }) {
    const record = await readOwnTask(env, id, principal);
    const stored = maskSecrets(record.pushNotification);
    if (!stored) throw A2AError.pushNotificationConfigNotFound(id);
    return { id, pushNotificationConfig: stored };
  },
};

/**
 * A push config a client sends (`set`, or with a message) must pass the URL checks before it
 * is stored. Sent to a server without push notifications it would be silently lost: refused
 * with -32003 instead.
 */
export async function acceptPushConfig(env: MethodEnv, config: PushNotificationConfig | null | undefined): Promise<void> {
  if (!config) return;
  if (!env.push) throw A2AError.pushNotificationNotSupported();
  await env.push.accept(config);
}
