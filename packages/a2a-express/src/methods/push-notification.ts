import {
  A2AError,
  validateTaskIdParams,
  validateTaskPushNotificationConfig,
  type TaskIdParams,
  type TaskPushNotificationConfig,
} from 'a2a-types';
import type { UnaryMethod } from './method.js';

// Push notifications are not available yet: with the capability off, both methods answer -32003
// before looking at their params (the card says `pushNotifications: false`).
const notSupported = async (): Promise<never> => {
  throw A2AError.pushNotificationNotSupported();
};

/** tasks/pushNotification/set [7.5]. */
export const pushNotificationSet: UnaryMethod<TaskPushNotificationConfig> = {
  kind: 'unary',
  requires: 'pushNotifications',
  validateParams: validateTaskPushNotificationConfig,
  run: notSupported,
};

/** tasks/pushNotification/get [7.6]. */
export const pushNotificationGet: UnaryMethod<TaskIdParams> = {
  kind: 'unary',
  requires: 'pushNotifications',
  validateParams: validateTaskIdParams,
  run: notSupported,
};
