// The three stores a behaviour is checked on, each opened fresh for a test file (a Redis prefix, a
// PostgreSQL schema of its own), with what removes it pushed to the file's `closers`.
import { deleteKeys, dropSchema, postgresUrl, redisUrl, requirePostgres, requireRedis, uniquePrefix, uniqueSchema } from 'a2a-testing';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';
import { InMemoryTaskStore, type TaskStore } from '../src/store/index.js';

export interface StoreToOpen {
  readonly name: string;
  open(): Promise<TaskStore>;
}

/** The in-memory, Redis and PostgreSQL stores; `name` names the prefix and schema of the shared ones. */
export function storesUnderTest(name: string, closers: (() => Promise<unknown>)[]): StoreToOpen[] {
  const redis = redisUrl();
  const database = postgresUrl();
  return [
    { name: 'InMemoryTaskStore', open: async () => new InMemoryTaskStore() },
    {
      name: 'RedisTaskStore',
      async open() {
        await requireRedis(redis);
        const prefix = uniquePrefix(name);
        const store = new RedisTaskStore({ url: redis, prefix });
        closers.push(
          () => store.close(),
          () => deleteKeys(redis, prefix),
        );
        return store;
      },
    },
    {
      name: 'PostgresTaskStore',
      async open() {
        await requirePostgres(database);
        const schema = uniqueSchema(name);
        const store = new PostgresTaskStore({ connectionString: database, schema });
        closers.push(
          () => store.close(),
          () => dropSchema(database, schema),
        );
        return store;
      },
    },
  ];
}
