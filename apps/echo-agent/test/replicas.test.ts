// Two echo agent replicas sharing a store (Redis, PostgreSQL), one of them a real process that is
// killed mid-stream: the survivor fails the task once the dead replica's lease runs out, and the
// client resumes the stream there with Last-Event-ID, losing none of the events it was sent.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { pino } from 'pino';
import { collect, listen, openStream, rpc, sharedStores, spawnAgent, within, type RunningServer, type SharedStoreData } from 'a2a-testing';
import type { Task, TaskStatusUpdateEvent } from 'a2a-express';
import { PostgresTaskStore } from 'a2a-express/postgres';
import { RedisTaskStore } from 'a2a-express/redis';
import type { SharedTaskStore } from 'a2a-express/store';
import { echoRouter } from '../src/agent.js';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const leaseMs = 500;

const { kinds } = sharedStores<SharedTaskStore>('echo-replicas', {
  leaseMs,
  make: { redis: (options) => new RedisTaskStore(options), postgres: (options) => new PostgresTaskStore(options) },
});

/** What a replica's listening line says of the shared store. */
function described(data: SharedStoreData<SharedTaskStore>): string {
  return data.name === 'Redis'
    ? `shared in Redis under ${data.namespace} (lease ${leaseMs} ms)`
    : `PostgreSQL (schema ${data.namespace}, lease ${leaseMs} ms)`;
}

describe.each(kinds)('replicas sharing $name', (kind) => {
  let data: SharedStoreData<SharedTaskStore>;
  let survivorStore: SharedTaskStore;
  let survivorRouter: ReturnType<typeof echoRouter>;
  let survivor: RunningServer;
  let replicaEnv: Record<string, string>;

  beforeAll(async () => {
    data = await kind.open();
    survivorStore = data.make();
    replicaEnv = data.env;
    survivorRouter = echoRouter({ store: survivorStore, logger: pino({ level: 'silent' }) });
    survivor = await listen(express().use(survivorRouter));
  });
  afterAll(async () => {
    await survivorRouter.close();
    await survivor.close();
    await data.cleanup();
  });

  test('the process running a stream is killed (SIGKILL): the task reads failed on the survivor after the lease, and the stream resumes there with Last-Event-ID', async () => {
    // Chunks a minute apart: the task is still working when its process dies.
    const doomed = await spawnAgent('node', ['dist/server.js'], {
      cwd: appDir,
      env: { PORT: '0', ECHO_DELAY_MS: '60000', ...replicaEnv },
    });
    expect(JSON.parse(doomed.output().split('\n')[0]!).tasks).toBe(described(data));
    const stream = await openStream(
      doomed.url,
      'tasks/sendSubscribe',
      { id: 'doomed-task', message: { role: 'user', parts: [{ type: 'text', text: 'one two three four five six' }] } },
      { eventIds: true },
    );
    // working, working, the first chunk; on a timeout, the replica's log says why.
    const seen = [];
    for (let read = 0; read < 3; read++)
      seen.push(
        (await within(stream.events.next(), 5_000, `event ${read + 1} from the doomed replica; its log: ${doomed.output()}`)).value!,
      );
    const running = (await rpc<Task>(survivor.url, 'tasks/get', { id: 'doomed-task' })).result!;
    expect(running.status.state).toBe('working');

    doomed.child.kill('SIGKILL');
    stream.abort();
    await doomed.stop();

    // Bounded poll: the sweep runs every half lease, so this takes about 1.5 leases.
    let task = running;
    for (let attempt = 0; attempt < 200 && task.status.state === 'working'; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      task = (await rpc<Task>(survivor.url, 'tasks/get', { id: 'doomed-task', historyLength: 10 })).result!;
    }
    expect(task.status.state).toBe('failed');
    expect(task.status.message?.parts[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/lease expired.*send the message again as a new task \(a new task id\)/),
    });
    // What the message says works: the same id takes no more messages (-32009), a new task does.
    const message = { role: 'user', parts: [{ type: 'text', text: 'one two three four five six' }] };
    expect((await rpc(survivor.url, 'tasks/send', { id: 'doomed-task', message })).error?.code).toBe(-32009);
    expect((await rpc<Task>(survivor.url, 'tasks/send', { id: 'doomed-task-retried', message })).result?.status.state).toBe('completed');
    // Its log ends with the final event, so a client resubscribing on the survivor is told.
    const log = (await survivorStore.eventsAfter('doomed-task', 0))!;
    expect(log.at(-1)!.event).toMatchObject({ final: true, status: { state: 'failed' } } satisfies Partial<TaskStatusUpdateEvent>);
    // Every event the dead replica sent is in the log, under the id it was sent with.
    expect(seen.map((event) => ({ id: Number(event.id), event: event.message.result }))).toEqual(log.slice(0, seen.length));
    // The client resumes on the survivor from the last id it saw: the rest of the log, in order, ending with the failure.
    const resumed = await openStream(
      survivor.url,
      'tasks/resubscribe',
      { id: 'doomed-task' },
      { headers: { 'Last-Event-ID': seen.at(-1)!.id! }, eventIds: true },
    );
    const rest = await collect(resumed);
    expect(rest.map((event) => ({ id: Number(event.id), event: event.message.result }))).toEqual(log.slice(seen.length));
    expect(rest.at(-1)!.message.result).toMatchObject({ final: true, status: { state: 'failed' } });
    // The artifact streamed before the crash is kept.
    expect(task.artifacts?.[0]?.parts[0]).toMatchObject({ type: 'text', text: 'one two ' });
  });

  test('a task that is running on a live replica keeps working past many lease periods', async () => {
    const live = await spawnAgent('node', ['dist/server.js'], {
      cwd: appDir,
      env: { PORT: '0', ECHO_DELAY_MS: String(leaseMs * 3), ...replicaEnv },
    });
    try {
      const answer = await rpc<Task>(live.url, 'tasks/send', {
        id: 'slow-but-alive',
        message: { role: 'user', parts: [{ type: 'text', text: 'one two three' }] },
      });
      // Two pauses of three leases each, while the survivor sweeps: still completed, not failed.
      expect(answer.result?.status.state).toBe('completed');
      expect((await rpc<Task>(survivor.url, 'tasks/get', { id: 'slow-but-alive' })).result?.status.state).toBe('completed');
    } finally {
      await live.stop();
    }
  });
});

describe.each(kinds)('replicas resuming turns (A2A_ON_INTERRUPTED=resume) on $name', (kind) => {
  test('the replica running a slow stream is killed (SIGKILL): the other resumes the turn from its checkpoint, and the stream, resumed there with Last-Event-ID, ends completed with every chunk once and in order', async () => {
    const data = await kind.open();
    const store = data.make();
    // Chunks 2.5 s apart: the first replica is killed between the first chunk and the second.
    const replicaEnv = { PORT: '0', ECHO_DELAY_MS: '2500', A2A_ON_INTERRUPTED: 'resume', ...data.env };
    const doomed = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env: replicaEnv });
    const survivor = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env: replicaEnv });
    try {
      const stream = await openStream(
        doomed.url,
        'tasks/sendSubscribe',
        { id: 'resumed-task', message: { role: 'user', parts: [{ type: 'text', text: 'one two three four five six' }] } },
        { eventIds: true },
      );
      // working, working, the first chunk.
      const seen = [];
      for (let read = 0; read < 3; read++)
        seen.push((await within(stream.events.next(), 5_000, `event ${read + 1}; the replica's log: ${doomed.output()}`)).value!);
      expect(seen[2]!.message.result).toMatchObject({ artifact: { parts: [{ text: 'one two ' }] } });
      doomed.child.kill('SIGKILL');
      stream.abort();
      await doomed.stop();

      // The client comes back on the survivor from the last event it saw, before the survivor has
      // taken the turn over (within the lease, 500 ms, and a half for its sweep).
      const resumed = await openStream(
        survivor.url,
        'tasks/resubscribe',
        { id: 'resumed-task' },
        { headers: { 'Last-Event-ID': seen.at(-1)!.id! }, eventIds: true },
      );
      const rest = await collect(resumed, { timeoutMs: 20_000 });
      const all = [...seen, ...rest];
      // One stream: ids one after another, each chunk once and in order, one final event, the last.
      expect(all.map((event) => Number(event.id))).toEqual(all.map((_, i) => i + 1));
      const chunks = all.flatMap(({ message }) => ('artifact' in message.result! ? message.result.artifact.parts : []));
      expect(chunks.map((part) => (part as { text: string }).text)).toEqual(['one two ', 'three four ', 'five six']);
      expect(all.filter(({ message }) => (message.result as { final?: boolean }).final)).toHaveLength(1);
      // The handler ran again on the survivor as attempt 2, from the checkpoint of the first chunk.
      expect(all.at(-1)!.message.result).toMatchObject({
        final: true,
        status: { state: 'completed' },
        metadata: { echo: { resumed: { attempt: 2, reason: 'crash', checkpoint: { chunksSent: 1 } } } },
      });
      const task = (await rpc<Task>(survivor.url, 'tasks/get', { id: 'resumed-task' })).result!;
      expect(task.status.state).toBe('completed');
      expect(task.artifacts?.[0]?.parts.map((part) => (part as { text: string }).text).join('')).toBe('one two three four five six');
      // What the client was sent is the task's log, as stored.
      const log = (await store.eventsAfter('resumed-task', 0))!;
      expect(all.map((event) => ({ id: Number(event.id), event: event.message.result }))).toEqual(log);
      // Said in the survivor's log and metrics.
      expect(survivor.output()).toMatch(/"taskId":"resumed-task","attempt":2,.*"msg":"task resumed here/);
      const metrics = await (await fetch(`${survivor.url}/metrics`)).text();
      expect(metrics).toMatch(/^a2a_turns_interrupted_total\{action="resumed",reason="crash"\} 1$/m);
    } finally {
      await doomed.stop();
      await survivor.stop();
      await data.cleanup();
    }
    // Two replicas to start, a lease to run out, two chunks 2.5 s apart: past the default 20 s on a busy machine.
  }, 60_000);
});
