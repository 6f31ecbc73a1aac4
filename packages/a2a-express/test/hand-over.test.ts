// Hand-over on deploy (#55), on both shared stores: a replica that drains with resume on lets its
// running turn go rather than fail it, its stream ends after the hand-over's event telling the
// client to come back, and another replica takes the turn over at once (the lease is a minute
// long: waiting for it would time the test out) and goes on from its checkpoint. The echo agent's
// rolling-restart test does the same with real processes, under load.
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { collect, listen, openStream, sharedStores, within, type RunningServer, type SharedStoreData } from 'a2a-testing';
import {
  a2aMetrics,
  a2aRouter,
  artifact,
  completed,
  withCheckpoint,
  type A2ARouter,
  type A2ARouterOptions,
  type TaskHandler,
  type TurnResumed,
} from '../src/index.js';
import { grpcClientDefinition } from 'a2a-types/v1.0/grpc';
import { HAND_OVER_METADATA_KEY } from '../src/core/task-engine.js';
import { serveGrpc, type A2AGrpcServer } from '../src/grpc.js';
import { PostgresTaskStore } from '../src/postgres.js';
import { RedisTaskStore } from '../src/redis.js';
import type { SharedTaskStore } from '../src/store/index.js';
import { eventually, memoryLogger, silent, testCard, userText } from './helpers.js';

/** Far longer than the test may take: a turn taken over only once its lease ran out would time it out. */
const leaseMs = 60_000;

const { kinds } = sharedStores<SharedTaskStore>('hand-over', {
  leaseMs,
  make: {
    redis: (options) => new RedisTaskStore(options),
    postgres: (options) => new PostgresTaskStore({ ...options, maxConnections: 3 }),
  },
});

type Json = Record<string, unknown>;
const A2AGrpcClient = grpc.makeGenericClientConstructor(grpcClientDefinition() as grpc.ServiceDefinition, 'A2AService');

/** A server stream's messages, and how it ended: its error status, or undefined for OK. */
function readGrpcStream(call: grpc.ClientReadableStream<Json>): { messages: Json[]; ended: Promise<grpc.ServiceError | undefined> } {
  const messages: Json[] = [];
  const ended = new Promise<grpc.ServiceError | undefined>((resolve) => {
    call.on('data', (message: Json) => messages.push(message));
    call.on('error', resolve);
    call.on('end', () => resolve(undefined));
  });
  return { messages, ended };
}

function grpcMetadata(entries: Record<string, string>): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return metadata;
}

/** One SSE block as written: its fields in order (a trailing block without a blank line included). */
function sseBlocks(text: string): { field: string; value: string }[][] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) =>
      block
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith(':'))
        .map((line) => {
          const at = line.indexOf(':');
          return { field: line.slice(0, at), value: line.slice(at + 1).trimStart() };
        }),
    );
}

describe.each(kinds)('hand-over on drain on $name', (kind) => {
  let shared: SharedStoreData<SharedTaskStore>;
  const routers: A2ARouter[] = [];
  const servers: RunningServer[] = [];
  const grpcServers: A2AGrpcServer[] = [];
  const grpcClients: grpc.Client[] = [];

  /** A replica's gRPC server, and a client of it. */
  async function grpcOf(router: A2ARouter, url: string) {
    const server = await serveGrpc(router, { port: 0, agentUrl: url });
    grpcServers.push(server);
    const client = new A2AGrpcClient(server.address, grpc.credentials.createInsecure()) as grpc.Client &
      Record<string, (request: Json, metadata: grpc.Metadata) => grpc.ClientReadableStream<Json>>;
    grpcClients.push(client);
    return client;
  }

  /** A replica: its own store client and router on a loopback server. */
  async function replica(handler: TaskHandler, options: Partial<A2ARouterOptions>) {
    const store = shared.make();
    const router = a2aRouter(handler, { card: testCard, logger: silent, store, ...options });
    routers.push(router);
    const server = await listen(express().use(router));
    servers.push(server);
    return { store, router, url: server.url };
  }

  beforeAll(async () => {
    shared = await kind.open();
  });
  afterAll(async () => {
    for (const client of grpcClients) client.close();
    await Promise.all(grpcServers.map((server) => server.close({ graceMs: 0 })));
    await Promise.all(routers.map((router) => router.close()));
    await Promise.all(servers.map((server) => server.close()));
    await shared.cleanup();
  });

  test('a drained replica hands its running turn over: its stream ends after the hand-over event with an SSE retry, another replica takes the turn at once with ctx.resumed.reason "hand-over" (not counted against maxAttempts: 1), and the stream resumed there with Last-Event-ID ends completed', async () => {
    const taskId = 'handed-over-task';
    const runs: { replica: string; resumed: TurnResumed | undefined; aborted?: boolean }[] = [];
    /** One chunk and its checkpoint, then waits (the first run), or the rest of the answer (a resumed run). */
    const handlerOf = (name: string): TaskHandler =>
      async function* (ctx) {
        const run: (typeof runs)[number] = { replica: name, resumed: ctx.resumed };
        runs.push(run);
        try {
          if (!ctx.resumed) {
            yield withCheckpoint(artifact('one ', { name: 'words' }), { wordsSent: 1 });
            await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
            return;
          }
          yield withCheckpoint(artifact('two', { append: true, lastChunk: true }), { wordsSent: 2 });
          yield completed();
        } finally {
          run.aborted = ctx.signal.aborted;
        }
      };
    // maxAttempts 1: a turn lost with its process would be failed at once, not resumed.
    const options = { onInterrupted: 'resume', maxAttempts: 1 } as const;
    const draining = await replica(handlerOf('draining'), options);
    const { logger, lines } = memoryLogger();
    const metrics = a2aMetrics();
    const other = await replica(handlerOf('other'), { ...options, logger, metrics });

    const response = await fetch(draining.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', prefer: 'sse-event-ids' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/sendSubscribe', params: { id: taskId, message: userText('one two') } }),
    });
    const body = response.text();
    await eventually(async () => ((await draining.store.get(taskId))?.checkpoint ? true : undefined));

    expect(await draining.router.drain({ deadlineMs: 50 })).toEqual({ finished: 0, stopped: 0, handedOver: 1 });
    // The first run was aborted before its turn was let go.
    expect(runs[0]).toEqual({ replica: 'draining', resumed: undefined, aborted: true });

    // The draining replica's stream ends with the hand-over's event (not final), then a retry field.
    const blocks = sseBlocks(await within(body, 5_000, 'the drained stream to end'));
    const events = blocks.filter((block) => block.some(({ field }) => field === 'data'));
    const last = events.at(-1)!;
    expect(JSON.parse(last.find(({ field }) => field === 'data')!.value).result).toMatchObject({
      id: taskId,
      status: { state: 'working' },
      final: false,
      metadata: { [HAND_OVER_METADATA_KEY]: { attempt: 2 } },
    });
    expect(blocks.at(-1)!.map(({ field }) => field)).toEqual(['retry']);
    const lastSeenId = last.find(({ field }) => field === 'id')!.value;

    // The other replica took it at once, from the checkpoint.
    await eventually(async () => (runs.length === 2 ? true : undefined), 5_000);
    expect(runs[1]!.replica).toBe('other');
    expect(runs[1]!.resumed).toEqual({ attempt: 2, reason: 'hand-over', checkpoint: { wordsSent: 1 } });

    // Resumed there from the last id seen: the rest once, then the final event.
    const resumed = await openStream(other.url, 'tasks/resubscribe', { id: taskId }, { headers: { 'Last-Event-ID': lastSeenId } });
    const rest = await collect(resumed, { timeoutMs: 5_000 });
    const ids = [...events.map((block) => Number(block.find(({ field }) => field === 'id')!.value)), ...rest.map((e) => Number(e.id))];
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(rest.map((e) => e.message.result)).toEqual([
      expect.objectContaining({ artifact: expect.objectContaining({ parts: [{ type: 'text', text: 'two' }], append: true }) }),
      expect.objectContaining({ final: true, status: expect.objectContaining({ state: 'completed' }) }),
    ]);
    const task = (await other.store.get(taskId))!;
    expect(task.task.status.state).toBe('completed');
    expect(task.task.artifacts?.[0]?.parts).toEqual([
      { type: 'text', text: 'one ' },
      { type: 'text', text: 'two' },
    ]);

    // Logged once, and counted, by the replica that took it.
    expect(lines().filter((line) => line.msg === 'task resumed here: the replica running it handed it over as it stopped')).toEqual([
      expect.objectContaining({ taskId, attempt: 2 }),
    ]);
    expect(await metrics.registry.metrics()).toMatch(/^a2a_turns_interrupted_total\{action="resumed",reason="hand-over"\} 1$/m);
  });

  test('over gRPC: the drained replica ends the stream with UNAVAILABLE and the last event id in its trailer, and SubscribeToTask on another replica with that id as last-event-id goes on from there to completed', async () => {
    const handler: TaskHandler = async function* (ctx) {
      if (!ctx.resumed) {
        yield withCheckpoint(artifact('one ', { name: 'words' }), { wordsSent: 1 });
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        return;
      }
      yield withCheckpoint(artifact('two', { append: true, lastChunk: true }), { wordsSent: 2 });
      yield completed();
    };
    const options = { onInterrupted: 'resume' } as const;
    const draining = await replica(handler, options);
    const other = await replica(handler, options);
    const drainingClient = await grpcOf(draining.router, draining.url);
    const otherClient = await grpcOf(other.router, other.url);
    const V1 = { 'a2a-version': '1.0' };

    const first = readGrpcStream(
      drainingClient.sendStreamingMessage!(
        { message: { messageId: 'grpc-hand-over', role: 'ROLE_USER', parts: [{ text: 'one two' }] } },
        grpcMetadata(V1),
      ),
    );
    // The task, then its first chunk.
    await eventually(async () => (first.messages.length >= 2 ? true : undefined));
    const taskId = (first.messages[0] as { task: { id: string } }).task.id;
    await eventually(async () => ((await draining.store.get(taskId))?.checkpoint ? true : undefined));
    expect(await draining.router.drain({ deadlineMs: 50 })).toEqual({ finished: 0, stopped: 0, handedOver: 1 });

    const status = await within(first.ended, 5_000, 'the drained gRPC stream to end');
    expect(status?.code).toBe(grpc.status.UNAVAILABLE);
    expect(first.messages.at(-1)).toMatchObject({
      statusUpdate: { status: { state: 'TASK_STATE_WORKING' }, metadata: { [HAND_OVER_METADATA_KEY]: { attempt: 2 } } },
    });
    // The trailer's id is the hand-over event's. (Not the task's last id now: the other replica
    // may already have gone on with it.)
    const [lastEventId] = status!.metadata.get('last-event-id');
    const [handOverEvent] = (await draining.store.eventsAfter(taskId, Number(lastEventId) - 1))!;
    expect(handOverEvent).toMatchObject({ id: Number(lastEventId), event: { metadata: { [HAND_OVER_METADATA_KEY]: { attempt: 2 } } } });

    const rest = readGrpcStream(
      otherClient.subscribeToTask!({ id: taskId }, grpcMetadata({ ...V1, 'last-event-id': String(lastEventId) })),
    );
    expect(await within(rest.ended, 5_000, 'the resumed gRPC stream to end')).toBeUndefined();
    expect(rest.messages).toEqual([
      expect.objectContaining({
        artifactUpdate: expect.objectContaining({ artifact: expect.objectContaining({ parts: [{ text: 'two' }] }) }),
      }),
      expect.objectContaining({
        statusUpdate: expect.objectContaining({ status: expect.objectContaining({ state: 'TASK_STATE_COMPLETED' }) }),
      }),
    ]);
  });

  test('with onInterrupted "fail" (the default) a drain on a shared store fails the turns still running, as before', async () => {
    const taskId = 'failed-on-drain';
    const draining = await replica(async function* (ctx) {
      yield artifact('one ');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    }, {});
    const stream = await openStream(draining.url, 'tasks/sendSubscribe', { id: taskId, message: userText('one two') });
    await eventually(async () => ((await draining.store.get(taskId))?.task.artifacts ? true : undefined));
    expect(await draining.router.drain({ deadlineMs: 50 })).toEqual({ finished: 0, stopped: 1 });
    const events = await collect(stream, { timeoutMs: 5_000 });
    expect(events.at(-1)!.message.result).toMatchObject({ final: true, status: { state: 'failed' } });
  });
});
