// Every kind of refusal, sent over each of 1.0's bindings (JSON-RPC, HTTP+JSON, gRPC) to one agent
// on loopback: each comes back with its documented status (docs/request-path.md, "Refusals"),
// and each is accounted for once and the same way whichever binding carried it: one log line
// with the code its version gives it, one count in the calls metric, and one server span with
// that code. The span is found by the trace the request names (`traceparent`), so that no other
// request's span is counted.
import { randomBytes } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { postJson } from 'a2a-testing';
import { parseScrape } from 'a2a-testing/metrics';
import { type ReadableSpan, startInMemoryTracing } from 'a2a-testing/tracing';
import { apiKey, completed } from '../src/index.js';
import { grpcAgents, unary } from './grpc-agents.js';
import { eventually, memoryLogger, message10 } from './helpers.js';

const tracing = startInMemoryTracing();
const agents = grpcAgents();
afterAll(async () => {
  await agents.close();
  await tracing.stop();
});

const REQUIRED_EXTENSION = 'urn:example:required';
const BODY_LIMIT = 8 * 1024;
const { logger, lines } = memoryLogger();
const served = agents.agent(
  async () => completed('done'),
  {
    logger,
    metrics: true,
    auth: {
      strategies: [apiKey({ keys: { 'key-alice': 'alice', 'key-mallory': 'mallory' } })],
      authorize: ({ principal }) => principal.id !== 'mallory',
    },
    tenants: ['acme'],
    extensions: [{ uri: REQUIRED_EXTENSION, required: true }],
    bodyLimit: BODY_LIMIT,
  },
  { maxMessageBytes: BODY_LIMIT },
);

/** What a well-formed call carries: the version, a key, the required extension. */
const ACCEPTED = { 'a2a-version': '1.0', 'x-api-key': 'key-alice', 'a2a-extensions': REQUIRED_EXTENSION };

interface Refusal {
  readonly name: string;
  /** What the call carries instead of the accepted headers. */
  readonly headers: Record<string, string | undefined>;
  /** The tenant the call names, if any. */
  readonly tenant?: string;
  /** The message's text (a long one is past the body limit). */
  readonly text?: string;
  /** The code its log line and metric say (1.0's JSON-RPC code for its reason). */
  readonly code: number;
  readonly jsonRpcStatus: number;
  readonly restStatus: number;
  readonly grpcStatus: grpc.status;
}

const TOO_LONG = 'x'.repeat(BODY_LIMIT + 1024);

/** The refusals, as the documentation's table gives them (docs/request-path.md). */
const REFUSALS: readonly Refusal[] = [
  {
    name: 'unauthenticated',
    headers: { 'x-api-key': undefined },
    code: -32000,
    jsonRpcStatus: 401,
    restStatus: 401,
    grpcStatus: grpc.status.UNAUTHENTICATED,
  },
  {
    name: 'forbidden',
    headers: { 'x-api-key': 'key-mallory' },
    code: -32000,
    jsonRpcStatus: 403,
    restStatus: 403,
    grpcStatus: grpc.status.PERMISSION_DENIED,
  },
  {
    name: 'version not served',
    headers: { 'a2a-version': '0.9' },
    code: -32009,
    jsonRpcStatus: 200,
    restStatus: 400,
    grpcStatus: grpc.status.FAILED_PRECONDITION,
  },
  {
    name: 'unknown tenant',
    headers: {},
    tenant: 'initech',
    code: -32602,
    jsonRpcStatus: 200,
    restStatus: 400,
    grpcStatus: grpc.status.INVALID_ARGUMENT,
  },
  {
    name: 'required extension not asked for',
    headers: { 'a2a-extensions': undefined },
    code: -32008,
    jsonRpcStatus: 200,
    restStatus: 400,
    grpcStatus: grpc.status.FAILED_PRECONDITION,
  },
  {
    name: 'body too large',
    headers: {},
    text: TOO_LONG,
    code: -32600,
    jsonRpcStatus: 413,
    restStatus: 413,
    grpcStatus: grpc.status.RESOURCE_EXHAUSTED,
  },
];

/** The refusal of a draining agent, sent last: a drain is for good. */
const DRAINING: Refusal = {
  name: 'draining',
  headers: {},
  code: -32011,
  jsonRpcStatus: 503,
  restStatus: 503,
  grpcStatus: grpc.status.UNAVAILABLE,
};

type Binding = 'jsonrpc' | 'rest' | 'grpc';
const BINDINGS: readonly Binding[] = ['jsonrpc', 'rest', 'grpc'];

/** The call's headers: the accepted ones changed as the refusal says, and a trace of its own. */
function headersOf(refusal: Refusal, traceId: string): Record<string, string> {
  const headers: Record<string, string> = { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
  for (const [name, value] of Object.entries({ ...ACCEPTED, ...refusal.headers })) if (value !== undefined) headers[name] = value;
  return headers;
}

/** Sends SendMessage over `binding` as `refusal` says; the status it is answered with (HTTP's, or gRPC's code). */
async function send(binding: Binding, refusal: Refusal, traceId: string): Promise<number> {
  const { url, client } = await served;
  const headers = headersOf(refusal, traceId);
  const message = message10(refusal.text ?? 'hello');
  const tenant = refusal.tenant;
  switch (binding) {
    case 'jsonrpc': {
      const body = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message, ...(tenant && { tenant }) } };
      return (await postJson(`${url}/v1`, body, headers)).status;
    }
    case 'rest':
      return (await postJson(`${url}/v1${tenant ? `/${tenant}` : ''}/message:send`, { message }, headers)).status;
    case 'grpc': {
      const answer = await unary(client, 'sendMessage', { message, ...(tenant && { tenant }) }, headers);
      if (!answer.error) throw new Error('the gRPC call was not refused');
      return answer.error.code;
    }
  }
}

/** The calls metric's count for a binding and code. */
async function counted(binding: Binding, code: number): Promise<number> {
  const { router } = await served;
  const scrape = parseScrape(await router.metrics!.registry.metrics());
  return scrape.value('a2a_calls_total', { version: '1.0', binding, outcome: String(code) });
}

/** The server spans of a trace, once the request's span has ended. */
async function serverSpansOf(traceId: string): Promise<ReadableSpan[]> {
  const ofTrace = () => tracing.spans().filter((span) => span.kind === 1 /* SERVER */ && span.spanContext().traceId === traceId);
  await eventually(async () => (ofTrace().length > 0 ? true : undefined));
  return ofTrace();
}

/** Sends the refusal over the binding, and checks what it is answered with and how it is accounted for. */
async function expectRefused(binding: Binding, refusal: Refusal): Promise<void> {
  const traceId = randomBytes(16).toString('hex');
  const linesBefore = lines().length;
  const countBefore = await counted(binding, refusal.code);
  const status = await send(binding, refusal, traceId);
  expect(status).toBe({ jsonrpc: refusal.jsonRpcStatus, rest: refusal.restStatus, grpc: refusal.grpcStatus }[binding]);
  // One line for the call: the refusal's, with its code.
  const callLines = lines()
    .slice(linesBefore)
    .filter((line) => typeof line.msg === 'string' && line.msg.startsWith('a2a call'));
  expect(callLines).toEqual([expect.objectContaining({ outcome: 'error', code: refusal.code })]);
  expect(await counted(binding, refusal.code)).toBe(countBefore + 1);
  const spans = await serverSpansOf(traceId);
  expect(spans).toHaveLength(1);
  expect(spans[0]!.attributes).toMatchObject({ 'a2a.outcome': 'error', 'a2a.error.code': refusal.code, 'a2a.binding': binding });
}

describe.each(REFUSALS)('$name', (refusal) => {
  test.each(BINDINGS)('over %s: its status, one log line, one count, one span', (binding) => expectRefused(binding, refusal));
});

describe('draining', () => {
  beforeAll(async () => {
    const { router } = await served;
    await router.drain({ deadlineMs: 1_000 });
  });
  test.each(BINDINGS)('over %s: its status, one log line, one count, one span', (binding) => expectRefused(binding, DRAINING));

  test('a refusal over HTTP says the connection ends and when to try again; its log line names the step that refused it', async () => {
    const { url } = await served;
    const answer = await postJson(
      `${url}/v1/message:send`,
      { message: message10('x') },
      headersOf(DRAINING, randomBytes(16).toString('hex')),
    );
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(answer.headers.get('connection')).toBe('close');
    expect(lines().at(-1)).toMatchObject({ msg: 'a2a call refused', refused: 'draining', code: -32011 });
  });
});
