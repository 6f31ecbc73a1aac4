// Streams are bounded per task and per principal (or client address): each holds a connection and
// a file descriptor, and nothing else stops a client from opening as many as the process has.
// A refused stream is -32011 in each version's terms; a stream that closes frees its place, so
// the replay from Last-Event-ID keeps working.
import { serverPool } from 'a2a-testing';
import { appWith, gate, message03, message10, twoChunkEcho } from './helpers.js';

const { serve, closeAll } = serverPool();
afterAll(closeAll);

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
