// Streams are bounded per task and per principal (or client address): each holds a connection and
// a file descriptor, and nothing else stops a client from opening as many as the process has.
// A refused stream is -32011 in each version's terms; a stream that closes frees its place, so
// the replay from Last-Event-ID keeps working, whichever way the stream ended. SSE and gRPC streams
// count against one holder.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { serveGrpc } from '../src/grpc.js';
import * as grpc from '@grpc/grpc-js';
import { serverPool } from 'a2a-testing';
import { grpcClientDefinition } from 'a2a-types/v1.0/grpc';
import { InMemoryTaskStore, type TaskStore } from '../src/store/index.js';
import { errorInfoOf, grpcAgents, unary, type GrpcClient } from './grpc-agents.js';
import { appWith, gate, message03, message10, twoChunkEcho } from './helpers.js';

const { serve, closeAll } = serverPool();
const agents = grpcAgents();
afterAll(async () => {
  await agents.close();
  await closeAll();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field.
type Json = Record<string, any>;
const V1 = { 'a2a-version': '1.0' };

/** An open SSE stream whose first event has arrived, and a way to drop it. */
interface OpenStream {
  readonly first: string;
  close(): void;
}

/** Opens a stream and reads up to its first event; an answer that is not a stream is returned as it came. */
async function openStream(url: string, init: RequestInit): Promise<OpenStream | { status: number; body: Json }> {
  const controller = new AbortController();
  const response = await fetch(url, { ...init, signal: controller.signal });
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    return { status: response.status, body: (await response.json()) as Json };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (let i = 0; i < 100 && !text.includes('\n\n'); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return { first: text, close: () => controller.abort() };
}

const subscribe10 = (base: string, taskId: string, headers: Record<string, string> = {}) =>
  openStream(`${base}/v1/tasks/${taskId}:subscribe`, { method: 'GET', headers: { ...V1, accept: 'text/event-stream', ...headers } });

const resubscribe03 = (base: string, taskId: string) =>
  openStream(`${base}/v0.3`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: taskId } }),
  });

/** The JSON-RPC error of a refused 0.3 stream, whether it came as a body or as the stream's one event. */
function rpcErrorOf(answer: OpenStream | { status: number; body: Json }): Json | undefined {
  if ('body' in answer) return answer.body.error;
  const data = /^data: (.*)$/m.exec(answer.first)?.[1];
  return data ? (JSON.parse(data) as Json).error : undefined;
}

test('a task takes so many streams, a client so many over all its tasks; -32011 past that (503 over HTTP+JSON), and a stream that closes frees its place for a replay', async () => {
  let hold = gate();
  const { app } = appWith(
    twoChunkEcho(() => hold.promise),
    { maxStreamsPerTask: 2, maxStreamsPerPrincipal: 3 },
  );
  const base = (await serve(app)).url;
  /** A task that waits for `hold` before its chunks, started without waiting for it. */
  const startTask = async () => {
    const response = await fetch(`${base}/v1/message:send`, {
      method: 'POST',
      headers: { ...V1, 'content-type': 'application/json' },
      body: JSON.stringify({ message: message10('wait'), configuration: { returnImmediately: true } }),
    });
    return ((await response.json()) as Json).task.id as string;
  };
  const taskA = await startTask();
  const first = (await subscribe10(base, taskA)) as OpenStream;
  const second = (await subscribe10(base, taskA)) as OpenStream;
  expect(first.first).toContain(taskA);
  expect(second.first).toContain(taskA);

  // A third stream on the same task: refused in each version's terms.
  const refused10 = await subscribe10(base, taskA);
  expect(refused10).toMatchObject({ status: 503, body: { error: { code: 503, status: 'UNAVAILABLE' } } });
  expect(JSON.stringify(refused10)).toContain('maxStreamsPerTask');
  expect(rpcErrorOf(await resubscribe03(base, taskA))).toMatchObject({ code: -32011 });
  const sent03 = await openStream(`${base}/v0.3`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'message/stream', params: { message: message03('more', { taskId: taskA }) } }),
  });
  expect(rpcErrorOf(sent03)).toMatchObject({ code: -32011 });

  // One stream drops; the client comes back with Last-Event-ID and gets what it missed.
  first.close();
  let replay: OpenStream | { status: number; body: Json } | undefined;
  for (let i = 0; i < 50; i++) {
    replay = await subscribe10(base, taskA, { 'last-event-id': '0' });
    if ('first' in replay) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(replay && 'first' in replay).toBe(true);
  expect((replay as OpenStream).first).toMatch(/^id: \d+$/m);

  // The client holds two streams on task A; one more on task B makes three, and a fourth is refused.
  const taskB = await startTask();
  const onB = (await subscribe10(base, taskB)) as OpenStream;
  expect(onB.first).toContain(taskB);
  const overClient = await subscribe10(base, taskB);
  expect(overClient).toMatchObject({ status: 503 });
  expect(JSON.stringify(overClient)).toContain('maxStreamsPerPrincipal');

  // Once the tasks end, their streams end and every place is free again.
  hold.open();
  hold = gate();
  second.close();
  (replay as OpenStream).close();
  onB.close();
  const taskC = await startTask();
  const again: OpenStream[] = [];
  for (let i = 0; i < 50 && again.length < 2; i++) {
    const answer = await subscribe10(base, taskC);
    if ('first' in answer) again.push(answer);
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(again).toHaveLength(2);
  for (const stream of again) stream.close();
  hold.open();
});

test('the stream bounds are options with positive whole numbers', () => {
  expect(() =>
    appWith(
      twoChunkEcho(async () => undefined),
      { maxStreamsPerTask: 0 },
    ),
  ).toThrow(/maxStreamsPerTask/);
  expect(() =>
    appWith(
      twoChunkEcho(async () => undefined),
      { maxStreamsPerPrincipal: -1 },
    ),
  ).toThrow(/maxStreamsPerPrincipal/);
});

/** An in-memory store whose subscriptions wait, while held, until released: a stream held between its request and its start. */
class HeldSubscriptions extends InMemoryTaskStore {
  waiting = 0;
  private held: ReturnType<typeof gate> | undefined;

  hold(): void {
    this.held = gate();
  }

  release(): void {
    this.held?.open(undefined);
    this.held = undefined;
  }

  override async subscribe(...args: Parameters<TaskStore['subscribe']>) {
    if (this.held) {
      this.waiting++;
      await this.held.promise;
      this.waiting--;
    }
    return super.subscribe(...args);
  }
}

/** A gRPC SubscribeToTask: its first message, or the error it ended with; and the call, to cancel it. */
function grpcSubscribe(
  client: GrpcClient,
  taskId: string,
): { call: grpc.ClientReadableStream<Json>; first: Promise<Json | grpc.ServiceError> } {
  const metadata = new grpc.Metadata();
  metadata.set('a2a-version', '1.0');
  const call = client.subscribeToTask!({ id: taskId }, metadata) as grpc.ClientReadableStream<Json>;
  const first = new Promise<Json | grpc.ServiceError>((resolve) => {
    call.once('data', resolve);
    call.on('error', resolve);
  });
  return { call, first };
}

/** A task waiting for input: it has no final event to come, so its streams stay open until their clients leave. */
async function inputRequiredTask(client: GrpcClient): Promise<string> {
  const sent = await unary(client, 'sendMessage', { message: message10('?') }, V1);
  return (sent.value as Json).task.id as string;
}

/** `attempt` again every 20 ms until it gives a stream, 50 times at most; the last answer. */
async function untilStreamed<T>(attempt: () => Promise<T>, streamed: (answer: T) => boolean): Promise<T> {
  let answer = await attempt();
  for (let i = 0; i < 50 && !streamed(answer); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    answer = await attempt();
  }
  return answer;
}

test('a gRPC stream cancelled before it starts frees its place: after many, a new subscriber gets its stream over gRPC and over SSE', async () => {
  const store = new HeldSubscriptions();
  const { url, client, address } = await agents.agent(
    twoChunkEcho(async () => undefined),
    { store, maxStreamsPerTask: 3 },
  );
  const taskId = await inputRequiredTask(client);

  // As the probe did: calls reset (RST_STREAM) right after their request, over raw HTTP/2.
  const session = connect(`http://${address}`);
  const request = Buffer.from(grpcClientDefinition().subscribeToTask!.requestSerialize({ id: taskId }));
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), request]);
  framed.writeUInt32BE(request.length, 1);
  const resets = Array.from({ length: 200 }, () => {
    const stream = session.request({
      ':method': 'POST',
      ':path': '/lf.a2a.v1.A2AService/SubscribeToTask',
      'content-type': 'application/grpc',
      te: 'trailers',
      'a2a-version': '1.0',
    });
    stream.end(framed);
    stream.close(constants.NGHTTP2_CANCEL);
    return new Promise((resolve) => stream.on('close', resolve));
  });
  await Promise.all(resets);
  session.close();
  // Then calls cancelled while the server prepares their stream (the store's subscription), each
  // surely past the point where the server has taken its place.
  for (let round = 0; round < 3; round++) {
    store.hold();
    const calls = [0, 1, 2].map(() => grpcSubscribe(client, taskId));
    for (let i = 0; i < 100 && store.waiting < 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(store.waiting).toBe(3);
    for (const { call } of calls) call.cancel();
    // A call on the same connection after the cancels: its answer comes after the server read them.
    await unary(client, 'getTask', { id: taskId }, V1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    store.release();
    for (const { first } of calls) expect((await first) as grpc.ServiceError).toMatchObject({ code: grpc.status.CANCELLED });
  }

  const overGrpc = await untilStreamed(
    async () => grpcSubscribe(client, taskId),
    () => true,
  );
  expect(await overGrpc.first).toHaveProperty('task.id', taskId);
  const overSse = await untilStreamed(
    () => subscribe10(url, taskId),
    (answer) => 'first' in answer,
  );
  expect('first' in overSse && overSse.first).toContain(taskId);
  overGrpc.call.cancel();
  if ('first' in overSse) overSse.close();
});

test('an SSE client that leaves before its stream starts frees its place', async () => {
  const store = new HeldSubscriptions();
  const { url, client } = await agents.agent(
    twoChunkEcho(async () => undefined),
    { store, maxStreamsPerTask: 2 },
  );
  const taskId = await inputRequiredTask(client);
  store.hold();
  const leaving = [0, 1].map(() => {
    const controller = new AbortController();
    const answer = fetch(`${url}/v1/tasks/${taskId}:subscribe`, {
      headers: { ...V1, accept: 'text/event-stream' },
      signal: controller.signal,
    }).catch((error: Error) => error);
    return { controller, answer };
  });
  for (let i = 0; i < 100 && store.waiting < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(store.waiting).toBe(2);
  for (const { controller } of leaving) controller.abort();
  for (const { answer } of leaving) expect(await answer).toHaveProperty('name', 'AbortError');
  store.release();

  const streams: OpenStream[] = [];
  for (let i = 0; i < 50 && streams.length < 2; i++) {
    const answer = await subscribe10(url, taskId);
    if ('first' in answer) streams.push(answer);
    else await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(streams).toHaveLength(2);
  for (const stream of streams) stream.close();
});

test('without auth, a client address holds so many streams over SSE and every gRPC connection together', async () => {
  const { url, client, address } = await agents.agent(
    twoChunkEcho(async () => undefined),
    { maxStreamsPerPrincipal: 4 },
  );
  const taskId = await inputRequiredTask(client);
  // Four streams from 127.0.0.1: two on one gRPC connection, one on another, one over SSE.
  const [second, third] = [agents.client(address), agents.client(address)];
  const held = [grpcSubscribe(client, taskId), grpcSubscribe(client, taskId), grpcSubscribe(second, taskId)];
  for (const { first } of held) expect(await first).toHaveProperty('task.id', taskId);
  const sse = await subscribe10(url, taskId);
  expect('first' in sse).toBe(true);

  // A fifth, on a gRPC connection of its own or over SSE: refused, as the client's fifth.
  const overGrpc = grpcSubscribe(third, taskId);
  const refused = (await overGrpc.first) as grpc.ServiceError;
  expect(refused.code).toBe(grpc.status.UNAVAILABLE);
  expect(JSON.stringify(errorInfoOf(refused))).toContain('maxStreamsPerPrincipal');
  const overSse = await subscribe10(url, taskId);
  expect(overSse).toMatchObject({ status: 503 });
  expect(JSON.stringify(overSse)).toContain('maxStreamsPerPrincipal');

  // One gRPC stream ends: its place is the SSE client's (the same address) again.
  held[0]!.call.cancel();
  const again = await untilStreamed(
    () => subscribe10(url, taskId),
    (answer) => 'first' in answer,
  );
  expect('first' in again).toBe(true);
  for (const { call } of held.slice(1)) call.cancel();
  for (const stream of [sse, again]) if ('first' in stream) stream.close();
});

// A guard: grpc-js names an IPv6 peer `::1:port` (no brackets), so its address without the port is
// what Express's req.ip says over SSE. Had it bracketed it, the two would be counted apart.
test('over IPv6 as over IPv4, one client address: its gRPC peer (::1:port) and its SSE address (::1) count together', async () => {
  const { app, router } = appWith(
    twoChunkEcho(async () => undefined),
    { maxStreamsPerPrincipal: 2 },
  );
  const http = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, '::1', resolve));
  const url = `http://[::1]:${(http.address() as AddressInfo).port}`;
  const grpcServer = await serveGrpc(router, { host: '::1', port: 0, agentUrl: url });
  try {
    const client = agents.client(grpcServer.address);
    const taskId = await inputRequiredTask(client);
    const held = grpcSubscribe(client, taskId);
    expect(await held.first).toHaveProperty('task.id', taskId);
    const sse = await subscribe10(url, taskId);
    expect('first' in sse).toBe(true);
    // The client's third stream, whichever binding: refused.
    const third = await subscribe10(url, taskId);
    expect(third).toMatchObject({ status: 503 });
    held.call.cancel();
    if ('first' in sse) sse.close();
  } finally {
    await grpcServer.close({ graceMs: 100 });
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await router.close();
  }
});

/** The HTTP/2 settings the gRPC server at `address` announces to a client. */
async function announcedSettings(address: string): Promise<ClientHttp2Session['remoteSettings']> {
  const session = connect(`http://${address}`);
  try {
    return await new Promise((resolve, reject) => {
      session.once('remoteSettings', resolve);
      session.once('error', reject);
    });
  } finally {
    session.close();
  }
}

test('a gRPC connection takes so many calls at once (maxConcurrentStreams, default 100); a further one waits for one to end', async () => {
  const byDefault = await agents.agent(twoChunkEcho(async () => undefined));
  expect((await announcedSettings(byDefault.address)).maxConcurrentStreams).toBe(100);

  const { client, address } = await agents.agent(
    twoChunkEcho(async () => undefined),
    {},
    { maxConcurrentStreams: 2 },
  );
  expect((await announcedSettings(address)).maxConcurrentStreams).toBe(2);
  const taskId = await inputRequiredTask(client);
  const open = [grpcSubscribe(client, taskId), grpcSubscribe(client, taskId)];
  for (const { first } of open) expect(await first).toHaveProperty('task.id', taskId);
  const waiting = grpcSubscribe(client, taskId);
  let answered = false;
  void waiting.first.then(() => (answered = true));
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(answered).toBe(false);
  open[0]!.call.cancel();
  expect(await waiting.first).toHaveProperty('task.id', taskId);
  open[1]!.call.cancel();
  waiting.call.cancel();

  await expect(
    agents.agent(
      twoChunkEcho(async () => undefined),
      {},
      { maxConcurrentStreams: 0 },
    ),
  ).rejects.toThrow(/maxConcurrentStreams/);
});
