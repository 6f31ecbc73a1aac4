// Makes sure the tests of the networked stores have their servers, and never skip for want of one:
// - Redis: the one at REDIS_URL or 127.0.0.1:6379 when it answers, else a redis-server of this
//   run's own on a free port (when one is installed);
// - PostgreSQL: the one at DATABASE_URL (or PGURL) or 127.0.0.1:5432 when it answers, else a
//   throwaway cluster of this run's own (Debian's postgresql binaries, when installed).
// When neither works, those tests fail with an explanation (requireRedis, requirePostgres).
import { postgresAnswers, postgresUrl, redisAnswers, redisUrl, startOwnPostgres, startOwnRedis } from 'a2a-testing';

export default async function servicesGlobalSetup() {
  await Promise.all([ensureRedis(), ensurePostgres()]);
}

async function ensureRedis() {
  if (await redisAnswers(redisUrl())) return;
  if (process.env.REDIS_URL) return;
  try {
    const own = await startOwnRedis();
    process.env.REDIS_URL = own.url;
    globalThis.a2aOwnRedis = own;
    console.log(`\nno Redis on 127.0.0.1:6379: started redis-server for the tests at ${own.url}`);
  } catch {
    // requireRedis in the Redis tests says what is missing.
  }
}

async function ensurePostgres() {
  if (await postgresAnswers(postgresUrl())) return;
  if (process.env.DATABASE_URL || process.env.PGURL) return;
  try {
    const own = await startOwnPostgres();
    process.env.DATABASE_URL = own.url;
    globalThis.a2aOwnPostgres = own;
    console.log(`\nno PostgreSQL on 127.0.0.1:5432: started a cluster for the tests at ${own.url}`);
  } catch (error) {
    // requirePostgres in the PostgreSQL tests says what is missing.
    console.log(`\nno PostgreSQL for the tests: ${error.message}`);
  }
}
