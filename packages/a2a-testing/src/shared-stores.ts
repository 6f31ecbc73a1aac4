// The two stores replicas share, Redis and PostgreSQL, as the replica tests open them: fresh data
// for each (a key prefix or a schema no other test uses), stores of their own on it, the
// environment that gives a replica process the same data, and one clean-up that closes the stores
// before it deletes the data. The store classes are a2a-express's, which this package does not
// depend on (a2a-express's tests depend on it): the tests say how a store is made.
import { dropSchema, postgresUrl, requirePostgres, uniqueSchema } from './postgres.js';
import { deleteKeys, redisUrl, requireRedis, uniquePrefix } from './redis.js';

/** How a test makes a store on the data: `new RedisTaskStore(options)`, `new PostgresTaskStore(options)`. */
export interface SharedStoreMakers<S> {
  redis(options: { url: string; prefix: string; leaseMs?: number }): S;
  postgres(options: { connectionString: string; schema: string; leaseMs?: number }): S;
}

/** Fresh data on one of the shared stores. */
export interface SharedStoreData<S> {
  readonly name: 'Redis' | 'PostgreSQL';
  /** Where the server is. */
  readonly url: string;
  /** The data's key prefix (Redis) or schema (PostgreSQL). */
  readonly namespace: string;
  /** The same data for an agent process (and its lease, when one was given), as the sample agents read it. */
  readonly env: Record<string, string>;
  /** A store of its own (its own connections) on the data; `cleanup` closes it. */
  make(): S;
  /** Closes the stores `make` made, then deletes the data; once. */
  cleanup(): Promise<void>;
}

export interface SharedStoreKind<S> {
  readonly name: 'Redis' | 'PostgreSQL';
  /** Fresh data; fails (never skips) when the server cannot be reached. */
  open(): Promise<SharedStoreData<S>>;
}

export interface SharedStores<S> {
  /** Redis, then PostgreSQL: for `describe.each(shared.kinds)('... on $name', ...)`. */
  readonly kinds: readonly SharedStoreKind<S>[];
  /** Cleans up every data opened and not cleaned up yet (close what uses the stores first). */
  cleanup(): Promise<void>;
}

/**
 * The shared stores a test file runs on. `name` names the data (in its prefix and schema);
 * `leaseMs`, when given, goes to every store made and into `env`; `make` makes the stores (the
 * tests that only start agent processes with `env` need none).
 */
export function sharedStores<S extends { close(): Promise<unknown> } = never>(
  name: string,
  options: { leaseMs?: number; make?: SharedStoreMakers<S> } = {},
): SharedStores<S> {
  const { leaseMs } = options;
  const lease = leaseMs === undefined ? {} : { leaseMs };
  const opened: SharedStoreData<S>[] = [];
  const maker = (kind: keyof SharedStoreMakers<S>): SharedStoreMakers<S> => {
    if (!options.make) throw new Error(`sharedStores('${name}'): no way to make a store was given (options.make.${kind})`);
    return options.make;
  };
  const data = (fields: Omit<SharedStoreData<S>, 'make' | 'cleanup'>, make: () => S, remove: () => Promise<void>): SharedStoreData<S> => {
    const stores: S[] = [];
    let cleaned: Promise<void> | undefined;
    const made: SharedStoreData<S> = {
      ...fields,
      make() {
        const store = make();
        stores.push(store);
        return store;
      },
      cleanup() {
        cleaned ??= Promise.all(stores.map((store) => store.close())).then(remove);
        return cleaned;
      },
    };
    opened.push(made);
    return made;
  };
  return {
    kinds: [
      {
        name: 'Redis',
        async open() {
          const url = await requireRedis(redisUrl());
          const prefix = uniquePrefix(name);
          return data(
            {
              name: 'Redis',
              url,
              namespace: prefix,
              env: { A2A_REDIS_URL: url, A2A_REDIS_PREFIX: prefix, ...(leaseMs !== undefined && { A2A_REDIS_LEASE_MS: String(leaseMs) }) },
            },
            () => maker('redis').redis({ url, prefix, ...lease }),
            () => deleteKeys(url, prefix),
          );
        },
      },
      {
        name: 'PostgreSQL',
        async open() {
          const url = await requirePostgres(postgresUrl());
          const schema = uniqueSchema(name);
          return data(
            {
              name: 'PostgreSQL',
              url,
              namespace: schema,
              env: {
                A2A_STORE: 'postgres',
                DATABASE_URL: url,
                A2A_POSTGRES_SCHEMA: schema,
                ...(leaseMs !== undefined && { A2A_POSTGRES_LEASE_MS: String(leaseMs) }),
              },
            },
            () => maker('postgres').postgres({ connectionString: url, schema, ...lease }),
            () => dropSchema(url, schema),
          );
        },
      },
    ],
    async cleanup() {
      for (const each of opened) await each.cleanup();
    },
  };
}
