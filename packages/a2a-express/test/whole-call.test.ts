// What a handler is shown of the call that started its turn, on every version and binding in one
// form (the call, its headers without credentials, the request's configuration and metadata, the
// extensions asked for); extensions declared, asked for, activated and echoed, and required; and
// a blocking send that waits as 1.0 says (`sendWaitMs: 'unbounded'`). Real servers on loopback.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import { listen, postJson, rpc } from 'a2a-testing';
import { a2aRouter, apiKey, artifact, completed, inputRequired, type TaskContext, type TaskHandler } from '../src/index.js';
import { errorInfoOf, grpcAgents, unary } from './grpc-agents.js';
import { appWith, eventually, gate, memoryLogger, message03, message10, silent, testCard } from './helpers.js';

const agents = grpcAgents();
afterAll(() => agents.close());
const { agent } = agents;

type Json = Record<string, unknown>;

/** A handler that keeps what each turn's context showed it, and completes. */
function recording(): { handler: TaskHandler; seen: Json[] } {
  const seen: Json[] = [];
  const handler: TaskHandler = async function* (ctx: TaskContext) {
    seen.push({
      call: ctx.call,
      configuration: ctx.configuration,
      acceptedOutputModes: ctx.acceptedOutputModes,
      requestMetadata: ctx.requestMetadata,
      requested: [...ctx.extensions.requested],
    });
    yield completed();
  };
  return { handler, seen };
}

const WEBHOOK = { url: 'https://127.0.0.1:9/hook', token: 'secret-token' };

describe('the handler sees the whole call, on every version and binding', () => {
  test('1.0 over JSON-RPC: the call, its headers without credentials, the configuration (push token left out), the metadata, the extensions asked for', async () => {
    const { handler, seen } = recording();
    const { url } = await agent(handler, {
      auth: { strategies: [apiKey({ keys: { 'key-1': 'alice' }, header: 'X-Agent-Key' })] },
      pushNotifications: { allowlist: ['127.0.0.1'] },
    });
    const answer = await rpc(
      `${url}/v1`,
      'SendMessage',
      {
        message: message10('hi'),
        configuration: { acceptedOutputModes: ['text/markdown', 'text/plain'], historyLength: 3, taskPushNotificationConfig: WEBHOOK },
        metadata: { trace: 'abc', nested: { n: 1 } },
      },
      { headers: { 'A2A-Version': '1.0', 'X-Agent-Key': 'key-1', 'X-Request-Id': 'r-1', 'A2A-Extensions': 'urn:a, urn:b,urn:a' } },
    );
    expect(answer.error).toBeUndefined();
    expect(seen).toHaveLength(1);
    const [first] = seen as [{ call: { headers: Record<string, string> } & Json } & Json];
    expect(first.call).toMatchObject({ protocol: '1.0', binding: 'jsonrpc', method: 'SendMessage', tenant: undefined });
    expect(first.call.headers['x-request-id']).toBe('r-1');
    expect(first.call.headers['a2a-version']).toBe('1.0');
    // The API key strategy's header is a credential: never shown.
    expect(first.call.headers).not.toHaveProperty('x-agent-key');
    expect(first.configuration).toEqual({
      acceptedOutputModes: ['text/markdown', 'text/plain'],
      historyLength: 3,
      returnImmediately: false,
      pushNotificationConfig: { url: WEBHOOK.url },
    });
    expect(first.acceptedOutputModes).toEqual(['text/markdown', 'text/plain']);
    expect(first.requestMetadata).toEqual({ trace: 'abc', nested: { n: 1 } });
    expect(first.requested).toEqual(['urn:a', 'urn:b']);
  });

  test('1.0 over HTTP+JSON and gRPC, 0.3 and 0.1.0: the same form, each call named by its binding and method', async () => {
    const { handler, seen } = recording();
    const { url, client } = await agent(handler);
    const config = { acceptedOutputModes: ['application/json'], returnImmediately: true };
    const rest = await postJson(
      `${url}/v1/message:send`,
      { message: message10('rest'), configuration: config, metadata: { via: 'rest' } },
      { 'A2A-Version': '1.0', Authorization: 'Bearer not-shown', 'A2A-Extensions': 'urn:rest' },
    );
    expect(rest.status).toBe(200);
    const overGrpc = await unary(
      client,
      'sendMessage',
      { message: message10('grpc'), configuration: config, metadata: { via: 'grpc' } },
      { 'a2a-version': '1.0', 'a2a-extensions': 'urn:grpc', 'x-trace': 't-1' },
    );
    expect(overGrpc.error).toBeUndefined();
    const over03 = await rpc(
      `${url}/v0.3`,
      'message/send',
      { message: message03('old'), configuration: { acceptedOutputModes: ['text/plain'], blocking: false }, metadata: { via: '0.3' } },
      { headers: { 'X-A2A-Extensions': 'urn:old', Cookie: 'session=not-shown' } },
    );
    expect(over03.error).toBeUndefined();
    // 0.1.0 has no extensions: a header naming some is not read on it.
    const over01 = await rpc(
      url,
      'tasks/send',
      { id: 'task-01', message: { role: 'user', parts: [{ type: 'text', text: 'oldest' }] }, metadata: { via: '0.1.0' } },
      { headers: { 'A2A-Extensions': 'urn:not-on-0.1.0' } },
    );
    expect(over01.error).toBeUndefined();
    await eventually(async () => (seen.length === 4 ? true : undefined));
    const byVia = Object.fromEntries(seen.map((s) => [(s.requestMetadata as { via: string }).via, s])) as Record<
      string,
      Json & { call: Json & { headers: Json } }
    >;
    expect(byVia.rest).toMatchObject({
      call: { protocol: '1.0', binding: 'rest', method: 'SendMessage' },
      configuration: { acceptedOutputModes: ['application/json'], returnImmediately: true },
      requested: ['urn:rest'],
    });
    expect(byVia.rest!.call.headers).not.toHaveProperty('authorization');
    expect(byVia.grpc).toMatchObject({
      call: { protocol: '1.0', binding: 'grpc', method: 'SendMessage', headers: { 'x-trace': 't-1' } },
      configuration: { acceptedOutputModes: ['application/json'], returnImmediately: true },
      requested: ['urn:grpc'],
    });
    expect(byVia['0.3']).toMatchObject({
      call: { protocol: '0.3', binding: 'jsonrpc', method: 'message/send' },
      configuration: { acceptedOutputModes: ['text/plain'], returnImmediately: true },
      requestMetadata: { via: '0.3' },
      requested: ['urn:old'],
    });
    expect(byVia['0.3']!.call.headers).not.toHaveProperty('cookie');
    expect(byVia['0.1.0']).toMatchObject({
      call: { protocol: '0.1.0', binding: 'jsonrpc', method: 'tasks/send' },
      configuration: { returnImmediately: false },
      acceptedOutputModes: undefined,
      requested: [],
    });
  });
});

describe('extensions', () => {
  const CITATIONS = 'https://example.com/ext/citations/v1';
  const GEO = 'https://example.com/ext/geo/v1';
  const REQUIRED = 'urn:a2a:tck:required-extension';

  /** Activates what was asked for (citations) before its first update, and tries one that was not (geo). */
  const activating: TaskHandler = async function* (ctx) {
    const activated = ctx.extensions.activate(CITATIONS);
    const notAsked = ctx.extensions.activate(GEO);
    yield artifact(`citations ${activated}, geo ${notAsked}`);
    yield completed();
  };
  const extensions = [
    { uri: CITATIONS, description: 'cites its sources', params: { style: 'apa' } },
    { uri: GEO, required: false },
  ];

  test('declared in the 1.0 and 0.3 cards beside the capabilities the router serves', async () => {
    const { url } = await agent(activating, { extensions, streaming: true });
    const card10 = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as Json;
    expect(card10.capabilities).toEqual({ streaming: true, pushNotifications: false, extensions });
    const card03 = (await (await fetch(`${url}/v0.3/.well-known/agent-card.json`)).json()) as Json;
    expect(card03.capabilities).toMatchObject({ streaming: true, extensions });
  });

  test('what the handler activates is named back: the A2A-Extensions header (JSON-RPC, HTTP+JSON, a stream), gRPC metadata, 0.3’s X-A2A-Extensions; one not asked for is not', async () => {
    const { url, client } = await agent(activating, { extensions });
    const asked = `${CITATIONS}, urn:unknown`;
    const jsonRpc = await postJson(
      `${url}/v1`,
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message10('x') } },
      { 'A2A-Version': '1.0', 'A2A-Extensions': asked },
    );
    expect(jsonRpc.headers.get('a2a-extensions')).toBe(CITATIONS);
    const body = (await jsonRpc.json()) as { result: { task: { artifacts: { parts: { text: string }[] }[] } } };
    expect(body.result.task.artifacts[0]!.parts[0]!.text).toBe('citations true, geo false');
    const rest = await postJson(`${url}/v1/message:send`, { message: message10('x') }, { 'A2A-Version': '1.0', 'A2A-Extensions': asked });
    expect(rest.headers.get('a2a-extensions')).toBe(CITATIONS);
    const stream = await postJson(
      `${url}/v1`,
      { jsonrpc: '2.0', id: 2, method: 'SendStreamingMessage', params: { message: message10('x') } },
      { 'A2A-Version': '1.0', 'A2A-Extensions': asked, Accept: 'text/event-stream' },
    );
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('a2a-extensions')).toBe(CITATIONS);
    await stream.text();
    const overGrpc = await unary(client, 'sendMessage', { message: message10('x') }, { 'a2a-version': '1.0', 'a2a-extensions': asked });
    expect(overGrpc.error).toBeUndefined();
    expect(overGrpc.headers.get('a2a-extensions')).toEqual([CITATIONS]);
    const over03 = await postJson(
      `${url}/v0.3`,
      { jsonrpc: '2.0', id: 3, method: 'message/send', params: { message: message03('x') } },
      { 'X-A2A-Extensions': asked },
    );
    expect(over03.headers.get('x-a2a-extensions')).toBe(CITATIONS);
    // Nothing asked for, nothing named.
    const plain = await postJson(`${url}/v1/message:send`, { message: message10('x') }, { 'A2A-Version': '1.0' });
    expect(plain.headers.get('a2a-extensions')).toBeNull();
  });

  test('a required one a call does not ask for is refused: -32008 with its ErrorInfo, 400, FAILED_PRECONDITION, 0.3’s -32000; asked for, the call is served; 0.1.0 has no way to ask and is served', async () => {
    const { handler, seen } = recording();
    const { url, client } = await agent(handler, { extensions: [{ uri: REQUIRED, required: true }] });
    const refused = await rpc(`${url}/v1`, 'SendMessage', { message: message10('x') }, { headers: { 'A2A-Version': '1.0' } });
    expect(refused.error).toMatchObject({
      code: -32008,
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'EXTENSION_SUPPORT_REQUIRED',
          domain: 'a2a-protocol.org',
          metadata: { extensions: REQUIRED },
        },
      ],
    });
    // Every operation, not only sends.
    const get = await rpc(`${url}/v1`, 'GetTask', { id: 'any' }, { headers: { 'A2A-Version': '1.0' } });
    expect(get.error?.code).toBe(-32008);
    const rest = await postJson(`${url}/v1/message:send`, { message: message10('x') }, { 'A2A-Version': '1.0' });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { error: { details: Json[] } }).error.details[0]).toMatchObject({
      reason: 'EXTENSION_SUPPORT_REQUIRED',
    });
    const overGrpc = await unary(client, 'sendMessage', { message: message10('x') }, { 'a2a-version': '1.0' });
    expect(overGrpc.error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(errorInfoOf(overGrpc.error!)).toMatchObject({ reason: 'EXTENSION_SUPPORT_REQUIRED' });
    const over03 = await rpc(`${url}/v0.3`, 'message/send', { message: message03('x') });
    expect(over03.error).toMatchObject({ code: -32000, message: 'Extension support required' });
    expect(seen).toHaveLength(0);
    // Asked for (1.0's header, 0.3's), the calls are served.
    const served = await rpc(
      `${url}/v1`,
      'SendMessage',
      { message: message10('x') },
      { headers: { 'A2A-Version': '1.0', 'A2A-Extensions': REQUIRED } },
    );
    expect(served.error).toBeUndefined();
    const served03 = await rpc(`${url}/v0.3`, 'message/send', { message: message03('x') }, { headers: { 'X-A2A-Extensions': REQUIRED } });
    expect(served03.error).toBeUndefined();
    const servedGrpc = await unary(
      client,
      'sendMessage',
      { message: message10('x') },
      { 'a2a-version': '1.0', 'a2a-extensions': REQUIRED },
    );
    expect(servedGrpc.error).toBeUndefined();
    const over01 = await rpc(url, 'tasks/send', { id: 'old-task', message: { role: 'user', parts: [{ type: 'text', text: 'x' }] } });
    expect(over01.error).toBeUndefined();
    // The cards are read without it.
    expect((await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).status).toBe(200);
  });

  test('declarations are checked when the router is made', () => {
    for (const [bad, message] of [
      [[{ uri: '' }], /extensions\[0\]\.uri must be a URI/],
      [[{ uri: 'a,b' }], /no spaces or commas/],
      [[{ uri: 'urn:x' }, { uri: 'urn:x' }], /urn:x is declared twice/],
      [[{ uri: 'urn:x', required: 'yes' }], /extensions\[0\]\.required must be a boolean/],
      [[{ uri: 'urn:x', params: [] }], /extensions\[0\]\.params must be an object/],
    ] as const) {
      expect(() => appWith(activating, { extensions: bad as never })).toThrow(message);
    }
  });
});

describe("a blocking send that waits as 1.0 says (sendWaitMs: 'unbounded')", () => {
  /** Holds each turn until the test lets it go; 'ask' asks for input instead. */
  function held() {
    const started = gate();
    const release = gate();
    const handler: TaskHandler = async function* (ctx) {
      started.open();
      if (ctx.message.parts.some((part) => part.type === 'text' && part.text === 'ask')) {
        yield inputRequired('which one?');
        return;
      }
      await release.promise;
      yield completed();
    };
    return { handler, started, release };
  }

  test('by default a long turn is answered working after sendWaitMs; unbounded, the answer is the completed task, however long the turn', async () => {
    const bounded = held();
    const short = await agent(bounded.handler, { sendWaitMs: 50 });
    const early = await rpc<{ task: { status: { state: string } } }>(
      `${short.url}/v1`,
      'SendMessage',
      { message: message10('x') },
      { headers: { 'A2A-Version': '1.0' } },
    );
    expect(early.result?.task.status.state).toBe('TASK_STATE_WORKING');
    bounded.release.open();

    const unbounded = held();
    const exact = await agent(unbounded.handler, { sendWaitMs: 'unbounded' });
    let settled = false;
    const answer = rpc<{ task: { status: { state: string } } }>(
      `${exact.url}/v1`,
      'SendMessage',
      { message: message10('x') },
      { headers: { 'A2A-Version': '1.0' } },
    ).finally(() => (settled = true));
    await unbounded.started.promise;
    // Longer than the bounded agent waited: still no answer.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    unbounded.release.open();
    expect((await answer).result?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  test('unbounded, an interrupted task (input required) ends the wait', async () => {
    const { handler } = held();
    const { url } = await agent(handler, { sendWaitMs: 'unbounded' });
    const answer = await rpc<{ task: { status: { state: string } } }>(
      `${url}/v1`,
      'SendMessage',
      { message: message10('ask') },
      { headers: { 'A2A-Version': '1.0' } },
    );
    expect(answer.result?.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  // The kit watches for the client's leaving once the wait has lasted a second: a client that
  // left before is let go at that mark, one that leaves after it when it leaves.
  test.each([
    ['at once', 0],
    ['after the first second', 1_200],
  ])('unbounded, a client that goes away (%s) ends the wait (its call is logged), and the task goes on', async (_when, leaveAfterMs) => {
    const { handler, started, release } = held();
    const { logger, lines } = memoryLogger();
    const { url } = await agent(handler, { sendWaitMs: 'unbounded', logger });
    const aborted = new AbortController();
    const call = fetch(`${url}/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: message10('x') } }),
      signal: aborted.signal,
    }).catch(() => undefined);
    await started.promise;
    await new Promise((resolve) => setTimeout(resolve, leaveAfterMs));
    aborted.abort();
    await call;
    // The call ends (and is logged) while the turn is still held.
    const logged = await eventually(async () => lines().find((line) => line.msg === 'a2a call' && line.method === 'SendMessage'));
    expect(logged).toBeDefined();
    release.open();
    const listed = await eventually(async () => {
      const page = await rpc<{ tasks: { status: { state: string } }[] }>(
        `${url}/v1`,
        'ListTasks',
        {},
        { headers: { 'A2A-Version': '1.0' } },
      );
      return page.result?.tasks[0]?.status.state === 'TASK_STATE_COMPLETED' ? page : undefined;
    });
    expect(listed.result?.tasks).toHaveLength(1);
  });

  test("a sendWaitMs that is neither a positive integer nor 'unbounded' is a TypeError", () => {
    expect(() => appWith(held().handler, { sendWaitMs: 'forever' as never })).toThrow(/sendWaitMs must be a positive integer/);
  });
});

describe('what a turn keeps of its call', () => {
  test('a turn that outlives its call (answered working after sendWaitMs) does not keep the call’s response alive', async () => {
    // The garbage collector, asked for by the test: the response is gone once nothing holds it.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const release = gate();
    const handler: TaskHandler = async function* (ctx) {
      // The handler still reads the call once the answer has gone: what it needs of it is kept.
      await release.promise;
      yield artifact(ctx.call.method);
      yield completed();
    };
    let response: WeakRef<object> | undefined;
    const app = express();
    app.use((_req, res, next) => {
      response ??= new WeakRef(res);
      next();
    });
    app.use(a2aRouter(handler, { card: testCard, logger: silent, sendWaitMs: 20 }));
    const { url, close } = await listen(app);
    try {
      const answer = await rpc<{ task: { id: string; status: { state: string } } }>(
        `${url}/v1`,
        'SendMessage',
        { message: message10('hold') },
        { headers: { 'A2A-Version': '1.0', connection: 'close' } },
      );
      expect(answer.result?.task.status.state).toBe('TASK_STATE_WORKING');
      // The turn is still running, its handler holding: the response it came with is collected.
      const gone = await eventually(async () => {
        collect();
        await new Promise((resolve) => setImmediate(resolve));
        return response?.deref() === undefined ? true : undefined;
      });
      expect(gone).toBe(true);
      release.open();
      const done = await eventually(async () => {
        const read = await rpc<{ status: { state: string }; artifacts?: { parts: { text?: string }[] }[] }>(
          `${url}/v1`,
          'GetTask',
          { id: answer.result!.task.id },
          { headers: { 'A2A-Version': '1.0' } },
        );
        return read.result?.status.state === 'TASK_STATE_COMPLETED' ? read.result : undefined;
      });
      expect(done.artifacts?.[0]?.parts[0]?.text).toBe('SendMessage');
    } finally {
      await close();
    }
  });
});
