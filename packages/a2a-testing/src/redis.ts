// Redis for the tests: where it is, a loud failure when it is not there, a server of a test's
// own (to stop and restart), and clean-up of the keys a test made.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** The Redis the tests use: `REDIS_URL`, else the local default. */
export function redisUrl(): string {
  return process.env.REDIS_URL || 'redis://127.0.0.1:6379';
}

/** Whether a Redis answers PING at `url` within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 2_000): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Waits (at most `timeoutMs`) until Redis has written every acknowledged write to its
 * append-only file (`aof_buffer_length:0` in `INFO persistence`): from then on, a crash of the
 * Redis process loses none of them. With `appendfsync everysec` Redis may hold a write back for
 * up to two seconds while the disk is busy.
 */
export async function appendOnlyFileWritten(url: string, timeoutMs = 5_000): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const info = await client.info('persistence');
      if (!/aof_enabled:1/.test(info)) throw new Error('the append-only file is off');
      if (/aof_buffer_length:0\b/.test(info)) return;
      if (Date.now() > deadline) throw new Error(`Redis had not written its append-only file after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    client.disconnect();
  }
}

/**
 * Fails (never skips) when the tests' Redis cannot be reached: the Redis tests are part of
 * the suite, and a missing server is a broken set-up, not a reason to pass.
 */
export async function requireRedis(url = redisUrl()): Promise<string> {
  if (await redisAnswers(url)) return url;
  throw new Error(
    `Redis is not reachable at ${url}. The Redis store tests need a real Redis server: ` +
      'install redis-server (the test run then starts one), start one on 127.0.0.1:6379, or set REDIS_URL.',
  );
}

/** A key prefix no other test (or run) uses. */
export function uniquePrefix(name: string): string {
  return `a2a-test:${name}:${randomUUID().slice(0, 8)}:`;
}

/** Deletes every key under `prefix`. */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    for (let cursor = '0', first = true; first || cursor !== '0'; first = false) {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    }
  } finally {
    client.disconnect();
  }
}

/** A redis-server process of the caller's own, on a free loopback port, in a folder of its own. */
export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills the server (SIGKILL), as a crash would, and waits for it to exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  dispose(): Promise<void>;
}

/**
 * Starts `redis-server` (it must be installed) on a free port; fails if it does not answer.
 * `persistence` are its persistence settings: by default it keeps nothing on disk.
 */
export async function startOwnRedis({
  persistence = ['--save', '', '--appendonly', 'no'],
}: {
  persistence?: string[];
} = {}): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'a2a-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const end = async (signal: NodeJS.Signals) => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(signal);
    });
  };
  const own: OwnRedis = {
    url,
    port,
    async start() {
      const started = spawn('redis-server', [...persistence, '--port', String(port), '--bind', '127.0.0.1', '--dir', dir], {
        stdio: 'ignore',
      });
      const failed = new Promise<never>((_, reject) => started.once('error', reject));
      child = started;
      for (let attempt = 0; attempt < 100; attempt++) {
        if (await Promise.race([redisAnswers(url, 200), failed])) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      started.kill('SIGKILL');
      throw new Error(`redis-server on port ${port} did not answer`);
    },
    async dispose() {
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
  await own.start();
  process.once('exit', () => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return own;
}

/** A port that was free a moment ago (Node's fetch refuses some fixed ports, so none is guessed). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
