// Hostile input to the fetch handler (a2aFetchHandler), handed real Web `Request`s as a runtime
// would: a body that never ends, a body past the limit that lies about its length, a gzip bomb, a
// content coding not served, a body that breaks off, bytes that are not UTF-8, JSON nested past
// any stack, a client that never reads its stream, one that leaves in the middle. Each gets a
// clear answer in JSON-RPC's words (never a 500, a hang or a stack), reads no more of the body
// than the limit, and lets go of what it held.
import { gzipSync } from 'node:zlib';
import { artifact, completed, type TaskHandler } from '../src/index.js';
import { a2aFetchHandler, type A2AFetchHandler } from '../src/fetch.js';
import { eventually, silent, SubscriptionCountingStore, testCard, userText } from './helpers.js';

const BODY_LIMIT = 64 * 1024;
const URL_0_1 = 'http://agent.test/';

/** A chunk of the echo that a stream sends many of. */
const many: TaskHandler = async function* () {
  for (let i = 0; i < 2_000; i++) yield artifact('x'.repeat(8 * 1024), { append: i > 0 });
  yield completed();
};

const agents: A2AFetchHandler[] = [];
afterAll(async () => {
  for (const agent of agents) await agent.close();
});

function agent(handler: TaskHandler = async () => completed('done'), store = new SubscriptionCountingStore()) {
  const served = a2aFetchHandler(handler, {
    card: testCard,
    logger: silent,
    store,
    bodyLimit: BODY_LIMIT,
    maxStreamQueueBytes: 256 * 1024,
    heartbeatMs: 50,
  });
  agents.push(served);
  return { served, store };
}

const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

function post(body: string | Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string> = {}, signal?: AbortSignal): Request {
  return new Request(URL_0_1, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal,
    // A stream body needs it (fetch's Request has no other way to send one).
    duplex: 'half',
  } as RequestInit);
}

/** A body stream that counts what was pulled from it, and ends only after `chunks` chunks (never, by default). */
function endlessBody(chunk: Uint8Array, chunks = Number.POSITIVE_INFINITY): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= chunks) return controller.close();
      pulled++;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => pulled };
}

async function errorOf(response: Response): Promise<{ code: number; message: string }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await response.text();
  expect(text).not.toMatch(/\bat .+:\d+:\d+/); // no stack
  return (JSON.parse(text) as { error: { code: number; message: string } }).error;
}

describe('the fetch handler, given hostile bodies', () => {
  const { served } = agent();

  test('a body that never ends: refused 413 at the limit, having pulled no more than the limit', async () => {
    const chunk = new Uint8Array(16 * 1024).fill(0x20);
    const { body, pulled } = endlessBody(chunk);
    const response = await served(post(body));
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe(-32600);
    // The reader stops at the first chunk past the limit (the stream may have one more queued).
    expect(pulled() * chunk.length).toBeLessThanOrEqual(BODY_LIMIT + 2 * chunk.length);
  });

  test('a Content-Length past the limit: refused 413 without reading the body', async () => {
    const { body, pulled } = endlessBody(new Uint8Array(1024).fill(0x20));
    const response = await served(post(body, { 'content-length': String(BODY_LIMIT * 100) }));
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect(pulled()).toBeLessThanOrEqual(1);
  });

  test('a gzip bomb (64 MB of spaces in 64 kB): refused 413 once the decoded body passes the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
    expect(bomb.length).toBeLessThan(BODY_LIMIT);
    const response = await served(post(bomb, { 'content-encoding': 'gzip' }));
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe(-32600);
  });

  test('gzip that breaks off, and a content coding not served: 400 and 415, in JSON-RPC words', async () => {
    const whole = gzipSync(Buffer.from(rpc('tasks/get', { id: 'x' })));
    const broken = await served(
      post(
        whole.subarray(0, whole.length - 8).map((byte, i) => (i > 12 ? byte ^ 0xff : byte)),
        { 'content-encoding': 'gzip' },
      ),
    );
    expect(broken.status).toBe(400);
    expect((await errorOf(broken)).code).toBe(-32700);
    const brotli = await served(post('{}', { 'content-encoding': 'br' }));
    expect(brotli.status).toBe(415);
    expect((await errorOf(brotli)).code).toBe(-32600);
  });

  test('a body that errors half-way: 400, and the agent serves the next request', async () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0",'));
        } else controller.error(new Error('the client went away'));
      },
    });
    const response = await served(post(body));
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe(-32700);
    const next = await served(post(rpc('tasks/get', { id: 'nowhere' })));
    expect((await errorOf(next)).code).toBe(-32001);
  });

  test('bytes that are not UTF-8, and JSON nested 100,000 deep: -32700 and -32600, no stack overflow', async () => {
    const notUtf8 = await served(post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])));
    expect((await errorOf(notUtf8)).code).toBe(-32700);
    const deep = await served(post(`${'['.repeat(100_000)}${']'.repeat(100_000)}`));
    expect([-32600, -32700]).toContain((await errorOf(deep)).code);
  });
});

describe('the fetch handler, given clients that do not read', () => {
  test('a stream whose client never reads is cut once it holds maxStreamQueueBytes, and lets go of the task', async () => {
    const { served, store } = agent(many);
    const response = await served(post(rpc('tasks/sendSubscribe', { id: 'unread', message: userText('go') })));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    // Nobody reads: the agent stops writing when its queue passes the bound, and lets go of the feed.
    await eventually(async () => (store.open === 0 ? true : undefined), 10_000);
    // What was queued can still be read, then the stream says it was cut.
    const reader = response.body!.getReader();
    let read = 0;
    const end = await (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return 'ended';
          read += value.length;
        }
      } catch {
        return 'cut';
      }
    })();
    expect(end).toBe('cut');
    expect(read).toBeLessThanOrEqual(2 * 1024 * 1024);
  });

  test('a client that leaves in the middle of a stream: the feed is let go, the task runs to its end', async () => {
    const { served, store } = agent(many);
    const leaving = new AbortController();
    const response = await served(post(rpc('tasks/sendSubscribe', { id: 'left', message: userText('go') }), {}, leaving.signal));
    const reader = response.body!.getReader();
    await reader.read();
    leaving.abort();
    await reader.cancel().catch(() => {});
    await eventually(async () => (store.open === 0 ? true : undefined), 10_000);
    const task = await eventually(async () => {
      const read = await served(post(rpc('tasks/get', { id: 'left' })));
      const { result } = (await read.json()) as { result?: { status: { state: string } } };
      return result?.status.state === 'completed' ? result : undefined;
    }, 20_000);
    expect(task.status.state).toBe('completed');
  });
});
