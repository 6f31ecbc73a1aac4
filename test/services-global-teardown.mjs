// Stops the servers the global setup started, if it started any.
export default async function servicesGlobalTeardown() {
  await Promise.all([globalThis.a2aOwnRedis?.stop(), globalThis.a2aOwnPostgres?.dispose()]);
}
