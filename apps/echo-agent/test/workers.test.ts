// The echo agent as a front end and a worker (A2A_ROLE), two real processes sharing a store: the
// front end takes the calls and is not ready until the worker is up; the worker serves no A2A
// call, only its health and metrics; a stream sent to the front end gets every chunk the worker
// yields, in order, ending completed.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collect, openStream, rpc, sharedStores, spawnAgent, type SpawnedAgent } from 'a2a-testing';
import { scrape } from 'a2a-testing/metrics';
import type { Task, TaskEvent } from 'a2a-express';

const appDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Only processes use the shared data: the environment names it. */
const { kinds } = sharedStores('echo-workers');

async function readiness(url: string): Promise<{ status: number; body: { status: string; reasons?: string[] } }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { status: string; reasons?: string[] } };
}

describe.each(kinds)('the echo agent as a front end and a worker on $name', (kind) => {
  const started: SpawnedAgent[] = [];
  let cleanup: () => Promise<unknown> = async () => undefined;
  afterAll(async () => {
    await Promise.all(started.map((agent) => agent.stop()));
    await cleanup();
  });

  test('A2A_ROLE=front-end is not ready until an A2A_ROLE=worker is up; the worker takes no A2A call; a stream through the front end ends completed with every chunk in order', async () => {
    const opened = await kind.open();
    cleanup = opened.cleanup;
    const front = await spawnAgent('node', ['dist/server.js'], { cwd: appDir, env: { PORT: '0', A2A_ROLE: 'front-end', ...opened.env } });
    started.push(front);
    expect(JSON.parse(front.output().split('\n')[0]!)).toMatchObject({ role: 'front-end' });
    const alone = await readiness(front.url);
    expect(alone.status).toBe(503);
    expect(alone.body.reasons).toEqual([expect.stringMatching(/^no worker is alive to run turns/)]);

    const worker = await spawnAgent('node', ['dist/server.js'], {
      cwd: appDir,
      env: { PORT: '0', A2A_ROLE: 'worker', A2A_MAX_CONCURRENT_TURNS: '4', ...opened.env },
    });
    started.push(worker);
    const listening = JSON.parse(worker.output().split('\n')[0]!) as Record<string, unknown>;
    expect(listening).toMatchObject({ role: 'worker' });
    expect(listening).not.toHaveProperty('url10');
    // No A2A endpoint on a worker: its port serves health and metrics alone.
    const refused = await fetch(worker.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'x' } }),
    });
    expect(refused.status).toBe(404);
    expect(await readiness(worker.url)).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await scrape(`${worker.url}/metrics`)).type('a2a_worker_turns_running')).toBe('GAUGE');
    // The worker's heartbeat is its first act: polled, bounded.
    let ready = await readiness(front.url);
    for (let tries = 0; tries < 100 && ready.status !== 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ready = await readiness(front.url);
    }
    expect(ready).toEqual({ status: 200, body: { status: 'ready' } });

    const words = 'one two three four five six seven eight';
    const stream = await openStream(
      front.url,
      'tasks/sendSubscribe',
      { id: 'through-front-end', message: { role: 'user', parts: [{ type: 'text', text: words }] } },
      { eventIds: true },
    );
    const events = await collect(stream);
    const results = events.map((event) => event.message.result as TaskEvent);
    const chunks = results.flatMap((event) =>
      'artifact' in event ? event.artifact.parts.map((part) => (part.type === 'text' ? part.text : '')) : [],
    );
    expect(chunks).toEqual(['one two three ', 'four five six ', 'seven eight']);
    expect(events.map((event) => Number(event.id))).toEqual(events.map((_, i) => i + 1));
    expect(results.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
    const task = (await rpc<Task>(front.url, 'tasks/get', { id: 'through-front-end' })).result!;
    expect(task.status.state).toBe('completed');
    const onWorker = await scrape(`${worker.url}/metrics`);
    expect([onWorker.value('a2a_turn_queue_depth'), onWorker.value('a2a_workers_live')]).toEqual([0, 1]);
  });
});
