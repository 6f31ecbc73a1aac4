// What every version shows of a stored push config: never its secrets.
import type { PushNotificationConfig } from 'a2a-types/model';

/** Shown instead of a stored token or credentials. */
const MASKED = '********';

/** A copy of the config with its token and credentials masked [7.6]: what any answer shows of it. */
export function withSecretsMasked<C extends PushNotificationConfig>(config: C): C {
  const masked = { ...config };
  if (config.token != null) masked.token = MASKED;
  if (config.authentication?.credentials != null) masked.authentication = { ...config.authentication, credentials: MASKED };
  return masked;
}
