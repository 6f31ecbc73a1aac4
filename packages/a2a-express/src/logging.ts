import type { Logger } from 'pino';

const SECRET_KEYS = new Set(['token', 'credentials', 'authorization', 'password', 'secret', 'apikey', 'api_key', 'x-api-key', 'cookie']);
const MAX_DEPTH = 32;

/**
 * A copy of `value` safe to log: file `bytes` become their length, and values under secret
 * keys (tokens, credentials, authorization headers, API keys, cookies) become `[redacted]`.
 */
function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (SECRET_KEYS.has(key.toLowerCase()) && item != null) copy[key] = '[redacted]';
    else if (key === 'bytes' && typeof item === 'string') copy[key] = `[${item.length} base64 characters]`;
    else copy[key] = redactSecrets(item, depth + 1);
  }
  return copy;
}

// Objects that may hold messages, files, push tokens or headers, wherever they are logged.
const SERIALIZED_KEYS = [
  'message',
  'history',
  'task',
  'artifact',
  'artifacts',
  'parts',
  'params',
  'pushNotification',
  'pushNotificationConfig',
  'headers',
  'req',
];

/**
 * The router's logger: a child of the host's with A2A-aware redaction added, so secrets and
 * file bytes stay out of the logs whatever the host's own logger is configured to do.
 */
export function routerLogger(base: Logger): Logger {
  const serializers = Object.fromEntries(SERIALIZED_KEYS.map((key) => [key, redactSecrets]));
  return base.child({ component: 'a2a' }, { serializers });
}
