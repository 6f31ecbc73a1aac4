// Hand-over on deploy (#55), end to end: three echo replicas (real processes) sharing Redis or
// PostgreSQL with A2A_ON_INTERRUPTED=resume, restarted one after another with SIGTERM (each back
// before the next goes, as a rolling deploy does) under a load of slow streaming turns. Every
// task ends completed, its client (resubscribing with Last-Event-ID wherever a stream ended
// early) sees every chunk once and in order, and the replicas' own records of each run of a turn
// (the echo handler's debug lines: pid, attempt, time) show no two runs of one turn at once.
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type collect, openStream, rpc, sharedStores, spawnAgent, within, type OpenStream, type SpawnedAgent } from 'a2a-testing';
import type { Task } from 'a2a-express';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Far longer than the test: a turn taken over only when its lease ran out would time it out. */
const leaseMs = 60_000;
/** Chunks this far apart: each task's turn lasts seconds, across several restarts. */
const chunkDelayMs = 150;
/** Parts of three words each: the echo streams a text part in three chunks, so 3 × this many. */
const partsPerMessage = 10;

/** Only processes use the shared data: the environment names it. */
const { kinds } = sharedStores('echo-rolling', { leaseMs });

/** A task's message: parts of three words, each word naming the task, its part and itself. */
function messageOf(taskId: string) {
  const parts = Array.from({ length: partsPerMessage }, (_, part) => ({
    type: 'text',
    text: [0, 1, 2].map((word) => `${taskId}.${part}.${word}`).join(' '),
  }));
  return { role: 'user', parts };
}

/** The chunks the echo sends for a message: each part cut at its words. */
function chunksOf(taskId: string): string[] {
  return messageOf(taskId).parts.flatMap(({ text }) => text.split(/(?<=\s)(?=\S)/));
}

type StreamEvent = Awaited<ReturnType<typeof collect>>[number];

/** One run of a turn's handler, as the echo's debug lines record it. */
interface Run {
  readonly taskId: string;
  readonly attempt: number;
  readonly pid: number;
  readonly startedAt: number;
  endedAt?: number;
}

/** Every run of a handler in these processes' logs, by task. */
function runsIn(replicas: readonly SpawnedAgent[]): Map<string, Run[]> {
  const byTask = new Map<string, Run[]>();
  for (const replica of replicas) {
    for (const line of replica.output().split('\n')) {
      if (!line.includes('"echo run ')) continue;
      const { msg, taskId, attempt, pid, time } = JSON.parse(line) as {
        msg: string;
        taskId: string;
        attempt: number;
        pid: number;
        time: number;
      };
      const runs = byTask.get(taskId) ?? [];
      byTask.set(taskId, runs);
      if (msg === 'echo run started') runs.push({ taskId, attempt, pid, startedAt: time });
      else runs.find((run) => run.pid === pid && run.attempt === attempt && run.endedAt === undefined)!.endedAt = time;
    }
  }
  return byTask;
}

describe.each(kinds)('a rolling restart of three echo replicas (A2A_ON_INTERRUPTED=resume) on $name', (kind) => {
  test('each replica in turn gets SIGTERM under a load of slow streams and hands its turns over: every task ends completed, every chunk reaches its client once and in order, and no turn ever ran on two processes at once', async () => {
    const { env, cleanup } = await kind.open();
    const replicaEnv = {
      PORT: '0',
      ECHO_DELAY_MS: String(chunkDelayMs),
      A2A_ON_INTERRUPTED: 'resume',
      // The turns still running this long after SIGTERM are handed over.
      A2A_SHUTDOWN_GRACE_MS: '200',
      LOG_LEVEL: 'debug',
      ...env,
    };
    const started: SpawnedAgent[] = [];
    const live: SpawnedAgent[] = [];
    const start = async () => {
      const replica = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env: replicaEnv });
      started.push(replica);
      live.push(replica);
      return replica;
    };
    let picks = 0;
    /** A replica that is not being stopped, in turn. */
    const anyLive = () => live[picks++ % live.length]!;

    /** Every event each task's client was sent, over all its streams, in the order it got them. */
    const seen = new Map<string, StreamEvent[]>();
    const clients: Promise<void>[] = [];
    /** A client: streams its task, and resubscribes from the last id it saw wherever a stream ends before the final event. */
    const client = (taskId: string, first: OpenStream) => {
      const events: StreamEvent[] = [];
      seen.set(taskId, events);
      clients.push(
        (async () => {
          let stream = first;
          for (let streams = 1; ; streams++) {
            // Each event kept as it comes: the test waits for a turn's first chunk.
            const reading = stream;
            if (reading.status === 200)
              await within(
                (async () => {
                  for await (const event of reading.events) events.push(event);
                })(),
                30_000,
                `task ${taskId}'s stream ${streams}`,
              );
            if ((events.at(-1)?.message.result as { final?: boolean } | undefined)?.final) return;
            if (streams > 20) throw new Error(`task ${taskId}: no final event after ${streams} streams`);
            // A replica that began stopping since it was picked refuses the call (503) or the
            // connection: the next pick is another.
            if (stream.status !== 200) await sleep(50);
            const next = await openStream(
              anyLive().url,
              'tasks/resubscribe',
              { id: taskId },
              { headers: { 'Last-Event-ID': events.at(-1)!.id! }, eventIds: true },
            ).catch(() => undefined);
            stream = next ?? { ...stream, status: 0 };
          }
        })(),
      );
      return events;
    };
    const send = async (replica: SpawnedAgent, taskId: string) => {
      const events = client(
        taskId,
        await openStream(replica.url, 'tasks/sendSubscribe', { id: taskId, message: messageOf(taskId) }, { eventIds: true }),
      );
      // Bounded: until its first chunk (working, working, the chunk), so its turn runs there now.
      for (let wait = 0; wait < 200 && events.length < 3; wait++) await sleep(25);
    };

    try {
      for (let i = 0; i < 3; i++) await start();
      // The load: two long turns on each replica, then one more on each replica just before it stops.
      const taskIds: string[] = [];
      for (let i = 0; i < 6; i++) {
        taskIds.push(`load-${i}`);
        await send(live[i % 3]!, `load-${i}`);
      }
      for (let step = 0; step < 3; step++) {
        const stopping = live.shift()!;
        taskIds.push(`restart-${step}`);
        await send(stopping, `restart-${step}`);
        // Graceful: exit code 0, well within the 5 s before stop() would SIGKILL it.
        expect(await stopping.stop()).toBe(0);
        await start();
      }
      await Promise.all(clients);

      for (const taskId of taskIds) {
        const events = seen.get(taskId)!;
        // One stream in the end: every event once (its ids one after another), one final event, the last.
        expect(events.map((event) => Number(event.id))).toEqual(events.map((_, i) => i + 1));
        const results = events.map(({ message }) => message.result as { final?: boolean; status?: { state: string } });
        expect(results.filter((result) => result.final)).toEqual([results.at(-1)]);
        expect(results.at(-1)!.status!.state).toBe('completed');
        const chunks = events.flatMap(({ message }) => ('artifact' in message.result! ? message.result.artifact.parts : []));
        expect(chunks.map((part) => (part as { text: string }).text)).toEqual(chunksOf(taskId));
        const task = (await rpc<Task>(anyLive().url, 'tasks/get', { id: taskId })).result!;
        expect(task.status.state).toBe('completed');
      }

      // Each stopped replica handed at least the turn started on it just before over, none failed.
      const stopped = started.slice(0, 3);
      const drains = stopped.map((replica) => {
        const line = replica
          .output()
          .split('\n')
          .find((text) => text.includes('"msg":"drained"'));
        return JSON.parse(line!) as { finished: number; stopped: number; handedOver: number };
      });
      for (const drain of drains) {
        expect(drain.stopped).toBe(0);
        expect(drain.handedOver).toBeGreaterThanOrEqual(1);
      }
      // Each hand-over taken over once, said once, by the replica that took it; no turn lost or failed.
      const logs = started.map((replica) => replica.output()).join('');
      const takenOver = logs.match(/"msg":"task resumed here: the replica running it handed it over as it stopped"/g) ?? [];
      expect(takenOver).toHaveLength(drains.reduce((sum, drain) => sum + drain.handedOver, 0));
      expect(logs).not.toMatch(/stopped renewing its lease/);

      // No overlap: the runs of each turn, by the handler's own records across every process, one
      // after the other, each attempt's run ended before the next one started.
      const runs = runsIn(started);
      expect([...runs.keys()].sort()).toEqual([...taskIds].sort());
      for (const [taskId, taskRuns] of runs) {
        taskRuns.sort((a, b) => a.attempt - b.attempt);
        expect(taskRuns.map((run) => run.attempt)).toEqual(taskRuns.map((_, i) => i + 1));
        for (let i = 0; i < taskRuns.length; i++) {
          const run = taskRuns[i]!;
          expect({ taskId, ended: run.endedAt !== undefined }).toEqual({ taskId, ended: true });
          if (i > 0)
            expect({ taskId, attempt: run.attempt, overlap: run.startedAt < taskRuns[i - 1]!.endedAt! }).toEqual({
              taskId,
              attempt: run.attempt,
              overlap: false,
            });
        }
      }
      // The restart-step turns were all handed over at least once (they ran on two processes or more).
      for (let step = 0; step < 3; step++) expect(runs.get(`restart-${step}`)!.length).toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all(live.map((replica) => replica.stop()));
      await cleanup();
    }
    // Three replicas to start and three to restart, turns of seconds: past the default 20 s on a busy machine.
  }, 90_000);
});
