// What a stream looks like on the wire, read the way real clients read it: the protocol's two
// reference clients (their exact rules, from a2a-testing) and eventsource-parser, a parser that
// follows the HTML standard. See "SSE on the wire" in the README.
import { readLikeReferenceJsClient, readLikeReferencePythonClient, readStreamText, rpc, serverPool } from 'a2a-testing';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { isStatusUpdateEvent } from 'a2a-types';
import { artifact, completed, inputRequired, working, type TaskEvent, type TaskHandler } from '../src/index.js';
import { appWith, eventually, gate, resultOf, userText } from './helpers.js';

const pool = serverPool();
afterAll(pool.closeAll);

async function serve(handler: TaskHandler, options = {}) {
  const { app } = appWith(handler, options);
  return (await pool.serve(app)).url;
}

/** A handler that yields one chunk per gate opened, then completes: the test decides when. */
function gatedChunks(count: number) {
  const steps = Array.from({ length: count }, () => gate());
  const handler: TaskHandler = async function* () {
    yield working('starting');
    for (let i = 0; i < count; i++) {
      await steps[i]!.promise;
      yield artifact(`chunk ${i} `, { index: 0, append: i > 0, lastChunk: i === count - 1 });
    }
    yield completed('done');
  };
  return {
    handler,
    openAll: () => {
      for (const step of steps) step.open();
    },
    steps,
  };
}

/** A streaming response read as it arrives, bytes kept as text, parsed by eventsource-parser too. */
async function rawStream(url: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    signal: controller.signal,
  });
  let text = '';
  let ended = false;
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => parsed.push(message) });
  const decoder = new TextDecoder();
  const pump = (async () => {
    try {
      for await (const chunk of res.body!) {
        const piece = decoder.decode(chunk, { stream: true });
        text += piece;
        parser.feed(piece);
      }
    } catch (error) {
      if (!controller.signal.aborted) throw error;
    } finally {
      ended = true;
    }
  })();
  return {
    res,
    text: () => text,
    parsed,
    /** Waits (bounded) until `check` holds on what has arrived. */
    until: (check: () => boolean, what: string) =>
      eventually(async () => (check() ? true : ended ? Promise.reject(new Error(`stream ended before ${what}`)) : undefined)),
    ended: async () => {
      await pump;
      return text;
    },
    abort: () => controller.abort(),
  };
}

const resultsOf = (messages: unknown[]) => messages.map((m) => (m as { result: TaskEvent }).result);
const finalLast = (events: TaskEvent[]) => {
  const finals = events.filter((e) => isStatusUpdateEvent(e) && e.final);
  expect(finals).toHaveLength(1);
  expect(events.at(-1)).toBe(finals[0]);
};

describe('SSE without event ids (the default)', () => {
  test('tasks/sendSubscribe: each event is one "data:" block, and the reference JS client reads every one in order, final last', async () => {
    const { handler, openAll } = gatedChunks(3);
    const url = await serve(handler);
    openAll();
    const { body, headers } = await readStreamText(url, 'tasks/sendSubscribe', { id: 'js-1', message: userText('x') });
    expect(headers.get('preference-applied')).toBeNull();
    expect(body).not.toMatch(/(^|\n)id:/);
    const js = readLikeReferenceJsClient(body);
    expect(js.problems).toEqual([]);
    const events = resultsOf(js.messages);
    expect(events.map((e) => (isStatusUpdateEvent(e) ? e.status.state : (e.artifact.parts[0] as { text: string }).text))).toEqual([
      'working',
      'working',
      'chunk 0 ',
      'chunk 1 ',
      'chunk 2 ',
      'completed',
    ]);
    finalLast(events);
  });

  test('tasks/resubscribe on a running task and on a finished one: the reference JS client gets every event, final last', async () => {
    const { handler, openAll } = gatedChunks(2);
    const url = await serve(handler);
    const started = await rawStream(url, 'tasks/sendSubscribe', { id: 'js-2', message: userText('x') });
    await started.until(() => started.text().includes('starting'), 'the working event');
    const running = await rawStream(url, 'tasks/resubscribe', { id: 'js-2' });
    await running.until(() => running.text().includes('\n\n'), 'the current status');
    openAll();
    const live = readLikeReferenceJsClient(await running.ended());
    expect(live.problems).toEqual([]);
    const liveEvents = resultsOf(live.messages);
    expect(liveEvents.filter((e) => !isStatusUpdateEvent(e))).toHaveLength(2);
    finalLast(liveEvents);
    await started.ended();

    const { body } = await readStreamText(url, 'tasks/resubscribe', { id: 'js-2' });
    const done = readLikeReferenceJsClient(body);
    expect(done.problems).toEqual([]);
    expect(resultsOf(done.messages)).toEqual([
      expect.objectContaining({ status: expect.objectContaining({ state: 'completed' }), final: true }),
    ]);
  });

  test('an input-required stream reads whole too (its final event is input-required)', async () => {
    const url = await serve(async function* () {
      yield working();
      yield inputRequired('Which one?');
    });
    const js = readLikeReferenceJsClient((await readStreamText(url, 'tasks/sendSubscribe', { id: 'js-3', message: userText('x') })).body);
    expect(js.problems).toEqual([]);
    const events = resultsOf(js.messages);
    finalLast(events);
    expect(events.at(-1)).toMatchObject({ status: { state: 'input-required' }, final: true });
  });
});

describe('heartbeats and the reference Python client (httpx-sse, json.loads of every event)', () => {
  // httpx-sse yields an event at every blank line once it has seen an id: a "\n\n" heartbeat after
  // an id-carrying event reached the Python client as empty data, and json.loads failed.
  test.each([
    ['without event ids', {}],
    ['with event ids (Prefer: sse-event-ids)', { prefer: 'sse-event-ids' }],
  ])('%s: heartbeats between events never reach it as events', async (_, headers: Record<string, string>) => {
    const { handler, steps } = gatedChunks(3);
    const url = await serve(handler, { heartbeatMs: 10 });
    const stream = await rawStream(url, 'tasks/sendSubscribe', { id: 'py-hb', message: userText('x') }, headers);
    for (const step of steps) {
      // A heartbeat after the events so far, then the next event.
      const beats = stream.text().split(': keep-alive').length;
      await stream.until(() => stream.text().split(': keep-alive').length > beats, 'a heartbeat');
      step.open();
    }
    const body = await stream.ended();
    const python = readLikeReferencePythonClient(body);
    expect(python.problems).toEqual([]);
    const events = resultsOf(python.messages);
    expect(events.filter((e) => !isStatusUpdateEvent(e))).toHaveLength(3);
    finalLast(events);
    // eventsource-parser (standard rules) sees the very same events.
    expect(stream.parsed.map((m) => JSON.parse(m.data))).toEqual(python.messages);
  });
});

describe('SSE with event ids', () => {
  test('Prefer: sse-event-ids gets an id on every event, in the same block as its data, and Preference-Applied', async () => {
    const { handler, openAll } = gatedChunks(3);
    const url = await serve(handler);
    openAll();
    const stream = await rawStream(
      url,
      'tasks/sendSubscribe',
      { id: 'ids-1', message: userText('x') },
      { prefer: 'return=minimal, SSE-Event-Ids' },
    );
    const body = await stream.ended();
    expect(stream.res.headers.get('preference-applied')).toBe('sse-event-ids');
    for (const block of body.split('\n\n').filter((b) => b.includes('data:'))) expect(block).toMatch(/^(: keep-alive\n)*id: \d+\ndata: /);
    const ids = stream.parsed.map((m) => Number(m.id));
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    // The Python reference client reads this form too.
    expect(readLikeReferencePythonClient(body).problems).toEqual([]);
  });

  test("streamEventIds: 'always' sends ids unasked; an unknown setting is refused when the router is made", async () => {
    const url = await serve(
      async function* () {
        yield completed('ok');
      },
      { streamEventIds: 'always' },
    );
    const { body, headers } = await readStreamText(url, 'tasks/sendSubscribe', { id: 'ids-2', message: userText('x') });
    expect(body).toMatch(/^id: 1\ndata: /);
    expect(headers.get('preference-applied')).toBeNull();
    expect(() => appWith(async function* () {}, { streamEventIds: 'sometimes' as never })).toThrow(
      "a2aRouter: options.streamEventIds must be one of 'when-asked', 'always', got \"sometimes\"",
    );
  });

  test('a standards-following parser resumes from a mid-stream id on a running task: no loss, no duplicate', async () => {
    const { handler, steps } = gatedChunks(4);
    const url = await serve(handler);
    const first = await rawStream(url, 'tasks/sendSubscribe', { id: 'resume-std', message: userText('x') }, { prefer: 'sse-event-ids' });
    steps[0]!.open();
    steps[1]!.open();
    await first.until(() => first.parsed.some((m) => m.data.includes('chunk 1')), 'the second chunk');
    first.abort();
    const seen = [...first.parsed];
    const lastEventId = seen.at(-1)!.id!;

    // Resumed while the task still runs; Last-Event-ID alone is enough to get ids back.
    const second = await rawStream(url, 'tasks/resubscribe', { id: 'resume-std' }, { 'last-event-id': lastEventId });
    expect(resultOf(await rpc(url, 'tasks/get', { id: 'resume-std' })).status.state).toBe('working');
    steps[2]!.open();
    steps[3]!.open();
    await second.ended();
    const all = [...seen, ...second.parsed];
    expect(all.map((m) => Number(m.id))).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    const events = all.map((m) => (JSON.parse(m.data) as { result: TaskEvent }).result);
    expect(events.flatMap((e) => ('artifact' in e ? [(e.artifact.parts[0] as { text: string }).text] : []))).toEqual([
      'chunk 0 ',
      'chunk 1 ',
      'chunk 2 ',
      'chunk 3 ',
    ]);
    finalLast(events);
  });
});
