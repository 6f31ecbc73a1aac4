// a2a-express-migrate, the command that migrates a PostgreSQL schema before the agents start: run
// as a user runs it (the built bin), on a real PostgreSQL.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropSchema, postgresUrl, requirePostgres, uniqueSchema } from 'a2a-testing';

const bin = join(dirname(fileURLToPath(import.meta.url)), '../dist/migrate.js');
const url = postgresUrl();
const schema = uniqueSchema('migrate_command');
afterAll(() => dropSchema(url, schema));

const migrate = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH, ...env } });

test('migrates a schema once: the migrations it ran, then that it is up to date', async () => {
  await requirePostgres(url);
  const first = migrate(['--schema', schema], { DATABASE_URL: url });
  expect({ status: first.status, stdout: first.stdout }).toEqual({
    status: 0,
    stdout: `schema ${schema}: ran 001_tasks.sql, 002_leases.sql, 003_sealed_push_configs.sql, 004_laid_out.sql, 005_idempotency.sql, 006_turn_holder.sql, 007_turn_queue.sql\n`,
  });
  const again = migrate(['--database-url', url, '--schema', schema]);
  expect({ status: again.status, stdout: again.stdout }).toEqual({ status: 0, stdout: `schema ${schema} is up to date\n` });
});

test('says what is wrong: no database given (2), one that does not answer (1), an unknown option (2)', () => {
  expect(migrate([])).toMatchObject({ status: 2, stderr: expect.stringContaining('no database: give --database-url or set DATABASE_URL') });
  expect(migrate(['--database-url', 'postgres://nobody@127.0.0.1:9/none'])).toMatchObject({
    status: 1,
    stderr: expect.stringMatching(/^a2a-express-migrate: .*(ECONNREFUSED|connect)/),
  });
  expect(migrate(['--frobnicate'])).toMatchObject({ status: 2, stderr: expect.stringContaining("Unknown option '--frobnicate'") });
});
