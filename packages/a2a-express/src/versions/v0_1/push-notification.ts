import {
  A2AError,
  validateTaskIdParams,
  validateTaskPushNotificationConfig,
  type PushNotificationConfig,
  type TaskIdParams,
  type TaskPushNotificationConfig,
} from 'a2a-types';
import { withSecretsMasked } from '../../push/push-config.js';
import type { StoredPushConfig } from '../../core/model.js';
import type { TaskRecord } from '../../store/records.js';
import type { UnaryMethod } from '../../core/method.js';
import { storedConfig01 } from './mapping.js';

// With push notifications off, both methods answer -32003 before looking at their params
// (`requires`), and the card says `pushNotifications: false`.

/**
 * The config 0.1.0 addresses. A task has one in 0.1.0: of its several, the one whose id is the
 * task's (the config 0.1.0 sets, and 0.3 sets without an id), else its oldest, so that a config
 * set over 0.3 under another id is still seen. `set` replaces that config, `null` removes it,
 * `get` shows it.
 */
function configOf01(record: TaskRecord): StoredPushConfig | undefined {
  const configs = record.pushConfigs ?? [];
  return configs.find((config) => config.id === record.task.id) ?? configs[0];
}

/** The config in 0.1.0's fields (the id and version are the kit's), secrets masked. */
function shown01(stored: StoredPushConfig): PushNotificationConfig {
  const { id: _id, protocol: _protocol, ...fields01 } = stored;
  return withSecretsMasked(fields01);
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
    const addressed = configOf01(await service.readTask(id, principal));
    if (!pushNotificationConfig) {
      if (addressed) await service.deletePushConfig(id, addressed.id, principal);
      return null;
    }
    const config = storedConfig01(pushNotificationConfig, addressed?.id ?? id);
    await service.setPushConfig(id, config, principal);
    return { id, pushNotificationConfig: shown01(config) };
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
    const stored = configOf01(await service.readTask(id, principal));
    if (!stored) throw A2AError.pushNotificationConfigNotFound(id);
    return { id, pushNotificationConfig: shown01(stored) };
  },
};
