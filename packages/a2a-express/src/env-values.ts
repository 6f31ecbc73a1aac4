// What the environment readers share, apart from env.ts: redis.ts and postgres.ts read their
// variables with it, and env.ts loads them (a cycle otherwise).

/** A non-negative integer from the environment, or the fallback when unset; a TypeError otherwise. */
export function integerFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return value;
}

/** The stores `A2A_STORE` may name. */
export const STORE_KINDS: readonly string[] = ['memory', 'redis', 'postgres'];
