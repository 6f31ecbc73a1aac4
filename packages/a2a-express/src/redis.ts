// a2a-express/redis: the task store that replicas of one agent share. A subpath of its own so
// that ioredis (an optional peer dependency) is loaded only by the apps that use Redis.
import { integerFromEnv } from './env.js';
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
  const url = env.A2A_REDIS_URL?.trim();
  if (!url) return undefined;
  if (!/^rediss?:\/\//.test(url)) throw new TypeError(`A2A_REDIS_URL must be a redis:// or rediss:// URL, got ${JSON.stringify(url)}`);
  return new RedisTaskStore({
    url,
    prefix: env.A2A_REDIS_PREFIX?.trim() || defaultPrefix,
    leaseMs: integerFromEnv('A2A_REDIS_LEASE_MS', 15_000, env),
  });
}
