// Router options from environment variables, as the sample agents are configured (and as any
// agent may be): push notifications, authentication and the shared task store.
import { apiKey, bearerJwt, type AuthOptions, type AuthStrategy } from './core/auth.js';
import type { PushNotificationOptions } from './push/push-notifier.js';
import type { SigningKeyInput } from './push/signer.js';
import type { TaskStore } from './store/task-store.js';
import type { Logger } from 'pino';
import { integerFromEnv, STORE_KINDS } from './env-values.js';

export { integerFromEnv } from './env-values.js';

/**
 * Push notification options from environment variables, as the sample agents read them:
 * - `A2A_PUSH_ALLOWLIST`: comma-separated host names and CIDRs webhooks may use although not
 *   public (plain http allowed for them), e.g. `localhost,127.0.0.1,10.0.0.0/8`;
 * - `A2A_PUSH_SIGNING_KEY`: the private signing key, a JWK (JSON) or a PEM, shared by every
 *   replica; unset → a key made at start-up;
 * - `A2A_PUSH_VERIFY_OWNERSHIP`: `true` to check webhook URLs with `?validationToken=` first.
 */
export function pushNotificationOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): PushNotificationOptions {
  const options: PushNotificationOptions = {};
  const allowlist = (env.A2A_PUSH_ALLOWLIST ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (allowlist.length > 0) options.allowlist = allowlist;
  const key = env.A2A_PUSH_SIGNING_KEY?.trim();
  if (key) options.signingKey = parseKey(key);
  if (env.A2A_PUSH_VERIFY_OWNERSHIP === 'true') options.verifyOwnership = true;
  return options;
}

function parseKey(text: string): SigningKeyInput {
  if (!text.startsWith('{')) return text.replace(/\\n/g, '\n'); // PEMs often arrive with escaped newlines
  try {
    return JSON.parse(text) as SigningKeyInput;
  } catch {
    throw new TypeError('A2A_PUSH_SIGNING_KEY starts like a JWK but is not valid JSON');
  }
}

/**
 * Authentication from environment variables; `undefined` (no authentication) when none is set:
 * - `A2A_API_KEYS`: `key=principal,key2=principal2` — API keys in `X-API-Key`
 *   (`A2A_API_KEY_HEADER` changes the header);
 * - `A2A_JWKS_URL`: bearer JWTs verified against this JWKS, with `A2A_JWT_ISSUER` and
 *   `A2A_JWT_AUDIENCE` required when set.
 */
export function authOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): AuthOptions | undefined {
  const strategies: AuthStrategy[] = [];
  const jwksUrl = env.A2A_JWKS_URL?.trim();
  if (jwksUrl) {
    strategies.push(
      bearerJwt({
        jwksUrl,
        ...(env.A2A_JWT_ISSUER ? { issuer: env.A2A_JWT_ISSUER } : {}),
        ...(env.A2A_JWT_AUDIENCE ? { audience: env.A2A_JWT_AUDIENCE } : {}),
      }),
    );
  }
  const keyList = env.A2A_API_KEYS?.trim();
  if (keyList) {
    const keys = new Map<string, string>();
    for (const entry of keyList
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const at = entry.lastIndexOf('=');
      if (at <= 0 || at === entry.length - 1) throw new TypeError('A2A_API_KEYS must look like key=principal,key2=principal2');
      const key = entry.slice(0, at);
      // A repeated key would silently keep only its last principal.
      if (keys.has(key)) throw new TypeError('A2A_API_KEYS: a key appears twice; give each principal its own key');
      keys.set(key, entry.slice(at + 1));
    }
    // apiKey refuses blank keys and principals and the words "undefined" and "null".
    strategies.push(apiKey({ keys, ...(env.A2A_API_KEY_HEADER ? { header: env.A2A_API_KEY_HEADER } : {}) }));
  }
  return strategies.length > 0 ? { strategies } : undefined;
}

/**
 * `METRICS_PORT`: the port the metrics are served on apart from the agent's (`serveAgent`'s
 * `metricsPort`); undefined when unset, and then they are served on the agent's port.
 */
export function metricsPortFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const port = integerFromEnv('METRICS_PORT', -1, env);
  if (port === -1) return undefined;
  if (port < 1 || port > 65535) throw new TypeError(`METRICS_PORT must be a port number (1 to 65535), got ${port}`);
  return port;
}

/**
 * `A2A_GRPC_PORT`: serve the agent over gRPC on that port too (`serveAgent`'s `grpc`), with
 * `A2A_GRPC_ADDRESS` the address its card lists when clients reach it by another (`host:port`);
 * undefined when unset: no gRPC.
 */
export function grpcOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): { port: number; advertisedAddress?: string } | undefined {
  const port = integerFromEnv('A2A_GRPC_PORT', -1, env);
  if (port === -1) return undefined;
  if (port > 65535) throw new TypeError(`A2A_GRPC_PORT must be a port number (0 to 65535), got ${port}`);
  const advertisedAddress = env.A2A_GRPC_ADDRESS?.trim();
  return advertisedAddress ? { port, advertisedAddress } : { port };
}

/**
 * What becomes of a turn whose process was lost, from the environment (docs/replicas.md):
 * - `A2A_ON_INTERRUPTED`: `fail` (default) or `resume` (the router's `onInterrupted`);
 * - `A2A_MAX_ATTEMPTS`: most runs of one turn with `resume` (the router's `maxAttempts`), default 3.
 */
export function interruptedTurnOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): {
  onInterrupted: 'fail' | 'resume';
  maxAttempts: number;
} {
  const value = env.A2A_ON_INTERRUPTED?.trim() || 'fail';
  if (value !== 'fail' && value !== 'resume')
    throw new TypeError(`A2A_ON_INTERRUPTED must be fail or resume, got ${JSON.stringify(value)}`);
  const maxAttempts = integerFromEnv('A2A_MAX_ATTEMPTS', 3, env);
  if (maxAttempts < 1) throw new TypeError(`A2A_MAX_ATTEMPTS must be at least 1, got ${maxAttempts}`);
  return { onInterrupted: value, maxAttempts };
}

/**
 * `A2A_MAX_TASK_BYTES`: the most one task may hold (the router's `maxTaskBytes`, default 16 MiB),
 * for an operator who sizes it to the agent's memory or database; `{}` when unset, so the
 * router's default applies.
 */
export function taskLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): { maxTaskBytes?: number } {
  const maxTaskBytes = integerFromEnv('A2A_MAX_TASK_BYTES', -1, env);
  if (maxTaskBytes === -1) return {};
  if (maxTaskBytes < 1024) throw new TypeError(`A2A_MAX_TASK_BYTES must be at least 1024, got ${maxTaskBytes}`);
  return { maxTaskBytes };
}

/**
 * What this replica does, from the environment (docs/replicas.md, "Front ends and workers"):
 * - `A2A_ROLE`: `all` (default), `front-end` or `worker` (the router's `role`);
 * - `A2A_MAX_CONCURRENT_TURNS`: most turns a worker runs at once (the router's `maxConcurrentTurns`), default 32.
 */
export function roleOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): {
  role: 'all' | 'front-end' | 'worker';
  maxConcurrentTurns: number;
} {
  const role = env.A2A_ROLE?.trim() || 'all';
  if (role !== 'all' && role !== 'front-end' && role !== 'worker')
    throw new TypeError(`A2A_ROLE must be all, front-end or worker, got ${JSON.stringify(role)}`);
  const maxConcurrentTurns = integerFromEnv('A2A_MAX_CONCURRENT_TURNS', 32, env);
  if (maxConcurrentTurns < 1) throw new TypeError(`A2A_MAX_CONCURRENT_TURNS must be at least 1, got ${maxConcurrentTurns}`);
  return { role, maxConcurrentTurns };
}

/**
 * What the samples' listening line says of their authentication: the schemes, or plainly that
 * the agent is open to anyone.
 */
export function describeAuthentication(auth: AuthOptions | undefined): string[] | string {
  return auth ? auth.strategies.map((strategy) => strategy.scheme) : 'none (open to every client)';
}

/** Who an agent is, for the defaults of its shared store: as the samples' `agent` line names it. */
export interface AgentIdentity {
  /** e.g. `echo-agent`; its PostgreSQL schema unless `A2A_POSTGRES_SCHEMA` is set (`-` becomes `_`). */
  readonly name: string;
  /** Its Redis key prefix unless `A2A_REDIS_PREFIX` is set, e.g. `a2a:echo:`. */
  readonly redisPrefix: string;
}

/** The router's options {@link routerOptionsFromEnv} reads. */
export interface RouterOptionsFromEnv {
  /** Undefined: the router's own in-memory store. */
  store: TaskStore | undefined;
  auth: AuthOptions | undefined;
  pushNotifications: PushNotificationOptions;
  onInterrupted: 'fail' | 'resume';
  maxAttempts: number;
  maxTaskBytes?: number;
  role: 'all' | 'front-end' | 'worker';
  maxConcurrentTurns: number;
}

/**
 * Every router option the sample agents take from the environment, checked at once, for
 * `a2aRouter(handler, { ...(await routerOptionsFromEnv(agent)), ...own })`:
 * - the task store: `A2A_STORE` (`memory`, `redis` or `postgres`; unset: Redis when
 *   `A2A_REDIS_URL` is set, else memory) with the variables of `taskStoreFromEnv`
 *   (a2a-express/redis) or `postgresStoreFromEnv` (a2a-express/postgres);
 * - authentication ({@link authOptionsFromEnv}) and push notifications
 *   ({@link pushNotificationOptionsFromEnv});
 * - `A2A_ON_INTERRUPTED`, `A2A_MAX_ATTEMPTS` ({@link interruptedTurnOptionsFromEnv});
 * - `A2A_MAX_TASK_BYTES` ({@link taskLimitsFromEnv});
 * - `A2A_ROLE`, `A2A_MAX_CONCURRENT_TURNS` ({@link roleOptionsFromEnv}).
 * Async because ioredis and pg (optional peer dependencies) are loaded only when the environment
 * names their store. A bad value is a TypeError naming the variable and what it takes; the store
 * is made last, so that no connection is opened when another variable is refused.
 */
export async function routerOptionsFromEnv(agent: AgentIdentity, env: NodeJS.ProcessEnv = process.env): Promise<RouterOptionsFromEnv> {
  const options = {
    auth: authOptionsFromEnv(env),
    pushNotifications: pushNotificationOptionsFromEnv(env),
    ...interruptedTurnOptionsFromEnv(env),
    ...taskLimitsFromEnv(env),
    ...roleOptionsFromEnv(env),
  };
  return { store: await taskStoreOfEnv(agent, env), ...options };
}

async function taskStoreOfEnv(agent: AgentIdentity, env: NodeJS.ProcessEnv): Promise<TaskStore | undefined> {
  const kind = env.A2A_STORE?.trim() || (env.A2A_REDIS_URL?.trim() ? 'redis' : 'memory');
  if (!STORE_KINDS.includes(kind)) throw new TypeError(`A2A_STORE must be one of ${STORE_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  if (kind === 'postgres') return (await import('./postgres.js')).postgresStoreFromEnv(agent.name.replace(/\W/g, '_'), env);
  if (kind === 'redis') return (await import('./redis.js')).taskStoreFromEnv(agent.redisPrefix, env);
  return undefined;
}

/** The `serveAgent` options {@link serveOptionsFromEnv} reads. */
export interface ServeOptionsFromEnv {
  name: string;
  port: number;
  host: string;
  metricsPort: number | undefined;
  grpc: { port: number; advertisedAddress?: string } | undefined;
  shutdownGraceMs: number;
}

/**
 * The `serveAgent` options the sample agents take from the environment, for
 * `serveAgent(app, { ...serveOptionsFromEnv(agent), logger, router, store })`:
 * - `PORT`: default `agent.port`; `HOST`: default `127.0.0.1`;
 * - `METRICS_PORT` ({@link metricsPortFromEnv}); `A2A_GRPC_PORT`, `A2A_GRPC_ADDRESS`
 *   ({@link grpcOptionsFromEnv});
 * - `A2A_SHUTDOWN_GRACE_MS`: on SIGTERM, how long running turns get before they are failed or
 *   handed over (`shutdownGraceMs`), default 10,000.
 */
export function serveOptionsFromEnv(
  agent: { readonly name: string; readonly port: number },
  env: NodeJS.ProcessEnv = process.env,
): ServeOptionsFromEnv {
  const port = integerFromEnv('PORT', agent.port, env);
  if (port > 65535) throw new TypeError(`PORT must be a port number (0 to 65535), got ${port}`);
  return {
    name: agent.name,
    port,
    host: env.HOST?.trim() || '127.0.0.1',
    metricsPort: metricsPortFromEnv(env),
    grpc: grpcOptionsFromEnv(env),
    shutdownGraceMs: integerFromEnv('A2A_SHUTDOWN_GRACE_MS', 10_000, env),
  };
}

/**
 * Ends a sample's start-up that failed before it listened: one fatal line that says why (a bad
 * variable's error names it and what it takes: a stack would only bury that), the stack at debug
 * level for the rare failure that is the code's, and exit code 1.
 */
export function exitOnBadConfiguration(logger: Logger, name: string, error: unknown): never {
  logger.debug({ err: error }, `${name}: where start-up failed`);
  logger.fatal(`${name}: bad configuration: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
