// One request followed from the client library through the currency agent to a webhook, with
// the OpenTelemetry SDK registered in this process and its spans kept in memory: one trace, the
// spans in the expected parent/child order, the webhook receiving the trace's traceparent, and
// the agent's own rate fetch (to a loopback stand-in) a child of its turn.
import express from 'express';
import { pino } from 'pino';
import { A2AClient } from 'a2a-client';
import { serverPool } from 'a2a-testing';
import { type ReadableSpan, startInMemoryTracing } from 'a2a-testing/tracing';
import { currencyRouter } from '../src/agent.js';
import { RateSource } from '../src/rates.js';

// What serveAgent registers: fetch's requests are spans of the context they are made in.
const tracing = startInMemoryTracing({ instrumentFetch: true });
const { serve, closeAll } = serverPool();
afterAll(async () => {
  await closeAll();
  await tracing.stop();
});

/** A webhook receiver on loopback that keeps the headers of each notification. */
async function webhookReceiver() {
  const received: { traceparent: string | undefined; state: string }[] = [];
  const app = express().post('/hook', express.json(), (req, res) => {
    received.push({ traceparent: req.get('traceparent'), state: (req.body as { status?: { state?: string } }).status?.state ?? '?' });
    res.status(204).end();
  });
  return { url: `${(await serve(app)).url}/hook`, received };
}

/** The rate source's stand-in: answers 0.5 for any pair. */
async function rateStandIn() {
  const app = express().get('/:date', (req, res) => {
    res.json({ amount: 1, base: req.query.from, date: '2025-04-02', rates: { [String(req.query.to)]: 0.5 } });
  });
  return (await serve(app)).url;
}

/** Waits, a bounded number of times, for `done`. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 100 && !done(); attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

test('client → agent → rate fetch and webhook: one trace, each span under the one that caused it, and the webhook sees traceparent', async () => {
  const ratesUrl = await rateStandIn();
  const receiver = await webhookReceiver();
  const router = currencyRouter({
    rates: new RateSource({ baseUrl: ratesUrl, timeoutMs: 2_000, cacheTtlMs: 60_000 }),
    logger: pino({ level: 'silent' }),
    pushNotifications: { allowlist: ['127.0.0.1'], retries: 0 },
  });
  const agentUrl = (await serve(express().use(router))).url;
  tracing.exporter.reset();

  const client = new A2AClient(agentUrl);
  const task = await client.send({
    id: 'traced-task',
    message: { role: 'user', parts: [{ type: 'text', text: 'convert 100 USD to EUR' }] },
    pushNotification: { url: receiver.url },
  });
  expect(task.status.state).toBe('completed');
  await until(() => receiver.received.some((r) => r.state === 'completed'), 'the final notification');
  await until(() => tracing.spans().filter((s) => s.name === 'a2a push').length >= receiver.received.length, 'the push spans');

  const spans = tracing.spans();
  const parentOf = (span: ReadableSpan) => tracing.parentOf(span, spans);
  const ancestors = (span: ReadableSpan) => tracing.ancestors(span, spans);
  const one = (predicate: (span: ReadableSpan) => boolean, what: string) => {
    const found = spans.filter(predicate);
    expect([what, found.length]).toEqual([what, 1]);
    return found[0]!;
  };

  const clientSpan = one((s) => s.instrumentationScope.name === 'a2a-client' && s.name === 'tasks/send', 'client span');
  const serverSpan = one((s) => s.instrumentationScope.name === 'a2a-express' && s.name === 'tasks/send', 'server span');
  const turn = one((s) => s.name === 'a2a turn', 'turn span');
  const rateFetch = one(
    (s) => s.instrumentationScope.name.includes('undici') && String(s.attributes['url.full']).startsWith(ratesUrl),
    'rate fetch',
  );
  const pushes = spans.filter((s) => s.name === 'a2a push');

  // One trace, started by the client.
  const traceId = clientSpan.spanContext().traceId;
  expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
  expect(clientSpan.parentSpanContext).toBeUndefined();
  // The agent's server span joined the client's trace (through the fetch instrumentation's span).
  expect(ancestors(serverSpan)).toContain(clientSpan);
  expect(serverSpan.attributes).toMatchObject({
    'a2a.protocol.version': '0.1.0',
    'a2a.task.id': 'traced-task',
    'rpc.method': 'tasks/send',
    'a2a.outcome': 'ok',
    'http.response.status_code': 200,
  });
  // The turn is the call's child, and the handler's own HTTP call the turn's.
  expect(parentOf(turn)).toBe(serverSpan);
  expect(turn.attributes).toMatchObject({ 'a2a.task.id': 'traced-task', 'a2a.task.state': 'completed' });
  expect(parentOf(rateFetch)).toBe(turn);
  // Each notification is a span under the call, and its request carried that span's traceparent.
  expect(pushes.length).toBe(receiver.received.length);
  for (const push of pushes) {
    expect(ancestors(push)).toContain(serverSpan);
    expect(push.attributes).toMatchObject({ 'a2a.outcome': 'delivered', 'http.response.status_code': 204 });
  }
  expect(receiver.received.map((r) => r.traceparent).sort()).toEqual(
    pushes.map((push) => `00-${traceId}-${push.spanContext().spanId}-01`).sort(),
  );
  // Nothing a user wrote is in a span.
  for (const span of spans) expect(JSON.stringify(span.attributes)).not.toContain('convert 100');
});

test('with an LLM, its call is a span of the turn too, beside the rate fetch; the prompt is in neither', async () => {
  const ratesUrl = await rateStandIn();
  // An OpenAI-compatible stand-in that answers with a call of the rate tool.
  const llm = await serve(
    express().post('/v1/chat/completions', express.json(), (_req, res) => {
      const call = { name: 'get_exchange_rate', arguments: JSON.stringify({ currency_from: 'USD', currency_to: 'JPY', amount: 100 }) };
      res.json({ choices: [{ message: { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: call }] } }] });
    }),
  );
  const router = currencyRouter({
    rates: new RateSource({ baseUrl: ratesUrl, timeoutMs: 2_000, cacheTtlMs: 60_000 }),
    llm: { baseUrl: `${llm.url}/v1`, model: 'test-model', apiKey: 'sk-test', timeoutMs: 2_000 },
    logger: pino({ level: 'silent' }),
  });
  const agentUrl = (await serve(express().use(router))).url;
  tracing.exporter.reset();
  const task = await new A2AClient(agentUrl).send({
    id: 'traced-llm',
    message: { role: 'user', parts: [{ type: 'text', text: 'a hundred greenbacks in Tokyo money' }] },
  });
  expect(task.status.state).toBe('completed');
  const spans = tracing.spans();
  const turn = spans.find((s) => s.name === 'a2a turn')!;
  const outgoing = spans.filter((s) => tracing.parentOf(s, spans) === turn).map((s) => String(s.attributes['url.full']));
  expect(outgoing.some((url) => url.startsWith(`${llm.url}/v1/chat/completions`))).toBe(true);
  expect(outgoing.some((url) => url.startsWith(ratesUrl))).toBe(true);
  for (const span of spans) expect(JSON.stringify(span.attributes)).not.toContain('greenbacks');
});
