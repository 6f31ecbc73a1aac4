import type { PushNotificationOptions } from './push-notifier.js';
import type { SigningKeyInput } from './signer.js';

/**
 * Push notification options from environment variables, as the sample agents read them:
 * - `A2A_PUSH_ALLOWLIST`: comma-separated host names and CIDRs webhooks may use although not
 *   public (plain http allowed for them), e.g. `localhost,127.0.0.1,10.0.0.0/8`;
 * - `A2A_PUSH_SIGNING_KEY`: the private signing key, a JWK (JSON) or a PEM, shared by every
 *   replica; unset → a key made at start-up;
 * - `A2A_PUSH_VERIFY_OWNERSHIP`: `true` to check webhook URLs with `?validationToken=` first.
 */
export function pushNotificationOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): PushNotificationOptions {
  const options: PushNotificationOptions = {};
  const allowlist = (env.A2A_PUSH_ALLOWLIST ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (allowlist.length > 0) options.allowlist = allowlist;
  const key = env.A2A_PUSH_SIGNING_KEY?.trim();
  if (key) options.signingKey = parseKey(key);
  if (env.A2A_PUSH_VERIFY_OWNERSHIP === 'true') options.verifyOwnership = true;
  return options;
}

function parseKey(text: string): SigningKeyInput {
  if (!text.startsWith('{')) return text.replace(/\\n/g, '\n'); // PEMs often arrive with escaped newlines
  try {
    return JSON.parse(text) as SigningKeyInput;
  } catch {
    throw new TypeError('A2A_PUSH_SIGNING_KEY starts like a JWK but is not valid JSON');
  }
}
