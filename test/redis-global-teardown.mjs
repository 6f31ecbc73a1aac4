// Stops the redis-server the global setup started, if it started one.
export default async function redisGlobalTeardown() {
  await globalThis.a2aOwnRedis?.stop();
}
