// The TaskStore contract (src/store/task-store.ts), held against both built-in stores with the
// suite the package exports for anyone's store (a2a-express/testing): the same tests, the same
// expectations, except where the interface says stores may differ (bounds). The suite running
// under another test runner, and catching stores that break the contract, is in
// store-contract-suite.test.ts.
import { deleteKeys, redisUrl, requireRedis, uniquePrefix } from 'a2a-testing';
import { RedisTaskStore } from '../src/redis.js';
import { InMemoryTaskStore } from '../src/store/index.js';
import { storeContract } from '../src/testing.js';

storeContract({
  name: 'InMemoryTaskStore',
  create: (bounds) => new InMemoryTaskStore(bounds),
  createWithTwoSlots: () => new InMemoryTaskStore({ maxTasks: 2 }),
});

const url = redisUrl();
let prefix: string | undefined;
storeContract({
  name: 'RedisTaskStore',
  async create(bounds) {
    await requireRedis(url);
    prefix = uniquePrefix('contract');
    return new RedisTaskStore({ url, prefix, ...bounds });
  },
  peer: (store) => new RedisTaskStore({ url, prefix: (store as RedisTaskStore).prefix }),
  async cleanup() {
    if (prefix) await deleteKeys(url, prefix);
  },
});
