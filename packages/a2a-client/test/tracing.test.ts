// The client's calls as OpenTelemetry spans: each a CLIENT span named after its method (or its
// route, over HTTP+JSON), whose traceparent the agent receives: written by the client itself, or,
// when an instrumentation of fetch is registered, by that instrumentation alone (never twice).
// And an orchestrator's trace across a real agent (a2a-express on loopback, its gRPC beside it):
// the orchestrator's span, the client span under it, the agent's server span under that, one
// trace over every version and binding, gRPC's metadata included.
import { trace } from '@opentelemetry/api';
import express from 'express';
import { a2aRouter, artifact, completed } from 'a2a-express';
import { pino } from 'pino';
import { serverPool } from 'a2a-testing';
import { startInMemoryTracing } from 'a2a-testing/tracing';
import { A2AClient, A2AClient03, A2AClient10, type Binding10, type InterceptedCall } from '../src/index.js';
import { grpcTransport } from '../src/grpc.js';

const tracing = startInMemoryTracing();
const { serve, closeAll } = serverPool();
afterAll(async () => {
  await closeAll();
  await tracing.stop();
});

/** An agent stand-in: answers every JSON-RPC call with a task, keeping the traceparent headers it got. */
async function recordingAgent() {
  const received: (string | string[] | undefined)[] = [];
  const { url } = await serve((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push(req.headersDistinct.traceparent);
      const { id } = JSON.parse(body) as { id: number };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { id: 'task-1', status: { state: 'completed' } } }));
    });
  });
  return { url, received };
}

describe.each([
  ['no instrumentation of fetch', false],
  ['the instrumentation of fetch registered', true],
])('with %s', (_, instrumentFetch) => {
  let uninstrument = () => {};
  beforeAll(() => {
    tracing.exporter.reset();
    if (instrumentFetch) uninstrument = tracing.instrumentFetch();
  });
  afterAll(() => uninstrument());

  test('a call is a client span, and the agent receives one traceparent in its trace', async () => {
    const agent = await recordingAgent();
    await new A2AClient(agent.url).get({ id: 'task-1' });
    const spans = tracing.spans();
    const call = spans.find((span) => span.instrumentationScope.name === 'a2a-client');
    expect(call).toMatchObject({ name: 'tasks/get', kind: 2 /* CLIENT */ });
    expect(call!.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 200 });
    expect(agent.received).toHaveLength(1);
    const headers = agent.received[0] as string[];
    expect(headers).toHaveLength(1);
    const [, traceId, parentId] = headers[0]!.split('-');
    expect(traceId).toBe(call!.spanContext().traceId);
    // The client's own span, or the instrumentation's span under it.
    const parent = spans.find((span) => span.spanContext().spanId === parentId)!;
    expect(parent === call || tracing.parentOf(parent, spans) === call).toBe(true);
  });
});

describe('an orchestrator calling an agent: one trace', () => {
  let agentUrl: string;
  let closeAgent: () => Promise<void>;
  beforeAll(async () => {
    const { serveGrpc } = await import('a2a-express/grpc');
    const router = a2aRouter(
      async function* () {
        yield artifact('traced');
        yield completed();
      },
      { card: { name: 'Traced', version: '1.0.0' }, logger: pino({ level: 'silent' }) },
    );
    agentUrl = (await serve(express().use(router)))!.url;
    const grpcServer = await serveGrpc(router, { port: 0, agentUrl });
    closeAgent = async () => {
      await grpcServer.close({ graceMs: 100 });
      await router.close();
    };
  });
  afterAll(() => closeAgent?.());

  const message10 = () => ({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] } });
  const calls: [string, string, (interceptors: { before(call: InterceptedCall): void }[]) => Promise<unknown>][] = [
    [
      '0.1.0',
      'tasks/send',
      (interceptors) =>
        new A2AClient(agentUrl, { interceptors }).send({
          id: crypto.randomUUID(),
          message: { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
        }),
    ],
    [
      '0.3',
      'message/send',
      (interceptors) =>
        new A2AClient03(agentUrl, { interceptors }).sendMessage({
          message: { kind: 'message', messageId: crypto.randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
        }),
    ],
    ...(['JSONRPC', 'HTTP+JSON', 'GRPC'] as Binding10[]).map((binding): (typeof calls)[number] => [
      `1.0 over ${binding}`,
      binding === 'HTTP+JSON' ? '/message:send' : 'SendMessage',
      async (interceptors) => {
        const client = new A2AClient10(agentUrl, { interceptors, preferredBinding: binding, grpc: grpcTransport() });
        try {
          return await client.sendMessage(message10());
        } finally {
          client.close();
        }
      },
    ]),
  ];

  test.each(calls)(
    '%s: the agent’s server span is under the client span, under the orchestrator’s; traceparent and tracestate sent',
    async (_name, spanName, call) => {
      tracing.exporter.reset();
      const sent: Record<string, string>[] = [];
      // An interceptor after the tracing one sees what it wrote.
      const looking = { before: (c: InterceptedCall) => void sent.push({ ...c.headers }) };
      const orchestrator = trace.getTracer('orchestrator');
      const traceId = await orchestrator.startActiveSpan('orchestrate', async (span) => {
        try {
          await call([looking]);
          return span.spanContext().traceId;
        } finally {
          span.end();
        }
      });
      const spans = tracing.spans().filter((s) => s.spanContext().traceId === traceId);
      const root = spans.find((s) => s.name === 'orchestrate')!;
      const clientSpan = spans.find((s) => s.instrumentationScope.name === 'a2a-client' && s.name.endsWith(spanName))!;
      expect(clientSpan).toMatchObject({ kind: 2 /* CLIENT */ });
      expect(tracing.parentOf(clientSpan, spans)).toBe(root);
      const serverSpans = spans.filter((s) => s.instrumentationScope.name === 'a2a-express' && s.kind === 1 /* SERVER */);
      expect(serverSpans.length).toBeGreaterThan(0);
      for (const server of serverSpans) expect(tracing.ancestors(server, spans)).toContain(clientSpan);
      // The call's own span is the agent's parent: its traceparent names it.
      const last = sent.at(-1)!;
      expect(last.traceparent).toBe(`00-${traceId}-${clientSpan.spanContext().spanId}-01`);
    },
  );

  test('tracestate goes with traceparent; `tracing: false` sends neither', async () => {
    const sent: Record<string, string>[] = [];
    const looking = { before: (c: InterceptedCall) => void sent.push({ ...c.headers }) };
    const { TraceState } = await import('@opentelemetry/core');
    const orchestrator = trace.getTracer('orchestrator');
    const parent = trace.setSpanContext((await import('@opentelemetry/api')).context.active(), {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      isRemote: true,
      traceState: new TraceState('vendor=opaque'),
    });
    await orchestrator.startActiveSpan('orchestrate', {}, parent, async (span) => {
      try {
        await new A2AClient10(agentUrl, { interceptors: [looking] }).getCard();
        await new A2AClient10(agentUrl, { interceptors: [looking], tracing: false }).getCard();
      } finally {
        span.end();
      }
    });
    expect(sent[0]).toMatchObject({
      traceparent: expect.stringMatching(/^00-4bf92f3577b34da6a3ce929d0e0e4736-/),
      tracestate: 'vendor=opaque',
    });
    expect(sent[1]).not.toHaveProperty('traceparent');
    expect(sent[1]).not.toHaveProperty('tracestate');
  });
});
