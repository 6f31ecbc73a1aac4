// PostgreSQL for the tests: the one at DATABASE_URL (or PGURL), or the local default, when it
// answers; else a throwaway cluster of the run's own (Debian's postgresql binaries, on a free port,
// in a temporary folder, run as the `postgres` user when the tests run as root, since initdb
// refuses root); else a loud failure that says what is missing. Each test works in a schema of
// its own, dropped after it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './redis.js';

/** The PostgreSQL the tests use: `DATABASE_URL`, `PGURL`, else the local default. */
export function postgresUrl(): string {
  return process.env.DATABASE_URL || process.env.PGURL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** Whether a PostgreSQL answers at `url` within `timeoutMs`. */
export async function postgresAnswers(url: string, timeoutMs = 2_000): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Fails (never skips) when the tests' PostgreSQL cannot be reached, saying what to do. */
export async function requirePostgres(url = postgresUrl()): Promise<string> {
  if (await postgresAnswers(url)) return url;
  throw new Error(
    `PostgreSQL is not reachable at ${url}. The PostgreSQL store tests need a real server: install ` +
      "Debian's postgresql (the test run then starts a cluster of its own), start one on 127.0.0.1:5432, or set DATABASE_URL.",
  );
}

/** A schema name no other test (or run) uses. */
export function uniqueSchema(name: string): string {
  return `a2a_test_${name}_${randomUUID().slice(0, 8)}`.replace(/[^a-z0-9_]/g, '_');
}

/** Drops `schema` and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A PostgreSQL cluster of the caller's own. */
export interface OwnPostgres {
  readonly url: string;
  /** Stops the server (a fast shutdown) and waits for it to exit; its data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  dispose(): Promise<void>;
}

/** The folder of the newest PostgreSQL binaries Debian installed, if any. */
function postgresBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
}

/**
 * Starts a throwaway cluster on a free loopback port (trust authentication, nothing kept); fails if
 * it does not answer. It trades durability for speed (fsync off) unless `settings`, server settings
 * given as `-c name=value`, say otherwise: a benchmark gives PostgreSQL's defaults back.
 */
export async function startOwnPostgres(settings: Record<string, string> = {}): Promise<OwnPostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql (Debian's postgresql package)");
  const dir = mkdtempSync(join(tmpdir(), 'a2a-postgres-'));
  // initdb and postgres refuse to run as root: as root, they run as the postgres user.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    if (!Number.isInteger(uid)) throw new Error('running as root, PostgreSQL needs a postgres user to run as');
    chownSync(dir, uid, gid);
  }
  const as = (command: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  const data = join(dir, 'data');
  const [initCommand, initArgs] = as(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const init = spawnSync(initCommand, initArgs, { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  let port = await freePort();
  let url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: ChildProcess | undefined;
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    // SIGINT is PostgreSQL's fast shutdown. To the server itself (its pid in postmaster.pid):
    // runuser, between, does not pass it on.
    const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(Number.isInteger(pid) && pid > 0 ? pid : running.pid!, 'SIGINT');
    // Unref'd: a server that stopped in time leaves no timer holding the test run open.
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    if (running.exitCode === null) running.kill('SIGKILL');
  };
  const start = async () => {
    const [command, args] = as(join(bin, 'postgres'), [
      ...['-D', data, '-p', String(port), '-k', dir],
      ...Object.entries({
        listen_addresses: '127.0.0.1',
        fsync: 'off',
        synchronous_commit: 'off',
        full_page_writes: 'off',
        ...settings,
      }).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ]);
    const spawned = spawn(command, args, { stdio: 'ignore' });
    child = spawned;
    for (let attempt = 0; attempt < 100; attempt++) {
      // A server that exited could not have the port: another test's took it since freePort().
      if (spawned.exitCode !== null) return false;
      // One answering is this server only while it runs (the port may be another's otherwise).
      if ((await postgresAnswers(url, 500)) && spawned.exitCode === null) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    spawned.kill('SIGKILL');
    throw new Error(`PostgreSQL on port ${port} did not answer`);
  };
  try {
    // A port taken between freePort() and the server's start (tests run side by side): another.
    for (let tries = 1; !(await start()); tries++) {
      if (tries === 5) throw new Error(`PostgreSQL could not take a free port in ${tries} tries`);
      port = await freePort();
      url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    stop,
    async start() {
      if (!(await start())) throw new Error(`PostgreSQL could not start again on port ${port}: another server took it`);
    },
    async dispose() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
