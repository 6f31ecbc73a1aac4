// The echo agent as its start script runs it, keeping its tasks in PostgreSQL (A2A_STORE=postgres):
// a task outlives the process, and what the environment asks for that cannot be is refused at start.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropSchema, postgresUrl, requirePostgres, rpc, spawnAgent, uniqueSchema } from 'a2a-testing';
import type { Task } from 'a2a-types';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const url = postgresUrl();
const schema = uniqueSchema('echo');
afterAll(() => dropSchema(url, schema));

test('with A2A_STORE=postgres, a task outlives the agent that ran it: a new process reads it over 0.1.0 and 1.0', async () => {
  const env = { PORT: '0', A2A_STORE: 'postgres', DATABASE_URL: await requirePostgres(url), A2A_POSTGRES_SCHEMA: schema };
  const first = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env });
  let sent: Task;
  try {
    expect(JSON.parse(first.output().split('\n')[0]!).tasks).toBe(`PostgreSQL (schema ${schema}, lease 15000 ms)`);
    sent = (
      await rpc<Task>(first.url, 'tasks/send', { id: 'durable', message: { role: 'user', parts: [{ type: 'text', text: 'keep me' }] } })
    ).result!;
    expect(sent.status.state).toBe('completed');
  } finally {
    await first.stop();
  }
  const second = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env });
  try {
    const read = (await rpc<Task>(second.url, 'tasks/get', { id: 'durable', historyLength: 10 })).result!;
    expect(read).toMatchObject({ id: 'durable', status: { state: 'completed' }, artifacts: sent.artifacts });
    // Over 1.0 too, from the same table.
    const listed = await fetch(`${second.url}/v1/tasks`, { headers: { 'A2A-Version': '1.0' } });
    expect(((await listed.json()) as { tasks: { id: string }[] }).tasks.map((task) => task.id)).toContain('durable');
  } finally {
    await second.stop();
  }
});

test('A2A_STORE=postgres without DATABASE_URL, or a store it does not know: the agent says why and does not start', async () => {
  for (const [env, why] of [
    [{ A2A_STORE: 'postgres' }, /A2A_STORE=postgres needs DATABASE_URL/],
    [{ A2A_STORE: 'mongodb' }, /A2A_STORE must be one of memory, redis, postgres/],
    [{ A2A_STORE: 'redis' }, /A2A_STORE=redis needs A2A_REDIS_URL/],
  ] as const) {
    await expect(spawnAgent('node', ['dist/server.js'], { cwd: appDir, env: { PORT: '0', ...env } })).rejects.toThrow(why);
  }
});
