// a2a-express/redis: the task store that replicas of one agent share. A subpath of its own so
// that ioredis (an optional peer dependency) is loaded only by the apps that use Redis.
import { integerFromEnv } from './env-values.js';
import { RedisTaskStore } from './store/redis.js';

export { RedisTaskStore, type RedisTaskStoreOptions } from './store/redis.js';

/**
 * The task store from environment variables: a {@link RedisTaskStore} when `A2A_REDIS_URL` is
 * set (replicas of one agent then share their tasks), `undefined` (the router's in-memory
 * store) otherwise.
 * - `A2A_REDIS_PREFIX`: key prefix, the same for every replica of one agent; default
 *   `defaultPrefix`;
 * - `A2A_REDIS_LEASE_MS`: lease of a running task (see {@link RedisTaskStore}); default 15,000.
 */
export function taskStoreFromEnv(defaultPrefix: string, env: NodeJS.ProcessEnv = process.env): RedisTaskStore | undefined {
  // A2A_STORE names another store: Redis's URL is then not a reason to use it.
  const kind = env.A2A_STORE?.trim();
  if (kind && kind !== 'redis') return undefined;
  const url = env.A2A_REDIS_URL?.trim();
  if (!url) {
    if (kind === 'redis') throw new TypeError('A2A_STORE=redis needs A2A_REDIS_URL (redis://host:6379)');
    return undefined;
  }
  if (!/^rediss?:\/\//.test(url)) throw new TypeError(`A2A_REDIS_URL must be a redis:// or rediss:// URL, got ${JSON.stringify(url)}`);
  return new RedisTaskStore({
    url,
    prefix: env.A2A_REDIS_PREFIX?.trim() || defaultPrefix,
    leaseMs: integerFromEnv('A2A_REDIS_LEASE_MS', 15_000, env),
  });
}
