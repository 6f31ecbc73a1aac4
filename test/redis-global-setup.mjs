// Makes sure the Redis tests have a Redis: the one at REDIS_URL or 127.0.0.1:6379 when it
// answers, else a redis-server of this run's own on a free port (when one is installed). When
// neither works, the Redis tests fail with an explanation (see requireRedis); they never skip.
import { redisAnswers, redisUrl, startOwnRedis } from 'a2a-testing';

export default async function redisGlobalSetup() {
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
