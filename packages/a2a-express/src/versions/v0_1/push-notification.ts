import {
  A2AError,
  validateTaskIdParams,
  validateTaskPushNotificationConfig,
  type PushNotificationConfig,
  type TaskIdParams,
  type TaskPushNotificationConfig,
} from 'a2a-types';
import { withSecretsMasked } from '../../push/push-config.js';
import type { StoredPushConfig } from '../../store/records.js';
import type { UnaryMethod } from '../../core/method.js';

// With push notifications off, both methods answer -32003 before looking at their params
// (`requires`), and the card says `pushNotifications: false`.

/**
 * The config as `get` returns it, secrets masked. One set over 0.3 is shown in 0.1.0's fields
 * only (its `id` and mark are the 0.3 binding's).
 */
function maskSecrets(stored: StoredPushConfig | null | undefined): PushNotificationConfig | null {
  if (!stored) return null;
  const { id: _id, protocol: _protocol, ...fields01 } = stored;
  return withSecretsMasked(stored.protocol === '0.3' ? fields01 : stored);
}

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
  async run({ id, pushNotificationConfig }, { service, principal }) {
    const record = await service.setPushNotification(id, pushNotificationConfig, principal);
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
  async run({ id }, { service, principal }) {
    const stored = maskSecrets((await service.readTask(id, principal)).pushNotification);
    if (!stored) throw A2AError.pushNotificationConfigNotFound(id);
    return { id, pushNotificationConfig: stored };
  },
};
