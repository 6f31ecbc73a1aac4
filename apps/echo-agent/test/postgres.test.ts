// The echo agent as its start script runs it, keeping its tasks in PostgreSQL (A2A_STORE=postgres):
// a task outlives the process, a restart of the database loses no acknowledged task, and what the
// environment asks for that cannot be is refused at start.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropSchema, postgresUrl, requirePostgres, rpc, spawnAgent, startOwnPostgres, uniqueSchema } from 'a2a-testing';
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

test('A2A_STORE=postgres without DATABASE_URL, or a store it does not know: the agent says why in one line, no stack, and does not start', async () => {
  for (const [env, why] of [
    [{ A2A_STORE: 'postgres' }, /A2A_STORE=postgres needs DATABASE_URL/],
    [{ A2A_STORE: 'mongodb' }, /A2A_STORE must be one of memory, redis, postgres/],
    [{ A2A_STORE: 'redis' }, /A2A_STORE=redis needs A2A_REDIS_URL/],
  ] as const) {
    const refusal = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env: { PORT: '0', ...env } }).then(
      () => new Error('it started'),
      (error: Error) => error,
    );
    // spawnAgent's error: a line of its own, then what the agent wrote (stdout, then stderr).
    const [, ...written] = refusal.message.split('\n').filter((line) => line.trim() !== '');
    expect(written).toHaveLength(1);
    const line = JSON.parse(written[0]!) as { level: number; msg: string; err?: unknown };
    expect(line).toMatchObject({ level: 60, msg: expect.stringMatching(why) });
    expect(line.msg).toMatch(/^echo-agent: bad configuration: /);
    expect(line.err).toBeUndefined();
  }
});

test('the database restarts under load: no acknowledged task is lost, and the agent is not ready while it is away', async () => {
  const own = await startOwnPostgres();
  const agent = await spawnAgent('node', ['dist/server.js'], {
    cwd: appDir,
    env: { PORT: '0', A2A_STORE: 'postgres', DATABASE_URL: own.url, A2A_POSTGRES_SCHEMA: 'restart' },
  });
  const ready = async () => (await fetch(`${agent.url}/readyz`, { signal: AbortSignal.timeout(5_000) })).status;
  const acknowledged: string[] = [];
  let sent = 0;
  /** Sends tasks one after another until `stop` is set: those answered with a completed task are acknowledged. */
  const load = async (stop: { done: boolean }) => {
    while (!stop.done && sent < 2_000) {
      const id = `under-load-${++sent}`;
      try {
        const answer = await rpc<Task>(agent.url, 'tasks/send', { id, message: { role: 'user', parts: [{ type: 'text', text: id }] } });
        if (answer.result?.status.state === 'completed') acknowledged.push(id);
      } catch {
        // Refused or failed while the database was away: not acknowledged, so not owed.
      }
    }
  };
  try {
    expect(await ready()).toBe(200);
    const stop = { done: false };
    const loading = load(stop);
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 10));
    await own.stop();
    let notReady = 0;
    for (let i = 0; i < 100 && notReady === 0; i++) {
      notReady = (await ready()) === 503 ? 1 : 0;
      if (!notReady) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(notReady).toBe(1);
    await own.start();
    let readyAgain = false;
    for (let i = 0; i < 200 && !readyAgain; i++) {
      readyAgain = (await ready()) === 200;
      if (!readyAgain) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(readyAgain).toBe(true);
    const before = acknowledged.length;
    while (acknowledged.length < before + 20 && sent < 2_000) await new Promise((resolve) => setTimeout(resolve, 10));
    stop.done = true;
    await loading;
    expect(acknowledged.length).toBeGreaterThanOrEqual(before + 20);
    // Every task the agent said it completed is there, completed, after the restart.
    for (const id of acknowledged) {
      const read = await rpc<Task>(agent.url, 'tasks/get', { id });
      expect([id, read.result?.status.state]).toEqual([id, 'completed']);
    }
  } finally {
    await agent.stop();
    await own.dispose();
  }
}, 60_000);
