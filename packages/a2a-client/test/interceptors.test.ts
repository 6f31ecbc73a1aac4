// Interceptors on every call of every client, against a real agent (a2aRouter on loopback, its gRPC
// beside it): 0.1.0 and 0.3 over JSON-RPC, 1.0 over JSON-RPC, HTTP+JSON and gRPC. The agent asks
// for an API key that only the interceptor adds, and its authorize hook records the headers each
// call arrived with: what the interceptor wrote is what the agent got, on every call and stream.
// An interceptor refuses a call with an error of its own (nothing leaves), sees the answer or the
// error, each event of a stream and its end, however it ends.
import express from 'express';
import { a2aRouter, apiKey, artifact, completed, working } from 'a2a-express';
import { pino } from 'pino';
import { serverPool } from 'a2a-testing';
import {
  A2AClient,
  A2AClient03,
  A2AClient10,
  type Binding10,
  type CallOutcome,
  type InterceptedCall,
  type Interceptor,
  JsonRpcError,
  type StreamOutcome,
} from '../src/index.js';
import { grpcTransport } from '../src/grpc.js';

const { serve, closeAll } = serverPool();
/** Each call as the agent's authorize hook saw it: version, binding, operation, and the header the interceptor stamped. */
const arrived: { protocol: string; binding: string; operation: string; stamp: string }[] = [];
let agentUrl: string;
let closeAgent: () => Promise<void>;

beforeAll(async () => {
  const { serveGrpc } = await import('a2a-express/grpc');
  const router = a2aRouter(
    async function* () {
      yield working('on it');
      yield artifact('one ');
      yield artifact('two', { append: true });
      yield completed('done');
    },
    {
      card: { name: 'Intercepted', version: '1.0.0' },
      logger: pino({ level: 'silent' }),
      auth: {
        strategies: [apiKey({ keys: { 'key-the-interceptor-adds': 'orchestrator' } })],
        authorize: ({ origin, operation, headers }) => {
          arrived.push({ protocol: origin.protocol, binding: origin.binding, operation, stamp: String(headers['x-stamp']) });
          return true;
        },
      },
    },
  );
  const http = await serve(express().use(router));
  agentUrl = http!.url;
  const grpcServer = await serveGrpc(router, { port: 0, agentUrl });
  closeAgent = async () => {
    await grpcServer.close({ graceMs: 100 });
    await router.close();
  };
});
afterAll(async () => {
  await closeAgent?.();
  await closeAll();
});

/** An interceptor that adds the key and stamps each call with its method, and records all it is told. */
function recorder() {
  const seen: { call: InterceptedCall; headers: Record<string, string> }[] = [];
  const after: { method: string; outcome: CallOutcome }[] = [];
  const events: { method: string; event: unknown }[] = [];
  const ends: { method: string; outcome: StreamOutcome }[] = [];
  const interceptor: Interceptor = {
    before(call) {
      call.headers['x-api-key'] = 'key-the-interceptor-adds';
      call.headers['x-stamp'] = call.method;
      seen.push({ call, headers: { ...call.headers } });
    },
    after: (call, outcome) => void after.push({ method: call.method, outcome }),
    event: (call, event) => void events.push({ method: call.method, event }),
    end: (call, outcome) => void ends.push({ method: call.method, outcome }),
  };
  return { interceptor, seen, after, events, ends };
}

const text01 = (text: string) => ({
  id: crypto.randomUUID(),
  message: { role: 'user' as const, parts: [{ type: 'text' as const, text }] },
});
const message03 = (text: string) => ({
  message: { kind: 'message' as const, messageId: crypto.randomUUID(), role: 'user' as const, parts: [{ kind: 'text' as const, text }] },
});
const message10 = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] } });

/** For each client: a unary send, a get of its task, a stream read to its end, and how many events the stream had. */
const clients: [string, string, string, (interceptors: Interceptor[]) => { run(): Promise<number>; close?(): void }][] = [
  [
    '0.1.0 over JSON-RPC',
    '0.1.0',
    'JSONRPC',
    (interceptors) => {
      const client = new A2AClient(agentUrl, { interceptors });
      return {
        async run() {
          const task = await client.send(text01('hi'));
          await client.get({ id: task.id });
          let count = 0;
          for await (const _ of client.sendSubscribe(text01('stream'))) count++;
          return count;
        },
      };
    },
  ],
  [
    '0.3 over JSON-RPC',
    '0.3',
    'JSONRPC',
    (interceptors) => {
      const client = new A2AClient03(agentUrl, { interceptors });
      return {
        async run() {
          const task = await client.sendMessage(message03('hi'));
          await client.getTask({ id: (task as { id: string }).id });
          let count = 0;
          for await (const _ of client.streamMessage(message03('stream'))) count++;
          return count;
        },
      };
    },
  ],
  ...(['JSONRPC', 'HTTP+JSON', 'GRPC'] as Binding10[]).map((binding): (typeof clients)[number] => [
    `1.0 over ${binding}`,
    '1.0',
    binding,
    (interceptors) => {
      const client = new A2AClient10(agentUrl, { interceptors, preferredBinding: binding, grpc: grpcTransport() });
      return {
        async run() {
          const sent = await client.sendMessage(message10('hi'));
          await client.getTask({ id: (sent as { task: { id: string } }).task.id });
          let count = 0;
          for await (const _ of client.streamMessage(message10('stream'))) count++;
          return count;
        },
        close: () => client.close(),
      };
    },
  ]),
];

/** The method names each version calls its send, get and stream by. */
const METHODS: Record<string, [string, string, string]> = {
  '0.1.0': ['tasks/send', 'tasks/get', 'tasks/sendSubscribe'],
  '0.3': ['message/send', 'tasks/get', 'message/stream'],
  '1.0': ['SendMessage', 'GetTask', 'SendStreamingMessage'],
};
const SERVER_BINDING: Record<string, string> = { JSONRPC: 'jsonrpc', 'HTTP+JSON': 'rest', GRPC: 'grpc' };

describe.each(clients)('an interceptor on %s', (_name, version, binding, make) => {
  test('sees every call (the card, unary calls, the stream) and what it writes is what the agent receives', async () => {
    const { interceptor, seen, after, events, ends } = recorder();
    const client = make([interceptor]);
    arrived.length = 0;
    let streamed: number;
    try {
      streamed = await client.run();
    } finally {
      client.close?.();
    }
    const [send, get, stream] = METHODS[version]!;
    // The card's GET first, over plain HTTP (0.1.0 and 0.3 ask for it to find the endpoint, 1.0 its interfaces).
    expect(seen.map(({ call }) => [call.method, call.binding, call.protocolVersion, call.streaming])).toEqual([
      ...(version === '0.1.0' ? [] : [['agent card', 'HTTP', version, false]]),
      [send, binding, version, false],
      [get, binding, version, false],
      [stream, binding, version, true],
    ]);
    const sendCall = seen.find(({ call }) => call.method === send)!;
    expect(sendCall.call.params).toMatchObject({ message: expect.any(Object) });
    if (binding === 'GRPC') expect(sendCall.call.url).toMatch(/^127\.0\.0\.1:\d+$/);
    else expect(sendCall.call.url.startsWith(agentUrl)).toBe(true);
    // The client's own headers are there for the interceptor to see: 1.0 names its version.
    if (version === '1.0') expect(sendCall.headers).toMatchObject({ [binding === 'GRPC' ? 'a2a-version' : 'A2A-Version']: '1.0' });

    // The agent authenticated each call with the key only the interceptor added, and got its stamp.
    const operations = { [send]: 'SendMessage', [get]: 'GetTask', [stream]: expect.stringMatching(/^Send(Streaming)?Message$/) };
    expect(arrived).toEqual(
      [send, get, stream].map((method) => ({
        protocol: version,
        binding: SERVER_BINDING[binding],
        operation: operations[method],
        stamp: method,
      })),
    );

    // After each unary call: its answer, its status (HTTP 200, gRPC OK), and a duration.
    const unary = after.filter(({ method }) => method !== 'agent card');
    expect(unary.map(({ method }) => method)).toEqual([send, get]);
    for (const { outcome } of unary) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.result).toMatchObject(version === '1.0' && outcome === unary[0]!.outcome ? { task: expect.any(Object) } : {});
      expect(outcome.status).toBe(binding === 'GRPC' ? 0 : 200);
      expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    }
    // Each event of the stream, then its end, told once.
    expect(streamed!).toBeGreaterThan(3);
    expect(events).toHaveLength(streamed!);
    expect(events.every(({ method }) => method === stream)).toBe(true);
    expect(ends).toEqual([
      { method: stream, outcome: expect.objectContaining({ events: streamed!, status: binding === 'GRPC' ? 0 : 200 }) },
    ]);
    expect(ends[0]!.outcome.error).toBeUndefined();
    expect(ends[0]!.outcome.stopped).toBeUndefined();
  });

  test('refuses a call with its own error (nothing reaches the agent), sees a failed call’s error, and a stream stopped early', async () => {
    const { interceptor, after, ends } = recorder();
    class NotNow extends Error {}
    const refusal = new NotNow('the budget for this agent is spent');
    const guard: Interceptor = {
      before(call) {
        if (call.method === METHODS[version]![1]) throw refusal;
      },
    };
    const [send, get, stream] = METHODS[version]!;
    const c = clientsOf(version, binding, [interceptor, guard]);
    arrived.length = 0;
    try {
      // Refused: the caller gets the interceptor's own error, and the agent never hears of the call.
      await expect(c.get('any-task')).rejects.toBe(refusal);
      expect(arrived.filter((a) => a.stamp === get)).toEqual([]);
      expect(after.find(({ method }) => method === get)?.outcome.error).toBe(refusal);

      // A call the agent fails: `after` is told its error (the task is unknown).
      const unknown = await clientsOf(version, binding, [interceptor]).getOnce('no-such-task');
      expect(unknown).toBeInstanceOf(JsonRpcError);
      const failed = after.filter(({ method }) => method === get).at(-1)!.outcome;
      expect(failed.error).toBe(unknown);
      expect(failed.result).toBeUndefined();

      // A stream the caller stops after its first event: its end says so.
      for await (const _ of c.stream()) break;
      expect(ends.at(-1)).toEqual({ method: stream, outcome: expect.objectContaining({ stopped: true, events: 1 }) });
      expect(arrived.some((a) => a.stamp === send || a.stamp === stream)).toBe(true);
    } finally {
      c.close();
    }
  });
});

/** A client of this version and binding with these interceptors, as the second test drives it. */
function clientsOf(version: string, binding: string, interceptors: Interceptor[]) {
  if (version === '0.1.0') {
    const client = new A2AClient(agentUrl, { interceptors });
    return {
      get: (id: string) => client.get({ id }),
      getOnce: (id: string) =>
        client.get({ id }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      stream: () => client.sendSubscribe(text01('stream')),
      close: () => {},
    };
  }
  if (version === '0.3') {
    const client = new A2AClient03(agentUrl, { interceptors });
    return {
      get: (id: string) => client.getTask({ id }),
      getOnce: (id: string) =>
        client.getTask({ id }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      stream: () => client.streamMessage(message03('stream')),
      close: () => {},
    };
  }
  const client = new A2AClient10(agentUrl, { interceptors, preferredBinding: binding as Binding10, grpc: grpcTransport() });
  return {
    get: (id: string) => client.getTask({ id }),
    getOnce: async (id: string) => {
      try {
        await client.getTask({ id });
        return undefined;
      } catch (error) {
        return error;
      } finally {
        client.close();
      }
    },
    stream: () => client.streamMessage(message10('stream')),
    close: () => client.close(),
  };
}
