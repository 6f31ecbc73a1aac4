import express from 'express';
import { collect, openStream, rpc, serverPool } from 'a2a-testing';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  artifact,
  completed,
  type AgentCard,
  inputRequired,
  working,
  type TaskArtifactUpdateEvent,
  type TaskEvent,
  type TaskHandler,
  type TaskStatusUpdateEvent,
} from '../src/index.js';
import { isStatusUpdateEvent } from 'a2a-types';
import { InMemoryTaskStore, type TaskStore } from '../src/store/index.js';
import { appWith, eventually, gate, memoryLogger, resultOf, SubscriptionCountingStore, userText } from './helpers.js';

/** The in-memory store, counting the subscriptions that are open (a decorator, not a mock). */

const pool = serverPool();
afterAll(pool.closeAll);

async function serve(handler: TaskHandler, options = {}) {
  const { app, router } = appWith(handler, options);
  const server = await pool.serve(app);
  return { url: server.url, router };
}

const threeChunks: TaskHandler = async function* () {
  yield working('writing');
  yield artifact('Unit 734 trundled. ', { name: 'story.txt' });
  yield artifact('It found a signal. ', { append: true });
  yield artifact('The end.', { append: true, lastChunk: true });
  yield completed('The story is complete!');
};

const results = (events: { message: { result?: TaskEvent } }[]) => events.map((e) => e.message.result as TaskEvent);

describe('tasks/sendSubscribe', () => {
  test('answers 200 text/event-stream; every event is a JSON-RPC response for the request with an id', async () => {
    const { url } = await serve(threeChunks);
    const stream = await openStream(
      url,
      'tasks/sendSubscribe',
      { id: 'story', message: userText('write') },
      { id: 'req-002', eventIds: true },
    );
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.headers.get('cache-control')).toBe('no-cache');
    const events = await collect(stream);
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const { message } of events) {
      expect(message).toMatchObject({ jsonrpc: '2.0', id: 'req-002' });
      expect(message).not.toHaveProperty('error');
      expect((message as { result: TaskEvent }).result.id).toBe('story');
    }
    const kinds = results(events).map((r) => (isStatusUpdateEvent(r) ? r.status.state : 'artifact'));
    expect(kinds).toEqual(['working', 'working', 'artifact', 'artifact', 'artifact', 'completed']);
  });

  test('exactly one event is final, the last, and the server then ends the response', async () => {
    const { url } = await serve(threeChunks);
    const events = results(await collect(await openStream(url, 'tasks/sendSubscribe', { id: 'final-1', message: userText('x') })));
    const finals = events.filter((e) => isStatusUpdateEvent(e) && e.final === true);
    expect(finals).toHaveLength(1);
    expect(events.at(-1)).toBe(finals[0]);
    expect(
      events
        .filter(isStatusUpdateEvent)
        .slice(0, -1)
        .every((e) => e.final === false),
    ).toBe(true);
  });

  test('input-required is final too', async () => {
    const { url } = await serve(async () => inputRequired('what?'));
    const events = results(await collect(await openStream(url, 'tasks/sendSubscribe', { id: 'ask', message: userText('x') })));
    expect(events.at(-1)).toMatchObject({ status: { state: 'input-required' }, final: true });
  });

  test('artifact chunks carry index/append/lastChunk; tasks/get afterwards has them assembled', async () => {
    const { url } = await serve(threeChunks);
    const events = results(await collect(await openStream(url, 'tasks/sendSubscribe', { id: 'assembled', message: userText('x') })));
    const chunks = events.filter((e): e is TaskArtifactUpdateEvent => 'artifact' in e).map((e) => e.artifact);
    expect(chunks.map((c) => [c.index, c.append ?? false, c.lastChunk ?? false])).toEqual([
      [0, false, false],
      [0, true, false],
      [0, true, true],
    ]);
    const task = resultOf(await rpc(url, 'tasks/get', { id: 'assembled' }));
    expect(task.status.state).toBe('completed');
    expect(task.artifacts).toEqual([
      {
        name: 'story.txt',
        index: 0,
        parts: [
          { type: 'text', text: 'Unit 734 trundled. ' },
          { type: 'text', text: 'It found a signal. ' },
          { type: 'text', text: 'The end.' },
        ],
      },
    ]);
  });

  test('errors on a streaming method come back as JSON-RPC, never as a stream', async () => {
    const { url } = await serve(threeChunks);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tasks/sendSubscribe', params: { id: 7 } }),
      signal: AbortSignal.timeout(5_000),
    });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toMatchObject({ id: 9, error: { code: -32602 } });
  });

  test('a sendSubscribe to a working task is -32009 as JSON', async () => {
    const release = gate();
    const { url } = await serve(
      async () => {
        await release.promise;
        return completed();
      },
      { sendWaitMs: 20 },
    );
    await rpc(url, 'tasks/send', { id: 'busy', message: userText('x') });
    const res = await rpc(url, 'tasks/sendSubscribe', { id: 'busy', message: userText('y') });
    expect(res).toMatchObject({ error: { code: -32009 } });
    release.open();
  });

  test('with streaming off: -32006 for both streaming methods, and the card says so', async () => {
    const { url } = await serve(threeChunks, { streaming: false });
    expect((await rpc(url, 'tasks/sendSubscribe', { id: 's', message: userText('x') })).error?.code).toBe(-32006);
    expect((await rpc(url, 'tasks/resubscribe', { id: 's' })).error?.code).toBe(-32006);
    const card = (await (await fetch(`${url}/.well-known/agent.json`)).json()) as AgentCard;
    expect(card.capabilities.streaming).toBe(false);
  });

  test('sends keep-alive comments while the task is quiet', async () => {
    const release = gate();
    const { url } = await serve(
      async function* () {
        yield working();
        await release.promise;
        yield completed();
      },
      { heartbeatMs: 20 },
    );
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/sendSubscribe', params: { id: 'quiet', message: userText('x') } }),
    });
    const reader = res.body!.getReader();
    let text = '';
    const deadline = Date.now() + 5_000;
    while (!text.includes(': keep-alive') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString();
    }
    expect(text).toContain(': keep-alive\n\n');
    release.open();
    await reader.cancel();
  });

  test('a client that disconnects does not stop the task, and its subscription is released', async () => {
    const progress = gate();
    const release = gate();
    const store = new SubscriptionCountingStore();
    const { url } = await serve(
      async function* () {
        yield working('started');
        progress.open();
        await release.promise;
        yield artifact('finished anyway');
        yield completed();
      },
      { store },
    );
    const stream = await openStream(url, 'tasks/sendSubscribe', { id: 'left', message: userText('x') });
    await collect(stream, { max: 1 });
    await progress.promise;
    expect(store.open).toBe(1);
    stream.abort();
    await eventually(async () => (store.open === 0 ? true : undefined));
    release.open();
    const task = await eventually(async () => {
      const t = resultOf(await rpc(url, 'tasks/get', { id: 'left' }));
      return t.status.state === 'completed' ? t : undefined;
    });
    expect(task.artifacts?.[0]?.parts).toEqual([{ type: 'text', text: 'finished anyway' }]);
    await store.close();
  });

  test('a client that leaves while its stream is being prepared: the stream is released and logged, not kept forever', async () => {
    // A store whose reads wait (as Redis or an ownership check does), so the client can leave first.
    class SlowReadStore extends SubscriptionCountingStore {
      entered = gate();
      proceed = gate();
      slow = false;
      override async get(...args: Parameters<TaskStore['get']>) {
        if (this.slow) {
          this.entered.open();
          await this.proceed.promise;
        }
        return super.get(...args);
      }
    }
    const store = new SlowReadStore();
    const { logger, lines } = memoryLogger();
    const { app } = appWith(
      async function* () {
        yield inputRequired('more?');
      },
      { store, logger },
    );
    let closed = 0;
    const watched = express().use((_req, res, next) => {
      res.on('close', () => closed++);
      next();
    }, app);
    const url = (await pool.serve(watched)).url;
    resultOf(await rpc(url, 'tasks/send', { id: 'prepared', message: userText('x') }));
    const closedBefore = closed;
    store.slow = true;
    const leaving = new AbortController();
    const request = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: 'prepared' } }),
      signal: leaving.signal,
    }).catch(() => undefined);
    await store.entered.promise;
    expect(store.open).toBe(1);
    leaving.abort();
    await request;
    await eventually(async () => (closed > closedBefore ? true : undefined));
    store.proceed.open();
    await eventually(async () => (store.open === 0 ? true : undefined));
    const logged = await eventually(async () => lines().find((l) => l.method === 'tasks/resubscribe'));
    expect(logged).toMatchObject({ msg: 'a2a call', stream: 'client-closed', events: 0 });
    await store.close();
  });

  test('a long stream arrives whole and in order (2,000 chunks)', async () => {
    const count = 2_000;
    const { url } = await serve(async function* () {
      for (let i = 0; i < count; i++) yield artifact(`${i},`, { index: 0, append: i > 0, lastChunk: i === count - 1 });
      yield completed();
    });
    const events = await collect(await openStream(url, 'tasks/sendSubscribe', { id: 'long', message: userText('x') }, { eventIds: true }), {
      timeoutMs: 15_000,
    });
    const texts = results(events)
      .filter((e): e is TaskArtifactUpdateEvent => 'artifact' in e)
      .map((e) => (e.artifact.parts[0] as { text: string }).text);
    expect(texts).toEqual(Array.from({ length: count }, (_, i) => `${i},`));
    const ids = events.map((e) => Number(e.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('a handler yielding chunks in a tight loop does not overflow a reading client’s stream', async () => {
    // 20,000 chunks (about 2.5 MB of frames) against a 64 KiB queue: the stream holds only
    // because the turn lets the event loop run between bursts, so the socket drains as it goes.
    const count = 20_000;
    const { logger, lines } = memoryLogger();
    const { url } = await serve(
      async function* () {
        for (let i = 0; i < count; i++) yield artifact(`${i},`, { index: 0, append: i > 0 });
        yield completed();
      },
      { maxStreamQueueBytes: 64 * 1024, logger },
    );
    const events = await collect(
      await openStream(url, 'tasks/sendSubscribe', { id: 'tight', message: userText('x') }, { eventIds: true }),
      { timeoutMs: 15_000 },
    );
    expect(events).toHaveLength(count + 2);
    expect(events.map((e) => Number(e.id))).toEqual(Array.from({ length: count + 2 }, (_, i) => i + 1));
    const streamLine = await eventually(async () => lines().find((l) => l.method === 'tasks/sendSubscribe'));
    expect(streamLine).toMatchObject({ taskId: 'tight', stream: 'ended', events: count + 2 });
  });

  test('a client that stops reading is cut once its queue is full; the task is not held up', async () => {
    const big = 'x'.repeat(64 * 1024);
    const { logger, lines } = memoryLogger();
    const { url } = await serve(
      async function* () {
        for (let i = 0; i < 200; i++) yield artifact(big, { index: 0, append: i > 0 });
        yield completed();
      },
      { maxStreamQueueBytes: 256 * 1024, logger },
    );
    // Open the stream and never read it: the socket fills, then the server's queue.
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/sendSubscribe', params: { id: 'stalled', message: userText('x') } }),
    });
    expect(res.status).toBe(200);
    const task = await eventually(async () => {
      const t = resultOf(await rpc(url, 'tasks/get', { id: 'stalled' }));
      return t.status.state === 'completed' ? t : undefined;
    }, 10_000);
    expect(task.artifacts?.[0]?.parts).toHaveLength(200);
    const streamLine = await eventually(async () => lines().find((l) => l.method === 'tasks/sendSubscribe'));
    expect(streamLine).toMatchObject({ taskId: 'stalled', stream: 'overflow' });
    expect(streamLine.events as number).toBeLessThan(201);
    await res.body?.cancel().catch(() => undefined);
  });
});

describe('tasks/resubscribe', () => {
  test('an unknown task is -32001', async () => {
    const { url } = await serve(threeChunks);
    expect((await rpc(url, 'tasks/resubscribe', { id: 'ghost' })).error?.code).toBe(-32001);
  });

  test('a finished task: its final status as one final event, then the end', async () => {
    const { url } = await serve(threeChunks);
    await rpc(url, 'tasks/send', { id: 'done', message: userText('x') });
    const events = await collect(await openStream(url, 'tasks/resubscribe', { id: 'done' }, { id: 'again' }));
    expect(events).toHaveLength(1);
    expect(events[0]!.message).toMatchObject({ id: 'again', result: { id: 'done', status: { state: 'completed' }, final: true } });
  });

  test('a running task: its current status, then every later event, then the final one', async () => {
    const step = [gate(), gate()];
    const { url } = await serve(
      async function* () {
        yield working('step 0');
        await step[0]!.promise;
        yield artifact('a');
        await step[1]!.promise;
        yield artifact('b', { append: true, lastChunk: true });
        yield completed();
      },
      { sendWaitMs: 20 },
    );
    await rpc(url, 'tasks/send', { id: 'running', message: userText('x') });
    const stream = await openStream(url, 'tasks/resubscribe', { id: 'running' });
    const reading = collect(stream);
    await sleep(30);
    step[0]!.open();
    await sleep(30);
    step[1]!.open();
    const events = results(await reading);
    expect(events[0]).toMatchObject({ status: { state: 'working', message: { parts: [{ text: 'step 0' }] } }, final: false });
    expect(
      events
        .slice(1)
        .map((e) => ('artifact' in e ? (e.artifact.parts[0] as { text: string }).text : (e as TaskStatusUpdateEvent).status.state)),
    ).toEqual(['a', 'b', 'completed']);
    expect(events.filter((e) => isStatusUpdateEvent(e) && e.final)).toHaveLength(1);
  });

  test('with Last-Event-ID: exactly the events missed, in order, no duplicates, then the final one', async () => {
    const steps = Array.from({ length: 5 }, () => gate());
    const { url } = await serve(async function* () {
      yield working();
      for (let i = 0; i < 5; i++) {
        await steps[i]!.promise;
        yield artifact(`chunk ${i}`, { index: 0, append: i > 0, lastChunk: i === 4 });
      }
      yield completed();
    });
    const first = await openStream(url, 'tasks/sendSubscribe', { id: 'resume', message: userText('x') }, { eventIds: true });
    steps[0]!.open();
    const seen = await collect(first, { max: 2 });
    first.abort();
    const lastSeen = seen.at(-1)!.id!;
    for (const step of steps.slice(1)) step.open();
    await eventually(async () => (resultOf(await rpc(url, 'tasks/get', { id: 'resume' })).status.state === 'completed' ? true : undefined));
    const second = await openStream(url, 'tasks/resubscribe', { id: 'resume' }, { headers: { 'Last-Event-ID': lastSeen } });
    const rest = await collect(second);
    const allIds = [...seen, ...rest].map((e) => Number(e.id));
    expect(allIds).toEqual(Array.from({ length: allIds.length }, (_, i) => i + 1));
    const texts = results([...seen, ...rest]).flatMap((e) => ('artifact' in e ? [(e.artifact.parts[0] as { text: string }).text] : []));
    expect(texts).toEqual(['chunk 0', 'chunk 1', 'chunk 2', 'chunk 3', 'chunk 4']);
    expect(results(rest).at(-1)).toMatchObject({ status: { state: 'completed' }, final: true });
  });

  test('a Last-Event-ID that is not an event id of the task is -32602', async () => {
    const { url } = await serve(threeChunks);
    await rpc(url, 'tasks/send', { id: 'ids', message: userText('x') });
    for (const header of ['abc', '-1', '999']) {
      const res = await rpc(url, 'tasks/resubscribe', { id: 'ids' }, { headers: { 'Last-Event-ID': header } });
      expect(res.error?.code).toBe(-32602);
    }
  });

  test('when the bounded log no longer reaches back, the client gets the current state whole', async () => {
    const store = new InMemoryTaskStore({ maxEventsPerTask: 3 });
    const { url } = await serve(
      async function* () {
        for (let i = 0; i < 6; i++) yield artifact(`${i}`, { index: 0, append: i > 0 });
        yield completed();
      },
      { store },
    );
    await rpc(url, 'tasks/send', { id: 'trimmed', message: userText('x') });
    const events = results(
      await collect(await openStream(url, 'tasks/resubscribe', { id: 'trimmed' }, { headers: { 'Last-Event-ID': '1' } })),
    );
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ artifact: { index: 0, append: false } });
    expect((events[0] as TaskArtifactUpdateEvent).artifact.parts.map((p) => (p as { text: string }).text).join('')).toBe('012345');
    expect(events[1]).toMatchObject({ status: { state: 'completed' }, final: true });
    await store.close();
  });
});
