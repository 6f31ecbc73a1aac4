// The client's calls as OpenTelemetry spans: each a CLIENT span named after its method (or its
// route, over HTTP+JSON), whose traceparent the agent receives: written by the client itself, or,
// when an instrumentation of fetch is registered, by that instrumentation alone (never twice).
import { serverPool } from 'a2a-testing';
import { startInMemoryTracing } from 'a2a-testing/tracing';
import { A2AClient } from '../src/index.js';

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
