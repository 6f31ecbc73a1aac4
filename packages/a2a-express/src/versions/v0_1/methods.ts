import type { A2AMethod } from 'a2a-types';
import { cancel } from './cancel.js';
import { get } from './get.js';
import type { Method } from '../../core/method.js';
import { pushNotificationGet, pushNotificationSet } from './push-notification.js';
import { resubscribe } from './resubscribe.js';
import { sendSubscribe } from './send-subscribe.js';
import { send } from './send.js';

/** Every A2A 0.1.0 method, by name. */
export const methods: Readonly<Record<A2AMethod, Method>> = {
  'tasks/send': send,
  'tasks/sendSubscribe': sendSubscribe,
  'tasks/get': get,
  'tasks/cancel': cancel,
  'tasks/pushNotification/set': pushNotificationSet,
  'tasks/pushNotification/get': pushNotificationGet,
  'tasks/resubscribe': resubscribe,
};

export type { Method, MethodCall } from '../../core/method.js';
