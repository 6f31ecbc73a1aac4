// The three stores a behaviour is checked on, each opened fresh for a test file (a Redis prefix, a
// PostgreSQL schema of its own), with what removes it pushed to the file's `closers`.
import { sharedStores } from 'a2a-testing';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';
import { InMemoryTaskStore, type TaskStore } from '../src/store/index.js';

export interface StoreToOpen {
  readonly name: string;
  open(): Promise<TaskStore>;
}

/** The in-memory, Redis and PostgreSQL stores; `name` names the prefix and schema of the shared ones. */
export function storesUnderTest(name: string, closers: (() => Promise<unknown>)[]): StoreToOpen[] {
  const { kinds } = sharedStores<TaskStore>(name, {
    make: { redis: (options) => new RedisTaskStore(options), postgres: (options) => new PostgresTaskStore(options) },
  });
  return [
    { name: 'InMemoryTaskStore', open: async () => new InMemoryTaskStore() },
    ...kinds.map((kind) => ({
      name: kind.name === 'Redis' ? 'RedisTaskStore' : 'PostgresTaskStore',
      async open() {
        const data = await kind.open();
        closers.push(() => data.cleanup());
        return data.make();
      },
    })),
  ];
}
