#!/usr/bin/env node
// a2a-express-migrate: brings a PostgreSQL schema to the task store's newest version, for teams
// that migrate before the agents start (then `migrate: false` on the store) rather than at start.
import { parseArgs } from 'node:util';
import { migratePostgres } from './store/postgres.js';

const USAGE = `Usage: a2a-express-migrate [--database-url <url>] [--schema <name>]

Runs the PostgreSQL task store's migrations that the schema lacks (a2a-express/postgres), each in
a transaction, once, under an advisory lock (replicas starting at once wait for each other).

  --database-url <url>  postgres://user:password@host:5432/database (default: DATABASE_URL)
  --schema <name>       the schema of the store's tables (default: A2A_POSTGRES_SCHEMA, else public)
  -h, --help            this help
`;

async function main(argv: string[]): Promise<number> {
  let values: { 'database-url'?: string; schema?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { 'database-url': { type: 'string' }, schema: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    process.stderr.write(`a2a-express-migrate: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const url = values['database-url'] ?? process.env.DATABASE_URL;
  if (!url) {
    process.stderr.write(`a2a-express-migrate: no database: give --database-url or set DATABASE_URL\n${USAGE}`);
    return 2;
  }
  const schema = values.schema ?? process.env.A2A_POSTGRES_SCHEMA ?? 'public';
  try {
    const ran = await migratePostgres(url, schema);
    process.stdout.write(ran.length === 0 ? `schema ${schema} is up to date\n` : `schema ${schema}: ran ${ran.join(', ')}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`a2a-express-migrate: ${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
