// A client that opens a stream and never reads costs the agent what the stream holds for it, and no
// more than `maxStreamQueueBytes`: over SSE and gRPC alike, the first event (a subscription's task,
// which may alone be larger than the bound) counts, and a stream that stays behind is cut, letting
// go of what it held and of its task's feed. The clients here are raw sockets and HTTP/2 streams
// that never read, so what is bounded is the server's side, not a client library's buffer.
import { connect as connectHttp2, constants, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { connect as connectTcp, type Socket } from 'node:net';
import { grpcClientDefinition } from 'a2a-types/v1.0/grpc';
import { artifact, completed, inputRequired, textOf, type TaskHandler } from '../src/index.js';
import { grpcAgents, unary } from './grpc-agents.js';
import { gate, memoryLogger, message10, SubscriptionCountingStore } from './helpers.js';

const agents = grpcAgents();
const sockets: (Socket | ClientHttp2Session)[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await agents.close();
});

const V1 = { 'a2a-version': '1.0' };
const BOUND = 64 * 1024;
const TASK_CHARACTERS = 8 * 1024 * 1024;

/**
 * `large` makes a task of 8 MiB that waits for input; `many` waits for `go`, then yields 400
 * chunks of 4 KiB, then completes.
 */
function slowReaderAgent(go: Promise<void>): TaskHandler {
  return async function* (ctx) {
    if (textOf(ctx.message) === 'large') {
      yield artifact('x'.repeat(TASK_CHARACTERS), { name: 'large' });
      return yield inputRequired('more?');
    }
    await go;
    for (let i = 0; i < 400; i++) yield artifact('y'.repeat(4096), { append: i > 0 });
    yield completed();
  };
}

async function startAgent(go: Promise<void> = Promise.resolve()) {
  const store = new SubscriptionCountingStore();
  const { logger, lines } = memoryLogger();
  const agent = await agents.agent(slowReaderAgent(go), { store, logger, maxStreamQueueBytes: BOUND, heartbeatMs: 50 });
  const start = async (text: string) => {
    const sent = await unary(agent.client, 'sendMessage', { message: message10(text), configuration: { returnImmediately: true } }, V1);
    return (sent.value as { task: { id: string } }).task.id;
  };
  /** How the streams of the agent ended, as its log lines say. */
  const streamEnds = () => lines().flatMap((line) => (typeof line.stream === 'string' ? [line.stream] : []));
  return { ...agent, store, start, streamEnds };
}

/** SubscribeToTask over raw HTTP/2, never read: the server gets no window beyond HTTP/2's first 64 KiB. */
function unreadGrpcSubscription(address: string, taskId: string): { stream: ClientHttp2Stream; closed: Promise<number> } {
  const session = connectHttp2(`http://${address}`);
  const request = Buffer.from(grpcClientDefinition().subscribeToTask!.requestSerialize({ id: taskId }));
  const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 0]), request]);
  framed.writeUInt32BE(request.length, 1);
  const stream = session.request({
    ':method': 'POST',
    ':path': '/lf.a2a.v1.A2AService/SubscribeToTask',
    'content-type': 'application/grpc',
    te: 'trailers',
    ...V1,
  });
  stream.pause();
  stream.end(framed);
  const closed = new Promise<number>((resolve) => stream.on('close', () => resolve(stream.rstCode ?? -1)));
  stream.on('error', () => {});
  session.on('error', () => {});
  sockets.push(session);
  return { stream, closed };
}

/** SubscribeToTask over SSE from a raw socket that never reads. */
function unreadSseSubscription(url: string, taskId: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connectTcp(Number(port), hostname);
  sockets.push(socket);
  socket.on('error', () => {});
  socket.pause();
  socket.write(
    `GET /v1/tasks/${taskId}:subscribe HTTP/1.1\r\nHost: ${hostname}:${port}\r\nA2A-Version: 1.0\r\nAccept: text/event-stream\r\n\r\n`,
  );
  return socket;
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  for (const deadline = Date.now() + ms; !check() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('SSE: a subscriber that never reads a task larger than maxStreamQueueBytes is cut, its feed let go', async () => {
  const agent = await startAgent();
  const taskId = await agent.start('large');
  await until(() => agent.store.open === 0);
  unreadSseSubscription(agent.url, taskId);
  await until(() => agent.store.open === 1);
  expect(agent.store.open).toBe(1);
  await until(() => agent.streamEnds().length > 0);
  expect(agent.streamEnds()).toEqual(['overflow']);
  expect(agent.store.open).toBe(0);
});

test('gRPC: a subscriber that never reads a task larger than maxStreamQueueBytes is reset (RESOURCE_EXHAUSTED to a client), its feed let go', async () => {
  const agent = await startAgent();
  const taskId = await agent.start('large');
  await until(() => agent.store.open === 0);
  const { closed } = unreadGrpcSubscription(agent.address, taskId);
  await until(() => agent.store.open === 1);
  expect(agent.store.open).toBe(1);
  // HTTP/2's ENHANCE_YOUR_CALM, which gRPC clients read as RESOURCE_EXHAUSTED; it overtakes the data held for the client.
  expect(await closed).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
  expect(agent.streamEnds()).toEqual(['overflow']);
  expect(agent.store.open).toBe(0);
});

test('gRPC: a subscriber that never reads while many events come is cut once those held behind it pass maxStreamQueueBytes', async () => {
  const go = gate();
  const agent = await startAgent(go.promise);
  const taskId = await agent.start('many');
  const { closed } = unreadGrpcSubscription(agent.address, taskId);
  await until(() => agent.store.open === 1);
  go.open();
  expect(await closed).toBe(constants.NGHTTP2_ENHANCE_YOUR_CALM);
  expect(agent.streamEnds()).toEqual(['overflow']);
});
