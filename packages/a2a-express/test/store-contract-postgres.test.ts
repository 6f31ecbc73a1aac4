// The TaskStore contract (a2a-express/testing) on the PostgreSQL store, on a real PostgreSQL (see
// test/services-global-setup.mjs): each test in a schema of its own, migrated by the store, and a
// second store on the same schema as the other process. Again with push configs sealed at rest: the
// records a sealing store hands out are the records it was given.
import { randomBytes } from 'node:crypto';
import { dropSchema, postgresUrl, requirePostgres, uniqueSchema } from 'a2a-testing';
import { PostgresTaskStore } from '../src/postgres.js';
import { storeContract } from '../src/testing.js';

const url = postgresUrl();
let schema: string | undefined;
for (const [name, pushConfigKey] of [
  ['PostgresTaskStore', undefined],
  ['PostgresTaskStore sealing push configs', randomBytes(32)],
] as const) {
  storeContract({
    name,
    async create(bounds) {
      await requirePostgres(url);
      schema = uniqueSchema('contract');
      return new PostgresTaskStore({ connectionString: url, schema, pushConfigKey, ...bounds });
    },
    peer: (store) => new PostgresTaskStore({ connectionString: url, schema: (store as PostgresTaskStore).schema, pushConfigKey }),
    async cleanup() {
      if (schema) await dropSchema(url, schema);
    },
  });
}
