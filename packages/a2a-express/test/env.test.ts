import { postgresUrl, redisUrl } from 'a2a-testing';
import { describeAuthentication, routerOptionsFromEnv, serveOptionsFromEnv, taskLimitsFromEnv } from '../src/env.js';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';

describe('A2A_MAX_TASK_BYTES', () => {
  test('unset leaves the router its default; a number of bytes becomes maxTaskBytes', () => {
    expect(taskLimitsFromEnv({})).toEqual({});
    expect(taskLimitsFromEnv({ A2A_MAX_TASK_BYTES: ' ' })).toEqual({});
    expect(taskLimitsFromEnv({ A2A_MAX_TASK_BYTES: '4194304' })).toEqual({ maxTaskBytes: 4 * 1024 * 1024 });
  });

  test('a value that is not a size a task could hold is refused at start, naming the variable', () => {
    expect(() => taskLimitsFromEnv({ A2A_MAX_TASK_BYTES: '16MB' })).toThrow(/A2A_MAX_TASK_BYTES must be a non-negative integer/);
    expect(() => taskLimitsFromEnv({ A2A_MAX_TASK_BYTES: '100' })).toThrow(/A2A_MAX_TASK_BYTES must be at least 1024, got 100/);
  });
});

describe('routerOptionsFromEnv: every router option the samples take from the environment', () => {
  const agent = { name: 'echo-agent', redisPrefix: 'a2a:echo:' };

  test('unset: the in-memory store, no auth, and the router defaults written out', async () => {
    expect(await routerOptionsFromEnv(agent, {})).toEqual({
      store: undefined,
      auth: undefined,
      pushNotifications: {},
      onInterrupted: 'fail',
      maxAttempts: 3,
      role: 'all',
      maxConcurrentTurns: 32,
    });
    expect((await routerOptionsFromEnv(agent, { A2A_STORE: 'memory', A2A_REDIS_URL: redisUrl() })).store).toBeUndefined();
  });

  test('each variable becomes its option', async () => {
    const options = await routerOptionsFromEnv(agent, {
      A2A_ON_INTERRUPTED: 'resume',
      A2A_MAX_ATTEMPTS: '5',
      A2A_MAX_TASK_BYTES: '2048',
      A2A_ROLE: 'front-end',
      A2A_MAX_CONCURRENT_TURNS: '4',
      A2A_API_KEYS: 'k1=alice',
      A2A_PUSH_ALLOWLIST: 'localhost',
      A2A_PUSH_VERIFY_OWNERSHIP: 'true',
    });
    expect(options).toMatchObject({
      onInterrupted: 'resume',
      maxAttempts: 5,
      maxTaskBytes: 2048,
      role: 'front-end',
      maxConcurrentTurns: 4,
      pushNotifications: { allowlist: ['localhost'], verifyOwnership: true },
    });
    expect(options.auth?.strategies.map((strategy) => strategy.scheme)).toEqual(['ApiKey']);
    expect((await routerOptionsFromEnv(agent, { A2A_ROLE: 'worker' })).role).toBe('worker');
  });

  test('the store: Redis when A2A_REDIS_URL is set, PostgreSQL with A2A_STORE=postgres, under the agent’s own prefix and schema', async () => {
    const redis = (await routerOptionsFromEnv(agent, { A2A_REDIS_URL: redisUrl() })).store as RedisTaskStore;
    const named = (await routerOptionsFromEnv(agent, { A2A_STORE: 'redis', A2A_REDIS_URL: redisUrl(), A2A_REDIS_PREFIX: 'a2a:mine:' }))
      .store as RedisTaskStore;
    const postgres = (await routerOptionsFromEnv(agent, { A2A_STORE: 'postgres', DATABASE_URL: postgresUrl(), A2A_REDIS_URL: redisUrl() }))
      .store as PostgresTaskStore;
    try {
      expect(redis).toBeInstanceOf(RedisTaskStore);
      expect(redis.prefix).toBe('a2a:echo:');
      expect(named.prefix).toBe('a2a:mine:');
      expect(postgres).toBeInstanceOf(PostgresTaskStore);
      expect(postgres.schema).toBe('echo_agent');
    } finally {
      await Promise.all([redis.close(), named.close(), postgres.close()]);
    }
  });

  test.each([
    [{ A2A_ON_INTERRUPTED: 'retry' }, 'A2A_ON_INTERRUPTED must be fail or resume, got "retry"'],
    [{ A2A_MAX_ATTEMPTS: 'three' }, 'A2A_MAX_ATTEMPTS must be a non-negative integer, got "three"'],
    [{ A2A_MAX_ATTEMPTS: '0' }, 'A2A_MAX_ATTEMPTS must be at least 1, got 0'],
    [{ A2A_MAX_TASK_BYTES: '100' }, 'A2A_MAX_TASK_BYTES must be at least 1024, got 100'],
    [{ A2A_ROLE: 'backend' }, 'A2A_ROLE must be all, front-end or worker, got "backend"'],
    [{ A2A_MAX_CONCURRENT_TURNS: '0' }, 'A2A_MAX_CONCURRENT_TURNS must be at least 1, got 0'],
    [{ A2A_MAX_CONCURRENT_TURNS: '-2' }, 'A2A_MAX_CONCURRENT_TURNS must be a non-negative integer, got "-2"'],
    [{ A2A_STORE: 'mongodb' }, 'A2A_STORE must be one of memory, redis, postgres, got "mongodb"'],
    [{ A2A_STORE: 'redis' }, 'A2A_STORE=redis needs A2A_REDIS_URL (redis://host:6379)'],
    [{ A2A_REDIS_URL: 'http://127.0.0.1:6379' }, 'A2A_REDIS_URL must be a redis:// or rediss:// URL, got "http://127.0.0.1:6379"'],
    [{ A2A_STORE: 'postgres' }, 'A2A_STORE=postgres needs DATABASE_URL, a postgres:// URL, got ""'],
    [{ A2A_API_KEYS: 'no-principal' }, 'A2A_API_KEYS must look like key=principal,key2=principal2'],
    [{ A2A_PUSH_SIGNING_KEY: '{not json' }, 'A2A_PUSH_SIGNING_KEY starts like a JWK but is not valid JSON'],
  ])('%j is refused at start, naming the variable and what it takes', async (env, why) => {
    await expect(routerOptionsFromEnv(agent, env)).rejects.toThrow(new TypeError(why));
  });
});

describe('serveOptionsFromEnv: where and how the samples serve', () => {
  const agent = { name: 'echo-agent', port: 41241 };

  test('unset: the agent’s own port on loopback, metrics beside the agent, no gRPC, a drain of 10 s', () => {
    expect(serveOptionsFromEnv(agent, {})).toEqual({
      name: 'echo-agent',
      port: 41241,
      host: '127.0.0.1',
      metricsPort: undefined,
      grpc: undefined,
      shutdownGraceMs: 10_000,
    });
  });

  test('each variable becomes its option', () => {
    expect(
      serveOptionsFromEnv(agent, {
        PORT: '0',
        HOST: '0.0.0.0',
        METRICS_PORT: '9464',
        A2A_GRPC_PORT: '50051',
        A2A_GRPC_ADDRESS: 'agent.example:443',
        A2A_SHUTDOWN_GRACE_MS: '30000',
      }),
    ).toEqual({
      name: 'echo-agent',
      port: 0,
      host: '0.0.0.0',
      metricsPort: 9464,
      grpc: { port: 50051, advertisedAddress: 'agent.example:443' },
      shutdownGraceMs: 30_000,
    });
  });

  test.each([
    [{ PORT: '70000' }, 'PORT must be a port number (0 to 65535), got 70000'],
    [{ PORT: 'http' }, 'PORT must be a non-negative integer, got "http"'],
    [{ METRICS_PORT: '0' }, 'METRICS_PORT must be a port number (1 to 65535), got 0'],
    [{ A2A_GRPC_PORT: '65536' }, 'A2A_GRPC_PORT must be a port number (0 to 65535), got 65536'],
    [{ A2A_SHUTDOWN_GRACE_MS: '10s' }, 'A2A_SHUTDOWN_GRACE_MS must be a non-negative integer, got "10s"'],
  ])('%j is refused at start, naming the variable and what it takes', (env, why) => {
    expect(() => serveOptionsFromEnv(agent, env)).toThrow(new TypeError(why));
  });
});

test('describeAuthentication: the schemes, or plainly that the agent is open to anyone', async () => {
  expect(describeAuthentication(undefined)).toBe('none (open to every client)');
  const { auth } = await routerOptionsFromEnv({ name: 'a', redisPrefix: 'a:' }, { A2A_API_KEYS: 'k=alice' });
  expect(describeAuthentication(auth)).toEqual(['ApiKey']);
});
