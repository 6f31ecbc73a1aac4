// Turns that outlive their process (`onInterrupted: 'resume'`), on both shared stores: fencing (a
// process whose turn another replica took over can neither write nor keep the turn's lease), a
// turn that keeps taking its process down failed after the attempts allowed (real processes), and
// the bound on checkpoints. The echo agent's replicas test shows a stream carried across a SIGKILL.
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { rpc, sharedStores, spawnAgent, within, type SharedStoreData, type SpawnedAgent } from 'a2a-testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { artifact, completed, withCheckpoint, type A2ARouter, type Task, type TaskHandler, type TurnResumed } from '../src/index.js';
import { TaskEngine } from '../src/core/task-engine.js';
import { resolveOptions } from '../src/options.js';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';
import type { SharedTaskStore } from '../src/store/index.js';
import request from 'supertest';
import { appWith, eventually, gate, memoryLogger, silent, testCard, userText } from './helpers.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const leaseMs = 400;
const pushConfigKey = Buffer.alloc(32, 7).toString('base64');

const { kinds } = sharedStores<SharedTaskStore>('resume', {
  leaseMs,
  make: {
    redis: (options) => new RedisTaskStore(options),
    postgres: (options) => new PostgresTaskStore({ ...options, pushConfigKey, maxConnections: 3 }),
  },
});

/** The shared data as the database holds it, and the environment a replica process is given. */
interface Inspection {
  /** The task's lease, as the store keeps it (milliseconds since the epoch). */
  leaseOf(taskId: string): Promise<number>;
  /** The record as the database holds it, raw. */
  rawRecord(taskId: string): Promise<string>;
  /** Whether the stores are given a key that seals what a turn keeps to be resumed. */
  sealsTurns: boolean;
  env: Record<string, string>;
  close(): Promise<void>;
}

function inspection(data: SharedStoreData<SharedTaskStore>): Inspection {
  const prefix = data.namespace;
  if (data.name === 'Redis') {
    const redis = new Redis(data.url);
    return {
      leaseOf: async (taskId) => Number(await redis.zscore(`${prefix}leases`, taskId)),
      rawRecord: async (taskId) => JSON.stringify(await redis.hgetall(`${prefix}task:${taskId}`)),
      sealsTurns: false,
      env: data.env,
      close: async () => redis.disconnect(),
    };
  }
  const pool = new pg.Pool({ connectionString: data.url, max: 1 });
  const row = async (taskId: string) =>
    (
      await pool.query(`SELECT record::text, lease_until FROM ${pg.escapeIdentifier(data.namespace)}.a2a_tasks WHERE task_id = $1`, [
        taskId,
      ])
    ).rows[0];
  return {
    leaseOf: async (taskId) => (await row(taskId)).lease_until.getTime(),
    rawRecord: async (taskId) => (await row(taskId)).record,
    sealsTurns: true,
    env: { ...data.env, A2A_PUSH_CONFIG_KEY: pushConfigKey },
    close: () => pool.end(),
  };
}

describe.each(kinds)('resumed turns on $name', (kind) => {
  let data: SharedStoreData<SharedTaskStore>;
  let shared: Inspection;
  const routers: A2ARouter[] = [];
  const store = () => data.make();

  beforeAll(async () => {
    data = await kind.open();
    shared = inspection(data);
  });
  afterAll(async () => {
    await Promise.all(routers.map((router) => router.close()));
    await shared.close();
    await data.cleanup();
  });

  test('a process whose turn another replica took over (its lease ran out: a pause, a partition) cannot write to it: its write is refused and its handler aborted, and the turn goes on from its checkpoint there', async () => {
    const taskId = 'zombie-task';
    // The zombie: an engine with no replica duties, so it renews no lease, as a process frozen
    // in a pause renews none. Its handler stores a chunk and a checkpoint, then waits.
    const wakeZombie = gate();
    let zombieSignal: AbortSignal | undefined;
    const zombieHandler: TaskHandler = async function* (ctx) {
      zombieSignal = ctx.signal;
      yield withCheckpoint(artifact('one ', { name: 'words' }), { wordsSent: 1 });
      await wakeZombie.promise;
      yield withCheckpoint(artifact('ZOMBIE ', { append: true }), { wordsSent: 2 });
      yield completed();
    };
    const zombieStore = store();
    const zombie = new TaskEngine(
      zombieStore,
      zombieHandler,
      silent,
      resolveOptions({ card: testCard, onInterrupted: 'resume' }),
      undefined,
      undefined,
      true,
    );
    const zombieRun = zombie.run(await zombie.startTurn(taskId, { message: userText('one two three') }));
    const survivorStore = store();
    await eventually(async () => ((await survivorStore.get(taskId))?.checkpoint ? true : undefined));

    // The survivor takes the turn over once the lease has run out, and runs it from the checkpoint.
    const resumedWith: (TurnResumed | undefined)[] = [];
    const { router } = appWith(
      async function* (ctx) {
        resumedWith.push(ctx.resumed);
        const sent = (ctx.resumed?.checkpoint as { wordsSent?: number } | undefined)?.wordsSent ?? 0;
        yield withCheckpoint(artifact('two ', { append: true }), { wordsSent: sent + 1 });
        // Holds the turn (and so its lease) until the router closes.
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
      },
      { store: survivorStore, onInterrupted: 'resume' },
    );
    routers.push(router);
    await eventually(async () => (resumedWith.length > 0 ? true : undefined), 10_000);
    expect(resumedWith).toEqual([{ attempt: 2, reason: 'crash', checkpoint: { wordsSent: 1 } }]);
    await eventually(
      async () => ((await survivorStore.get(taskId))?.checkpoint as { wordsSent?: number } | undefined)?.wordsSent === 2 || undefined,
    );

    // The zombie wakes while the survivor's attempt runs: what it yields is not written.
    wakeZombie.open();
    await within(zombieRun.ended, 5_000, 'the zombie turn to end');
    expect(zombieSignal?.aborted).toBe(true);
    const during = (await survivorStore.get(taskId))!;
    expect(during.task.status.state).toBe('working');
    expect(during.task.artifacts?.[0]?.parts).toEqual([
      { type: 'text', text: 'one ' },
      { type: 'text', text: 'two ' },
    ]);
    // The log holds every word once, the zombie's none.
    const events = (await survivorStore.eventsAfter(taskId, 0))!;
    const words = events.flatMap(({ event }) =>
      'artifact' in event ? event.artifact.parts.map((part) => (part as { text: string }).text) : [],
    );
    expect(words).toEqual(['one ', 'two ']);
    expect(JSON.stringify(events)).not.toContain('ZOMBIE');
    // Given a key (PostgreSQL's pushConfigKey), what the turn keeps to be resumed is sealed at rest.
    if (shared.sealsTurns) expect(await shared.rawRecord(taskId)).not.toMatch(/wordsSent|messageAt/);

    // Nor can it keep the lease: a renewal in its name changes nothing, one in the survivor's does.
    expect(during.holder).not.toBe(zombie.processId);
    await router.close();
    const lease = await shared.leaseOf(taskId);
    await zombieStore.renewLeases([taskId], zombie.processId);
    expect(await shared.leaseOf(taskId)).toBe(lease);
    await sleep(5);
    await zombieStore.renewLeases([taskId], during.holder);
    expect(await shared.leaseOf(taskId)).toBeGreaterThan(lease);
  });

  test('a turn that takes its process down on every attempt is failed after the attempts allowed, saying so; each attempt ran on one process', async () => {
    const env = { PORT: '0', ...shared.env, A2A_ON_INTERRUPTED: 'resume', A2A_MAX_ATTEMPTS: '2' };
    const start = () => spawnAgent('node', ['test/fixtures/dying-agent.mjs'], { cwd: packageDir, env });
    const exited = (replica: SpawnedAgent) =>
      within(new Promise((resolve) => replica.child.once('close', resolve)), 10_000, `the replica to die; its log: ${replica.output()}`);

    // Attempt 1, on the replica that took the message: it dies.
    const first = await start();
    const firstDied = exited(first);
    await rpc(first.url, 'tasks/send', { id: 'poison', message: userText('take the process down') }).catch(() => undefined);
    await firstDied;
    // Attempt 2, on the next replica up, once the lease has run out: it dies too.
    const second = await start();
    await exited(second);
    expect(second.output()).toMatch(/"attempt":2,.*"msg":"the handler runs, and takes its process down"/);
    // The third replica runs it no more: two attempts are all that is allowed.
    const third = await start();
    try {
      let task: Task | undefined;
      for (let poll = 0; poll < 200 && task?.status.state !== 'failed'; poll++) {
        await sleep(50);
        task = (await rpc<Task>(third.url, 'tasks/get', { id: 'poison' })).result;
      }
      expect(task?.status.state).toBe('failed');
      expect(task?.status.message?.parts[0]).toMatchObject({
        type: 'text',
        text: expect.stringMatching(/stopped responding 2 times .*the most this agent tries one message/),
      });
      // The log line is written when the task is, and read from the child's stdout a little later
      // under load: waited for, bounded.
      const failedLine = /"attempts":2,.*task failed: the process running it stopped renewing its lease/;
      for (let poll = 0; poll < 100 && !failedLine.test(third.output()); poll++) await sleep(50);
      expect(third.output()).not.toContain('the handler runs');
      expect(third.output()).toMatch(failedLine);
      expect(third.child.exitCode).toBeNull();
    } finally {
      await third.stop();
    }
  });
});

test('a checkpoint larger than maxCheckpointBytes fails the turn as an invalid update, the log saying why', async () => {
  const { logger, lines } = memoryLogger();
  const { app, router } = appWith(
    async function* () {
      yield withCheckpoint(artifact('fits'), { note: 'small' });
      yield withCheckpoint(artifact('too much'), { note: 'x'.repeat(200) });
    },
    { maxCheckpointBytes: 100, logger },
  );
  try {
    const response = await request(app)
      .post('/')
      .send({ jsonrpc: '2.0', id: 1, method: 'tasks/send', params: { id: 'big', message: userText('hi') } });
    const task = response.body.result as Task;
    expect(task.status.state).toBe('failed');
    expect(task.status.message?.parts[0]).toEqual({ type: 'text', text: 'The agent produced an invalid update.' });
    expect(task.artifacts?.map((made) => made.parts[0])).toEqual([{ type: 'text', text: 'fits' }]);
    expect(lines().find((line) => line.msg === 'handler yielded an invalid update')?.reason).toMatch(
      /^checkpoint: 2\d\d bytes of JSON, more than maxCheckpointBytes \(100\)/,
    );
  } finally {
    await router.close();
  }
});
