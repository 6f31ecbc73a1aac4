// a2a-express/postgres: the task store on PostgreSQL. A subpath of its own so that pg (an optional
// peer dependency) is loaded only by the apps that keep their tasks there.
import { integerFromEnv, STORE_KINDS } from './env-values.js';
import { PostgresTaskStore } from './store/postgres.js';
import { PushConfigSeal } from './store/sealed-push-configs.js';

export { migratePostgres, PostgresTaskStore, type PostgresTaskStoreOptions } from './store/postgres.js';
export type { PushConfigKey } from './store/sealed-push-configs.js';

/**
 * The PostgreSQL task store from environment variables, when `A2A_STORE=postgres`; `undefined`
 * otherwise (the samples then ask `taskStoreFromEnv` of a2a-express/redis, and stay in memory
 * without `A2A_REDIS_URL`).
 * - `DATABASE_URL`: where the database is (`postgres://user:password@host:5432/database`);
 * - `A2A_POSTGRES_SCHEMA`: the schema of the agent's tables; default `defaultSchema`;
 * - `A2A_POSTGRES_LEASE_MS`: lease of a running task (see {@link PostgresTaskStore}); default 15,000;
 * - `A2A_PUSH_CONFIG_KEY`: seals push configs at rest: a key of 32 bytes in base64 or hex
 *   (`openssl rand -base64 32`), or several separated by commas, the first sealing (rotation).
 * The store migrates its schema when first used.
 */
export function postgresStoreFromEnv(defaultSchema: string, env: NodeJS.ProcessEnv = process.env): PostgresTaskStore | undefined {
  const kind = env.A2A_STORE?.trim();
  if (kind && !STORE_KINDS.includes(kind))
    throw new TypeError(`A2A_STORE must be one of ${STORE_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  if (kind !== 'postgres') return undefined;
  const url = env.DATABASE_URL?.trim();
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    throw new TypeError(`A2A_STORE=postgres needs DATABASE_URL, a postgres:// URL, got ${JSON.stringify(url ?? '')}`);
  }
  return new PostgresTaskStore({
    connectionString: url,
    schema: env.A2A_POSTGRES_SCHEMA?.trim() || defaultSchema,
    leaseMs: integerFromEnv('A2A_POSTGRES_LEASE_MS', 15_000, env),
    pushConfigKey: pushConfigKeysFromEnv(env.A2A_PUSH_CONFIG_KEY),
  });
}

/** The keys of `A2A_PUSH_CONFIG_KEY`, checked here so that a bad one is refused with the variable named. */
function pushConfigKeysFromEnv(value: string | undefined): string[] | undefined {
  const keys = value
    ?.split(',')
    .map((key) => key.trim())
    .filter((key) => key !== '');
  if (!keys?.length) return undefined;
  try {
    new PushConfigSeal(keys);
  } catch (error) {
    throw new TypeError(`A2A_PUSH_CONFIG_KEY: ${(error as Error).message}`);
  }
  return keys;
}
