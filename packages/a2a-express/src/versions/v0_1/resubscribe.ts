import { validateTaskQueryParams, type TaskQueryParams } from 'a2a-types';
import type { StreamingMethod } from '../../core/method.js';
import { openResubscription } from '../../core/resubscription.js';
import { eventTo01 } from './mapping.js';

/** tasks/resubscribe [7.7]: see {@link openResubscription}. */
export const resubscribe: StreamingMethod<TaskQueryParams> = {
  kind: 'streaming',
  requires: 'streaming',
  validateParams: validateTaskQueryParams,
  open: (params, call) => openResubscription(params.id, call, () => eventTo01),
};
