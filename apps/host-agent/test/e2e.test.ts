// The host agent end to end, each agent as its start script runs it: the echo and currency
// agents and the host on loopback, the host's scripted model calling the echo agent over A2A 1.0
// and the currency agent over 0.3 (as ECHO_AGENT_VERSION and CURRENCY_AGENT_VERSION say), and
// every agent's spans sent over OTLP/HTTP to a collector stand-in: one trace across the three.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { A2AClient10 } from 'a2a-client';
import { listen, spawnAgent, type SpawnedAgent } from 'a2a-testing';

const appsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

/** A collector stand-in on loopback: keeps what each agent posts to /v1/traces (OTLP/HTTP JSON). */
async function collector() {
  const exports: OtlpExport[] = [];
  const server = await listen((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') exports.push(JSON.parse(body) as OtlpExport);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  /** Every span collected, with its service's name and scope's name. */
  const spans = () =>
    exports.flatMap((e) =>
      e.resourceSpans.flatMap((r) => {
        const service = r.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '?';
        return r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, service, scope: s.scope.name })));
      }),
    );
  return { server, spans };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? value?.intValue;
};

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('host agent, with the echo and currency agents', () => {
  let traces: Awaited<ReturnType<typeof collector>>;
  let echo: SpawnedAgent;
  let currency: SpawnedAgent;
  let host: SpawnedAgent;
  let stopped = false;
  const agents = () => [host, echo, currency].filter(Boolean);

  beforeAll(async () => {
    traces = await collector();
    const otel = (service: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: traces.server.url, OTEL_SERVICE_NAME: service });
    [echo, currency] = await Promise.all([
      spawnAgent('node', ['dist/server.js'], { cwd: join(appsDir, 'echo-agent'), env: { PORT: '0', ...otel('echo-agent') } }),
      // No network: the rates come from the agent's offline snapshot.
      spawnAgent('node', ['dist/server.js'], {
        cwd: join(appsDir, 'currency-agent'),
        env: { PORT: '0', FRANKFURTER_URL: 'http://127.0.0.1:9', RATES_TIMEOUT_MS: '500', ...otel('currency-agent') },
      }),
    ]);
    host = await spawnAgent('node', ['dist/server.js'], {
      cwd: join(appsDir, 'host-agent'),
      env: {
        PORT: '0',
        ECHO_AGENT_URL: echo.url,
        ECHO_AGENT_VERSION: '1.0',
        CURRENCY_AGENT_URL: currency.url,
        CURRENCY_AGENT_VERSION: '0.3',
        ...otel('host-agent'),
      },
    });
  });
  afterAll(async () => {
    if (!stopped) await Promise.all(agents().map((agent) => agent.stop()));
    await traces.server.close();
  });

  test('a request is routed to both agents, and the answer holds what each said', async () => {
    expect(host.output()).toContain('"model":"scripted');
    const client = new A2AClient10(host.url, { headers: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } });
    const answer = await client.sendMessage({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'convert 100 USD to EUR' }] },
    });
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    const text = ('task' in answer ? (answer.task.artifacts ?? []) : [])
      .flatMap((a) => a.parts)
      .map((p) => ('text' in p ? p.text : ''))
      .join('');
    expect(text).toContain('echo: convert 100 USD to EUR');
    expect(text).toMatch(/currency: 100 USD is [\d.]+ EUR\./);
  });

  test('one trace across the three: the host’s call, its client calls, and the echo (1.0) and currency (0.3) agents’ server spans', async () => {
    // Each agent sends what it has left when it stops.
    stopped = true;
    expect(await Promise.all(agents().map((agent) => agent.stop()))).toEqual([0, 0, 0]);
    const inTrace = traces.spans().filter((span) => span.traceId === TRACE_ID);
    const server = (service: string) => inTrace.filter((s) => s.service === service && s.scope === 'a2a-express' && s.kind === 2);
    // The host's incoming call, in the caller's trace.
    expect(server('host-agent').map((s) => s.name)).toContain('SendMessage');
    // Its calls of the other agents, as a2a-client's client spans (kind 3)...
    const clientCalls = inTrace.filter((s) => s.service === 'host-agent' && s.scope === 'a2a-client' && s.kind === 3);
    expect(clientCalls.map((s) => s.name)).toEqual(expect.arrayContaining(['SendStreamingMessage', 'message/stream']));
    // ...each under the host's turn, and each answered by the agent's own server span, in the same trace.
    const echoCall = server('echo-agent').find((s) => s.name === 'SendStreamingMessage');
    const currencyCall = server('currency-agent').find((s) => s.name === 'message/stream');
    expect(echoCall && attribute(echoCall, 'a2a.protocol.version')).toBe('1.0');
    expect(currencyCall && attribute(currencyCall, 'a2a.protocol.version')).toBe('0.3');
    // Each reached through the host: an ancestor of its server span is one of the host's client spans.
    const byId = new Map(inTrace.map((s) => [s.spanId, s]));
    const ancestors = (span: (typeof inTrace)[number]) => {
      const chain: typeof inTrace = [];
      for (let at = byId.get(span.parentSpanId ?? ''); at && chain.length < 50; at = byId.get(at.parentSpanId ?? '')) chain.push(at);
      return chain;
    };
    for (const call of [echoCall!, currencyCall!]) {
      expect(ancestors(call).some((s) => clientCalls.includes(s))).toBe(true);
      expect(ancestors(call).some((s) => server('host-agent').includes(s))).toBe(true);
    }
  });
});
