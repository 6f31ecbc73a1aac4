// The checks of `a2a check`: each names what it holds the agent to, the section of the spec that
// says so and its level, and which version and binding it speaks. A check passes by returning;
// it fails (`CheckFailed`) with what was expected and what came, or is skipped (`CheckSkipped`)
// when the agent does not declare what it needs. docs/check.md lists them all.
import { randomUUID } from 'node:crypto';
import { allIssues } from 'a2a-types';
import { verifyCardSignature } from '../card-signature.js';
import { publishedSchemaValidator03 } from 'a2a-types/v0.3';
import { publishedSchemaValidator10 } from 'a2a-types/v1.0';
import type { Protocol } from '../cli-agent.js';
import { type Exchange, GrpcMissing, type GrpcOutcome, type SseEvent } from './prober.js';

export type Level = 'MUST' | 'SHOULD' | 'MAY';
/** What a check speaks: a card, or a binding of its version. */
export type Binding = 'card' | 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export class CheckFailed extends Error {}
export class CheckSkipped extends Error {}

/** What a check is given: where to send, what the agent declared, and a way to send that records. */
export interface CheckContext {
  /** The endpoint of this version and binding (for a card check, the card's URL). */
  url: string;
  /** The card of this version, as served. */
  card: Record<string, unknown>;
  /** The text of the messages the check sends. */
  message: string;
  /** A message the agent takes a while over (a second or more), for the checks that need a task still running; or none. */
  slowMessage: string | undefined;
  send(
    method: string,
    url: string,
    init?: { headers?: Record<string, string>; body?: string },
  ): Promise<Exchange & { events?: SseEvent[] }>;
  /** One gRPC call of `A2AService` at this interface (`url` is its `host:port`), in JSON form. */
  grpc(method: string, request: unknown, metadata?: Record<string, string>): Promise<Exchange & { grpc?: GrpcOutcome }>;
  /** Remembers a task the check started, to be canceled at the end if it is still running. */
  started(taskId: string): void;
  /** Problems of the card against its version's published schema. */
  cardProblems: readonly { path: string; message: string }[];
  /** A webhook on this machine the check may give the agent, started on first use, closed at the end. */
  webhook(): Promise<Webhook>;
  /** Every endpoint the checks found, by version and binding (`0.3 JSONRPC`): for the checks across versions. */
  endpoints: ReadonlyMap<string, string>;
}

/** The checker's own webhook: what it received, in order. */
export interface Webhook {
  url: string;
  /** The next notification received (waiting up to `ms`), or undefined. */
  next(ms: number): Promise<{ headers: Record<string, string | string[] | undefined>; body: string } | undefined>;
}

export interface CheckDefinition {
  id: string;
  title: string;
  version: Protocol;
  binding: Binding;
  /** The spec's section(s), as `1.0 §3.1.3`. */
  section: string;
  level: Level;
  run(ctx: CheckContext): Promise<void>;
}

/** Checks of one version and binding. */
function over(version: Protocol, binding: Binding, checks: Omit<CheckDefinition, 'version' | 'binding'>[]): CheckDefinition[] {
  return checks.map((check) => ({ ...check, version, binding }));
}

function fail(reason: string): never {
  throw new CheckFailed(reason);
}

function skip(reason: string): never {
  throw new CheckSkipped(reason);
}

const capability = (ctx: CheckContext, name: string) => (ctx.card.capabilities as Record<string, unknown> | undefined)?.[name] === true;

/** The JSON of an answer; a failure when there is none or it is not JSON. */
function jsonOf(exchange: Exchange): Record<string, unknown> {
  if (!exchange.response) fail(`no answer: ${exchange.error}`);
  try {
    return JSON.parse(exchange.response.body) as Record<string, unknown>;
  } catch {
    fail(`HTTP ${exchange.response.status}, not JSON: ${exchange.response.body.slice(0, 200)}`);
  }
}

let rpcIds = 0;

/** A JSON-RPC call: the answer's body, checked to be a JSON-RPC response to this call. */
async function rpc(
  ctx: CheckContext,
  method: string,
  params: unknown,
  { version, headers = {} }: { version?: string; headers?: Record<string, string> } = {},
): Promise<{
  result?: Record<string, unknown>;
  error?: { code?: unknown; message?: unknown };
  /** The A2A-Version the call asked for. */
  version?: string;
  exchange: Exchange & { events?: SseEvent[] };
}> {
  const id = ++rpcIds;
  const exchange = await ctx.send('POST', ctx.url, {
    headers: { 'content-type': 'application/json', ...(version && { 'A2A-Version': version }), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  if (exchange.events) return { exchange, ...(version && { version }) };
  const body = jsonOf(exchange);
  if (body.jsonrpc !== '2.0') fail(`the answer is not JSON-RPC 2.0 (jsonrpc: ${JSON.stringify(body.jsonrpc)})`);
  if (body.id !== id) fail(`the answer's id is ${JSON.stringify(body.id)}, the request's ${id}`);
  return { ...(body as { result?: Record<string, unknown>; error?: { code?: unknown } }), exchange, ...(version && { version }) };
}

function expectError(answer: { result?: unknown; error?: { code?: unknown }; version?: string }, code: number, name: string): void {
  if (!answer.error) fail(`expected ${name} (${code}); the call succeeded`);
  if (answer.error.code !== code)
    fail(`expected ${name} (${code}); got ${JSON.stringify(answer.error.code)}: ${JSON.stringify(answer.error).slice(0, 200)}`);
  if (typeof (answer.error as { message?: unknown }).message !== 'string') fail('the error has no message (JSON-RPC 2.0 §5.1)');
  // 1.0 §9.5: the details are an array of objects, each with its @type (0.3 left `data` free).
  const { data } = answer.error as { data?: unknown };
  if (answer.version === '1.0' && data !== undefined) {
    if (!Array.isArray(data))
      fail(`${name} as expected, but its data is not an array of details (1.0 §9.5): ${JSON.stringify(data).slice(0, 200)}`);
    const untyped = data.findIndex((d) => typeof (d as { '@type'?: unknown } | null)?.['@type'] !== 'string');
    if (untyped >= 0) fail(`${name} as expected, but data[${untyped}] has no @type (1.0 §9.5: each MUST)`);
  }
}

function expectValid(
  what: string,
  validate: ((value: unknown) => boolean) & { issues: readonly { path: string; message: string }[] },
  value: unknown,
) {
  if (!validate(value))
    fail(
      `${what} departs from the published schema: ${validate.issues
        .map((i) => `${i.path || '/'} ${i.message}`)
        .slice(0, 3)
        .join('; ')}`,
    );
}

const TERMINAL_10 = ['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'];
const INTERRUPTED_10 = ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'];

/** The task's state a Stream Response carries (a task, or a status update); '' for the rest. */
const stateOf = (response: Record<string, unknown> | undefined): string =>
  ((response?.statusUpdate ?? response?.task) as { status?: { state?: string } } | undefined)?.status?.state ?? '';

const message10 = (ctx: CheckContext) => ({ messageId: `a2a-check-${randomUUID()}`, role: 'ROLE_USER', parts: [{ text: ctx.message }] });

/** Sends the check's message over 1.0 JSON-RPC: the task it started (remembered for the cleanup), or undefined for a reply. */
async function sendMessage10(ctx: CheckContext): Promise<Record<string, unknown> | undefined> {
  const answer = await rpc(ctx, 'SendMessage', { message: message10(ctx) }, { version: '1.0' });
  if (answer.error) fail(`SendMessage failed: ${JSON.stringify(answer.error).slice(0, 300)}`);
  expectValid('the SendMessage result', publishedSchemaValidator10('Send Message Response'), answer.result);
  const task = answer.result?.task as Record<string, unknown> | undefined;
  if (task) ctx.started(String(task.id));
  return task;
}

/** A task of the agent's that has ended: the check's message sent, the task canceled when it has not. */
async function endedTask10(ctx: CheckContext): Promise<string> {
  const task = await sendMessage10(ctx);
  if (!task) skip('the agent answered the message with a message, not a task');
  const state = (task.status as { state?: string } | undefined)?.state ?? '';
  if (TERMINAL_10.includes(state)) return String(task.id);
  const canceled = await rpc(ctx, 'CancelTask', { id: task.id }, { version: '1.0' });
  if (canceled.error) skip(`the task is ${state} and could not be canceled to end it`);
  return String(task.id);
}

const unknownTaskId = () => `a2a-check-unknown-${randomUUID()}`;

/** The URIs of the extensions a card marks required (`capabilities.extensions`, 0.3 and 1.0). */
export function requiredExtensionsOf(card: Record<string, unknown>): string[] {
  const listed = (card.capabilities as { extensions?: unknown } | undefined)?.extensions;
  return (Array.isArray(listed) ? listed : []).flatMap((e) => {
    const { uri, required } = (e ?? {}) as { uri?: unknown; required?: unknown };
    return required === true && typeof uri === 'string' ? [uri] : [];
  });
}

/** A media type no agent is expected to take: the checks' unsupported content. */
const UNACCEPTED_MEDIA_TYPE = 'application/x-a2a-check-unaccepted';

/** The media types a card says it takes: its defaults and each skill's. */
function inputModesOf(card: Record<string, unknown>): string[] {
  const listed = (value: unknown) => (Array.isArray(value) ? value.filter((m): m is string => typeof m === 'string') : []);
  const skills = Array.isArray(card.skills) ? card.skills : [];
  return [...listed(card.defaultInputModes), ...skills.flatMap((skill) => listed((skill as { inputModes?: unknown } | null)?.inputModes))];
}

/** A request whose `jsonrpc` is "1.0": -32600 Invalid Request, its id echoed. */
async function expectInvalidRequest(ctx: CheckContext, headers: Record<string, string>): Promise<void> {
  const exchange = await ctx.send('POST', ctx.url, {
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '1.0', id: 'a2a-check-invalid', method: 'GetTask', params: { id: 'a2a-check-invalid-request' } }),
  });
  const body = jsonOf(exchange) as { id?: unknown; error?: { code?: unknown } };
  expectError(body, -32600, 'Invalid Request');
  if (body.id !== 'a2a-check-invalid' && body.id !== null)
    fail(`the answer's id is ${JSON.stringify(body.id)}, the request's "a2a-check-invalid"`);
}

/** The first event of an SSE answer, as a JSON-RPC response (an error sent as a stream's one event). */
function firstEventOf(events: SseEvent[]): { result?: unknown; error?: { code?: unknown } } {
  try {
    return JSON.parse(events[0]?.data ?? '{}') as { error?: { code?: unknown } };
  } catch {
    fail(`the stream's first event is not JSON: ${events[0]?.data.slice(0, 200)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Cards

/** A card check's run: the card's problems against its version's published schema, the first five named. */
async function failOnCardProblems(ctx: CheckContext): Promise<void> {
  if (ctx.cardProblems.length > 0)
    fail(
      ctx.cardProblems
        .map((p) => `${p.path || '/'} ${p.message}`)
        .slice(0, 5)
        .join('; '),
    );
}

const CARD_HEADERS = { accept: 'application/json', 'A2A-Version': '1.0' };

/** The 1.0 card read again, as a client asks for it. */
async function readCard(ctx: CheckContext): Promise<{ headers: Record<string, string> }> {
  const exchange = await ctx.send('GET', ctx.url, { headers: CARD_HEADERS });
  if (!exchange.response) fail(`no answer: ${exchange.error}`);
  if (exchange.response.status !== 200) fail(`HTTP ${exchange.response.status}: ${exchange.response.body.slice(0, 200)}`);
  return { headers: exchange.response.headers };
}

/** A card's signatures against the keys they name: the first one's `jku`, else the agent's own JWKS beside its card. */
async function checkSignatures(ctx: CheckContext, protocol: '1.0' | '0.3'): Promise<void> {
  const signatures = ctx.card.signatures;
  if (!Array.isArray(signatures) || signatures.length === 0) skip('the card is not signed');
  let jku: unknown;
  try {
    jku = JSON.parse(Buffer.from(String((signatures[0] as { protected?: unknown }).protected), 'base64url').toString()).jku;
  } catch {
    fail('the first signature’s protected header is not base64url JSON');
  }
  // The keys beside the card: its path's `.well-known/agent-card.json` (or agent.json) becomes
  // `jwks.json`; or the signature's jku, at the card's own origin only (the checker fetches
  // nothing a card names elsewhere).
  const keysUrl = typeof jku === 'string' ? jku : ctx.url.replace(/\/\.well-known\/agent(-card)?\.json$/, '/.well-known/jwks.json');
  if (URL.canParse(keysUrl) && new URL(keysUrl).origin !== new URL(ctx.url).origin)
    skip(`the signature's keys are at another origin (${keysUrl}): check them with a2a card --verify --jwks`);
  const exchange = await ctx.send('GET', keysUrl, { headers: { accept: 'application/json' } });
  if (exchange.response?.status !== 200) skip(`the keys at ${keysUrl} could not be read (${exchange.response?.status ?? exchange.error})`);
  let keys: { keys: unknown[] };
  try {
    keys = JSON.parse(exchange.response.body) as { keys: unknown[] };
  } catch {
    fail(`the keys at ${keysUrl} are not JSON`);
  }
  const check = await verifyCardSignature(ctx.card, { keys: keys as never, protocol });
  if (!check.valid) fail(`${check.reason ?? 'no signature verifies'}${check.kid ? ` (kid ${check.kid})` : ''}, against ${keysUrl}`);
}

const cardChecks: CheckDefinition[] = [
  {
    id: 'card-1.0-schema',
    title: 'the 1.0 card passes the published 1.0 schema',
    version: '1.0',
    binding: 'card',
    section: '1.0 §4.4.1, §8',
    level: 'MUST',
    run: failOnCardProblems,
  },
  {
    id: 'card-1.0-interfaces',
    title: 'the 1.0 card declares its interfaces, each with a URL, a binding and a version',
    version: '1.0',
    binding: 'card',
    section: '1.0 §8.3.1',
    level: 'MUST',
    async run(ctx) {
      const interfaces = ctx.card.supportedInterfaces;
      if (!Array.isArray(interfaces) || interfaces.length === 0) fail('supportedInterfaces is missing or empty');
      for (const [i, entry] of interfaces.entries()) {
        const { url, protocolBinding, protocolVersion } = (entry ?? {}) as Record<string, unknown>;
        // A gRPC client dials a target (host:port), which the servers of the SDKs and of this kit list;
        // the proto's "absolute HTTPS URL in production" is taken too (docs/check.md says why).
        const grpcTarget =
          String(protocolBinding).toUpperCase() === 'GRPC' && typeof url === 'string' && /^[\w.-]+:\d+$|^\[[\da-f:]+\]:\d+$/i.test(url);
        if (typeof url !== 'string' || (!/^https?:\/\//.test(url) && !grpcTarget))
          fail(
            `supportedInterfaces[${i}].url is not an absolute URL${String(protocolBinding).toUpperCase() === 'GRPC' ? ' or a host:port' : ''}: ${JSON.stringify(url)}`,
          );
        if (typeof protocolBinding !== 'string' || protocolBinding === '') fail(`supportedInterfaces[${i}].protocolBinding is missing`);
        if (typeof protocolVersion !== 'string' || !/^\d+\.\d+/.test(protocolVersion))
          fail(`supportedInterfaces[${i}].protocolVersion is not a version: ${JSON.stringify(protocolVersion)}`);
      }
    },
  },
  {
    id: 'card-1.0-required',
    title: 'the 1.0 card has every field the spec requires, and so does each skill',
    version: '1.0',
    binding: 'card',
    // The proto's field_behavior REQUIRED; a required repeated field holds at least one element (AIP-203).
    section: '1.0 §4.4.1, §4.4.5',
    level: 'MUST',
    async run(ctx) {
      const missing: string[] = [];
      const need = (value: unknown, path: string, kind: 'text' | 'list' | 'object') => {
        const ok =
          kind === 'text'
            ? typeof value === 'string' && value !== ''
            : kind === 'list'
              ? Array.isArray(value) && value.length > 0
              : typeof value === 'object' && value !== null && !Array.isArray(value);
        if (!ok) missing.push(path);
      };
      const { card } = ctx;
      for (const field of ['name', 'description', 'version']) need(card[field], field, 'text');
      need(card.capabilities, 'capabilities', 'object');
      for (const field of ['supportedInterfaces', 'defaultInputModes', 'defaultOutputModes', 'skills']) need(card[field], field, 'list');
      for (const [i, skill] of (Array.isArray(card.skills) ? card.skills : []).entries()) {
        const entry = (skill ?? {}) as Record<string, unknown>;
        for (const field of ['id', 'name', 'description']) need(entry[field], `skills[${i}].${field}`, 'text');
        need(entry.tags, `skills[${i}].tags`, 'list');
      }
      if (missing.length > 0) fail(`missing or empty: ${missing.join(', ')}`);
    },
  },
  {
    id: 'card-1.0-caching',
    title: 'the 1.0 card comes with Cache-Control (with max-age) and an ETag',
    version: '1.0',
    binding: 'card',
    section: '1.0 §8.6.1',
    level: 'SHOULD',
    async run(ctx) {
      const { headers } = await readCard(ctx);
      const missing: string[] = [];
      if (!/(^|[\s,])max-age=\d+/i.test(headers['cache-control'] ?? ''))
        missing.push(`Cache-Control with max-age (it has ${JSON.stringify(headers['cache-control'] ?? null)})`);
      if (!headers.etag) missing.push('ETag');
      if (missing.length > 0) fail(`the card comes without ${missing.join(' and ')}`);
    },
  },
  {
    id: 'card-1.0-conditional',
    title: 'asked again with its ETag (If-None-Match), the 1.0 card is 304 Not Modified',
    version: '1.0',
    binding: 'card',
    // Clients SHOULD ask so (§8.6.2); a server that gave an ETag answers it as HTTP does.
    section: '1.0 §8.6.2; RFC 9110 §13.1.2',
    level: 'SHOULD',
    async run(ctx) {
      const { headers } = await readCard(ctx);
      if (!headers.etag) skip('the card comes without an ETag');
      const again = await ctx.send('GET', ctx.url, { headers: { ...CARD_HEADERS, 'if-none-match': headers.etag } });
      if (!again.response) fail(`no answer: ${again.error}`);
      if (again.response.status !== 304) fail(`expected 304 Not Modified for If-None-Match ${headers.etag}; got ${again.response.status}`);
    },
  },
  {
    id: 'card-1.0-signature',
    title: 'a signed 1.0 card verifies against the keys its signature names (its jku, or the agent’s /.well-known/jwks.json)',
    version: '1.0',
    binding: 'card',
    section: '1.0 §8.4',
    level: 'MUST',
    run: (ctx) => checkSignatures(ctx, '1.0'),
  },
  {
    id: 'card-0.3-schema',
    title: 'the 0.3 card passes the published 0.3 schema',
    version: '0.3',
    binding: 'card',
    section: '0.3 §5.5',
    level: 'MUST',
    run: failOnCardProblems,
  },
  {
    id: 'card-0.3-signature',
    title: 'a signed 0.3 card verifies against the keys its signature names (its jku, or the agent’s /.well-known/jwks.json)',
    version: '0.3',
    binding: 'card',
    section: '0.3 §5.5 (AgentCardSignature); 1.0 §8.4',
    level: 'MUST',
    run: (ctx) => checkSignatures(ctx, '0.3'),
  },
  {
    id: 'card-0.1.0-schema',
    title: 'the 0.1.0 card passes the 0.1.0 schema',
    version: '0.1.0',
    binding: 'card',
    section: '0.1.0 §5.5',
    level: 'MUST',
    run: failOnCardProblems,
  },
];

// ---------------------------------------------------------------------------------------------
// A2A 1.0 over JSON-RPC

const jsonRpc10 = over('1.0', 'JSONRPC', [
  {
    id: '1.0-jsonrpc-send',
    title: 'SendMessage answers a message with a task or a message, as the schema has them',
    section: '1.0 §3.1.1, §9.4.1',
    level: 'MUST',
    async run(ctx) {
      await sendMessage10(ctx);
    },
  },
  {
    id: '1.0-jsonrpc-get',
    title: 'GetTask returns the task SendMessage started',
    section: '1.0 §3.1.3, §9.4.3',
    level: 'MUST',
    async run(ctx) {
      const task = await sendMessage10(ctx);
      if (!task) skip('the agent answered the message with a message, not a task');
      const got = await rpc(ctx, 'GetTask', { id: task.id }, { version: '1.0' });
      if (got.error) fail(`GetTask failed: ${JSON.stringify(got.error).slice(0, 300)}`);
      expectValid('the GetTask result', publishedSchemaValidator10('Task'), got.result);
      if (got.result?.id !== task.id) fail(`GetTask ${JSON.stringify(task.id)} returned task ${JSON.stringify(got.result?.id)}`);
    },
  },
  {
    id: '1.0-jsonrpc-get-unknown',
    title: 'GetTask of a task that does not exist is TaskNotFoundError',
    section: '1.0 §3.1.3, §5.4',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'GetTask', { id: unknownTaskId() }, { version: '1.0' }), -32001, 'TaskNotFoundError');
    },
  },
  {
    id: '1.0-jsonrpc-cancel-unknown',
    title: 'CancelTask of a task that does not exist is TaskNotFoundError',
    section: '1.0 §3.1.5, §5.4',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'CancelTask', { id: unknownTaskId() }, { version: '1.0' }), -32001, 'TaskNotFoundError');
    },
  },
  {
    id: '1.0-jsonrpc-cancel-ended',
    title: 'CancelTask of a task that has ended is TaskNotCancelableError',
    section: '1.0 §3.1.5, §5.4',
    level: 'MUST',
    async run(ctx) {
      const taskId = await endedTask10(ctx);
      expectError(await rpc(ctx, 'CancelTask', { id: taskId }, { version: '1.0' }), -32002, 'TaskNotCancelableError');
    },
  },
  {
    id: '1.0-jsonrpc-invalid-params',
    title: 'SendMessage without a message is -32602 Invalid params',
    section: '1.0 §3.3.2, §9.5',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'SendMessage', {}, { version: '1.0' }), -32602, 'Invalid params');
    },
  },
  {
    id: '1.0-jsonrpc-method-not-found',
    title: 'a method that does not exist is -32601 Method not found',
    section: '1.0 §9.5',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'NoSuchMethod', {}, { version: '1.0' }), -32601, 'Method not found');
    },
  },
  {
    id: '1.0-jsonrpc-parse-error',
    title: 'a body that is not JSON is -32700 Parse error',
    section: '1.0 §9.5',
    level: 'MUST',
    async run(ctx) {
      const exchange = await ctx.send('POST', ctx.url, {
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: '{"jsonrpc": "2.0", "id": 1,',
      });
      const body = jsonOf(exchange);
      expectError(body as { error?: { code?: unknown } }, -32700, 'Parse error');
    },
  },
  {
    id: '1.0-jsonrpc-version-not-supported',
    title: 'a call asking for a version the interface does not serve is VersionNotSupportedError',
    section: '1.0 §3.6.2, §5.4',
    level: 'MUST',
    async run(ctx) {
      // A read (ListTasks), so that an agent that ignores the version changes nothing.
      expectError(await rpc(ctx, 'ListTasks', { pageSize: 1 }, { version: '99.0' }), -32009, 'VersionNotSupportedError');
    },
  },
  {
    id: '1.0-jsonrpc-stream',
    title:
      'SendStreamingMessage streams SSE events, each a JSON-RPC response whose result is a Stream Response, ending with the task ended or interrupted',
    section: '1.0 §3.1.2, §9.4.2, §3.5.2',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      const { exchange } = await rpc(ctx, 'SendStreamingMessage', { message: message10(ctx) }, { version: '1.0' });
      streamResponsesOf(ctx, exchange, resultOfEvent);
    },
  },
  {
    id: '1.0-jsonrpc-stream-not-declared',
    title: 'without streaming in the card, SendStreamingMessage is UnsupportedOperationError',
    section: '1.0 §3.3.4',
    level: 'MUST',
    async run(ctx) {
      if (capability(ctx, 'streaming')) skip('the card declares streaming');
      expectError(
        await rpc(ctx, 'SendStreamingMessage', { message: message10(ctx) }, { version: '1.0' }),
        -32004,
        'UnsupportedOperationError',
      );
    },
  },
  {
    id: '1.0-jsonrpc-subscribe-ended',
    title: 'SubscribeToTask of a task that has ended is UnsupportedOperationError',
    section: '1.0 §3.1.6',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      const taskId = await endedTask10(ctx);
      const answer = await rpc(ctx, 'SubscribeToTask', { id: taskId }, { version: '1.0' });
      expectError(answer.exchange.events ? firstEventOf(answer.exchange.events) : answer, -32004, 'UnsupportedOperationError');
    },
  },
  {
    id: '1.0-jsonrpc-send-to-ended',
    title: 'SendMessage to a task that has ended is UnsupportedOperationError',
    section: '1.0 §3.1.1',
    level: 'MUST',
    async run(ctx) {
      const taskId = await endedTask10(ctx);
      const message = { ...message10(ctx), taskId };
      expectError(await rpc(ctx, 'SendMessage', { message }, { version: '1.0' }), -32004, 'UnsupportedOperationError');
    },
  },
  {
    id: '1.0-jsonrpc-content-type-not-supported',
    title: 'SendMessage with a part of a media type the card does not accept is ContentTypeNotSupportedError',
    section: '1.0 §3.1.1, §3.3.2, §4.4.1',
    level: 'SHOULD',
    async run(ctx) {
      const accepted = inputModesOf(ctx.card);
      if (accepted.some((mode) => mode === '*/*' || mode === 'application/*' || mode === UNACCEPTED_MEDIA_TYPE))
        skip(`the card accepts every media type (${accepted.join(', ')})`);
      const message = {
        ...message10(ctx),
        parts: [{ raw: Buffer.from(ctx.message).toString('base64'), mediaType: UNACCEPTED_MEDIA_TYPE, filename: 'a2a-check.bin' }],
      };
      expectError(await rpc(ctx, 'SendMessage', { message }, { version: '1.0' }), -32005, 'ContentTypeNotSupportedError');
    },
  },
  {
    id: '1.0-jsonrpc-subscribe',
    title: 'SubscribeToTask of a running task streams the task first, and ends when the task ends (canceled meanwhile)',
    section: '1.0 §3.1.6',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      const text = ctx.slowMessage ?? ctx.message;
      const message = { ...message10(ctx), parts: [{ text }] };
      const sent = await rpc(ctx, 'SendMessage', { message, configuration: { returnImmediately: true } }, { version: '1.0' });
      if (sent.error) fail(`SendMessage failed: ${JSON.stringify(sent.error).slice(0, 300)}`);
      const task = sent.result?.task as { id?: string; status?: { state?: string } } | undefined;
      if (!task?.id) skip('the agent answered the message with a message, not a task');
      ctx.started(task.id);
      const state = task.status?.state ?? '';
      // An interrupted task (waiting for input) may be subscribed to: it is not terminal.
      if (TERMINAL_10.includes(state)) skip(`the task was ${state} already; give a message the agent takes a while over (--slow-message)`);
      // The subscription is read whole; the task is canceled while it is open, so that it ends soon.
      const subscription = rpc(ctx, 'SubscribeToTask', { id: task.id }, { version: '1.0' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await rpc(ctx, 'CancelTask', { id: task.id }, { version: '1.0' });
      const { exchange, error } = await subscription;
      if (error?.code === -32004) {
        // Refused as ended: right, when the task did end before the subscription reached it.
        const now = await rpc(ctx, 'GetTask', { id: task.id }, { version: '1.0' });
        const ended = ((now.result?.status as { state?: string } | undefined)?.state ?? '') as string;
        if (TERMINAL_10.includes(ended))
          skip(`the task was ${ended} before the subscription reached it; give a message the agent takes a while over (--slow-message)`);
      }
      if (error) fail(`SubscribeToTask failed: ${JSON.stringify(error).slice(0, 300)}`);
      const responses = streamResponsesOf(ctx, exchange, resultOfEvent, { endsWhenInterrupted: false });
      const first = responses[0]!.task as { id?: string } | undefined;
      if (first?.id !== task.id) fail(`the first event is not the task ${task.id} (§3.1.6: a Task object first)`);
    },
  },
  {
    id: '1.0-jsonrpc-subscribe-unknown',
    title: 'SubscribeToTask of a task that does not exist is TaskNotFoundError',
    section: '1.0 §3.1.6, §5.4',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      const answer = await rpc(ctx, 'SubscribeToTask', { id: unknownTaskId() }, { version: '1.0' });
      expectError(answer.exchange.events ? firstEventOf(answer.exchange.events) : answer, -32001, 'TaskNotFoundError');
    },
  },
  {
    id: '1.0-jsonrpc-extended-card',
    title:
      'GetExtendedAgentCard: UnsupportedOperationError when the card does not declare it, else a card (or ExtendedAgentCardNotConfiguredError)',
    section: '1.0 §3.1.11, §3.3.4',
    level: 'MUST',
    async run(ctx) {
      const answer = await rpc(ctx, 'GetExtendedAgentCard', {}, { version: '1.0' });
      if (!capability(ctx, 'extendedAgentCard')) return expectError(answer, -32004, 'UnsupportedOperationError');
      if (answer.error?.code === -32007) return;
      if (answer.error) skip(`the extended card needs credentials the check was not given (${JSON.stringify(answer.error).slice(0, 200)})`);
      expectValid('the extended card', publishedSchemaValidator10('Agent Card'), answer.result);
    },
  },
  {
    id: '1.0-jsonrpc-response-content-type',
    title: 'a JSON-RPC answer is application/json',
    section: '1.0 §9.1',
    level: 'MUST',
    async run(ctx) {
      const { exchange } = await rpc(ctx, 'GetTask', { id: unknownTaskId() }, { version: '1.0' });
      const type = exchange.response?.headers['content-type'] ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type)) fail(`the answer's Content-Type is ${JSON.stringify(type)}`);
    },
  },
  {
    id: '1.0-jsonrpc-invalid-request',
    title: 'a request that is not JSON-RPC 2.0 (jsonrpc "1.0") is -32600 Invalid Request',
    section: '1.0 §9.5; JSON-RPC 2.0 §4, §5.1',
    level: 'MUST',
    async run(ctx) {
      await expectInvalidRequest(ctx, { 'A2A-Version': '1.0' });
    },
  },
  {
    id: '1.0-jsonrpc-empty-version',
    title: 'a call without A2A-Version is taken as 0.3: ListTasks is VersionNotSupportedError (or -32601 where 0.3 is served there too)',
    section: '1.0 §3.6.2',
    level: 'MUST',
    async run(ctx) {
      const answer = await rpc(ctx, 'ListTasks', { pageSize: 1 });
      if (!answer.error)
        fail('ListTasks without A2A-Version succeeded: the call was taken as 1.0, where an empty version MUST be read as 0.3');
      if (answer.error.code !== -32009 && answer.error.code !== -32601)
        fail(
          `expected VersionNotSupportedError (-32009), or -32601 from a 0.3 served at the same URL; got ${JSON.stringify(answer.error).slice(0, 200)}`,
        );
    },
  },
  {
    id: '1.0-jsonrpc-send-unknown-task',
    title: 'SendMessage continuing a task that does not exist is TaskNotFoundError',
    section: '1.0 §3.1.1, §5.4',
    level: 'MUST',
    async run(ctx) {
      const message = { ...message10(ctx), taskId: unknownTaskId() };
      expectError(await rpc(ctx, 'SendMessage', { message }, { version: '1.0' }), -32001, 'TaskNotFoundError');
    },
  },
  {
    id: '1.0-jsonrpc-history-length',
    title: 'GetTask with historyLength 1 returns one message of the history at most',
    section: '1.0 §3.2.4, §3.1.3',
    level: 'MUST',
    async run(ctx) {
      const task = await sendMessage10(ctx);
      if (!task) skip('the agent answered the message with a message, not a task');
      const got = await rpc(ctx, 'GetTask', { id: task.id, historyLength: 1 }, { version: '1.0' });
      if (got.error) fail(`GetTask failed: ${JSON.stringify(got.error).slice(0, 300)}`);
      const history = (got.result?.history ?? []) as unknown[];
      if (history.length > 1) fail(`historyLength 1 returned ${history.length} messages`);
    },
  },
  {
    id: '1.0-jsonrpc-push-configs',
    title: 'push configs: created, read, listed, deleted (twice: idempotent), then not found',
    section: '1.0 §3.1.7, §3.1.8, §3.1.9, §3.1.10',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'pushNotifications')) skip('the card does not declare push notifications');
      const task = await sendMessage10(ctx);
      if (!task) skip('the agent answered the message with a message, not a task');
      const hook = await ctx.webhook();
      const config = { taskId: task.id, id: 'a2a-check-config', url: hook.url, token: `a2a-check-${randomUUID()}` };
      const created = await rpc(ctx, 'CreateTaskPushNotificationConfig', config, { version: '1.0' });
      if (created.error?.code === -32602)
        skip(`the agent refused the webhook ${hook.url} (${JSON.stringify(created.error).slice(0, 200)}), as §13.2 lets it`);
      if (created.error) fail(`CreateTaskPushNotificationConfig failed: ${JSON.stringify(created.error).slice(0, 300)}`);
      expectValid('the created config', publishedSchemaValidator10('Task Push Notification Config'), created.result);
      const ids = { taskId: task.id, id: config.id };
      const read = await rpc(ctx, 'GetTaskPushNotificationConfig', ids, { version: '1.0' });
      if (read.error) fail(`GetTaskPushNotificationConfig failed: ${JSON.stringify(read.error).slice(0, 300)}`);
      if (read.result?.url !== hook.url) fail(`GetTaskPushNotificationConfig returned ${JSON.stringify(read.result).slice(0, 200)}`);
      const listed = await rpc(ctx, 'ListTaskPushNotificationConfigs', { taskId: task.id }, { version: '1.0' });
      if (listed.error) fail(`ListTaskPushNotificationConfigs failed: ${JSON.stringify(listed.error).slice(0, 300)}`);
      const configs = (listed.result?.configs ?? []) as { id?: string }[];
      if (!configs.some((c) => c.id === config.id))
        fail(`ListTaskPushNotificationConfigs does not list ${config.id}: ${JSON.stringify(listed.result).slice(0, 200)}`);
      for (const time of ['first', 'second']) {
        const deleted = await rpc(ctx, 'DeleteTaskPushNotificationConfig', ids, { version: '1.0' });
        if (deleted.error) fail(`the ${time} DeleteTaskPushNotificationConfig failed: ${JSON.stringify(deleted.error).slice(0, 300)}`);
      }
      const gone = await rpc(ctx, 'GetTaskPushNotificationConfig', ids, { version: '1.0' });
      if (!gone.error) fail(`the deleted config is still read: ${JSON.stringify(gone.result).slice(0, 200)}`);
    },
  },
  {
    id: '1.0-jsonrpc-extension-required',
    title: 'a call that does not ask for an extension the card requires is ExtensionSupportRequiredError',
    section: '1.0 §3.3.4, §4.6, §5.4',
    level: 'MUST',
    async run(ctx) {
      const required = requiredExtensionsOf(ctx.card);
      if (required.length === 0) skip('the card requires no extension');
      // An empty A2A-Extensions: the check's own header, so none of the required ones is added.
      const answer = await rpc(ctx, 'SendMessage', { message: message10(ctx) }, { version: '1.0', headers: { 'A2A-Extensions': '' } });
      const task = answer.result?.task as { id?: string } | undefined;
      if (task?.id) ctx.started(task.id);
      expectError(answer, -32008, 'ExtensionSupportRequiredError');
    },
  },
  {
    id: '1.0-jsonrpc-push-not-declared',
    title: 'without push notifications in the card, creating a push config is PushNotificationNotSupportedError',
    section: '1.0 §3.3.4, §5.4',
    level: 'MUST',
    async run(ctx) {
      if (capability(ctx, 'pushNotifications')) skip('the card declares push notifications');
      const params = { taskId: unknownTaskId(), url: 'https://127.0.0.1:9/a2a-check-never-called' };
      expectError(
        await rpc(ctx, 'CreateTaskPushNotificationConfig', params, { version: '1.0' }),
        -32003,
        'PushNotificationNotSupportedError',
      );
    },
  },
  {
    id: '1.0-jsonrpc-push',
    title:
      'a webhook given with SendMessage is called with the task’s updates, as Stream Responses, with its token; GetTaskPushNotificationConfig returns it',
    section: '1.0 §3.1.7, §3.1.8, §4.3.3',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'pushNotifications')) skip('the card does not declare push notifications');
      const hook = await ctx.webhook();
      const token = `a2a-check-${randomUUID()}`;
      const configuration = { taskPushNotificationConfig: { id: 'a2a-check', url: hook.url, token } };
      const answer = await rpc(ctx, 'SendMessage', { message: message10(ctx), configuration }, { version: '1.0' });
      // An agent may refuse a webhook on a private address (§13.2): then this cannot be checked from here.
      if (answer.error) skip(`the agent refused the webhook ${hook.url} (${JSON.stringify(answer.error).slice(0, 200)}), as §13.2 lets it`);
      const task = answer.result?.task as { id?: string } | undefined;
      if (!task?.id) skip('the agent answered the message with a message, not a task');
      ctx.started(task.id);
      const delivery = await hook.next(5_000);
      if (!delivery) fail(`no notification reached the webhook ${hook.url} within 5 s`);
      if (delivery.headers['x-a2a-notification-token'] !== token && !String(delivery.headers.authorization ?? '').includes(token))
        fail('the notification does not carry the config’s token');
      let payload: unknown;
      try {
        payload = JSON.parse(delivery.body);
      } catch {
        fail(`the notification's body is not JSON: ${delivery.body.slice(0, 200)}`);
      }
      expectValid('the notification', publishedSchemaValidator10('Stream Response'), payload);
      const got = await rpc(ctx, 'GetTaskPushNotificationConfig', { taskId: task.id, id: 'a2a-check' }, { version: '1.0' });
      if (got.error) fail(`GetTaskPushNotificationConfig failed: ${JSON.stringify(got.error).slice(0, 300)}`);
      if (got.result?.url !== hook.url) fail(`GetTaskPushNotificationConfig returned ${JSON.stringify(got.result).slice(0, 200)}`);
    },
  },
  {
    id: '1.0-jsonrpc-across-versions',
    title: 'a task started over 1.0 is the same task read over the other versions the agent serves',
    // Not required: an agent may serve each version from a store of its own; one that shares them
    // lets a client move between versions (1.0 §3.6.2: several interfaces, several versions).
    section: '1.0 §3.6.2',
    level: 'MAY',
    async run(ctx) {
      const others = [...ctx.endpoints].filter(([name]) => name === '0.3 JSONRPC' || name === '0.1.0 JSONRPC');
      if (others.length === 0) skip('the agent serves no other version over JSON-RPC');
      const task = await sendMessage10(ctx);
      if (!task) skip('the agent answered the message with a message, not a task');
      const state = String((task.status as { state?: string }).state ?? '')
        .replace(/^TASK_STATE_/, '')
        .toLowerCase()
        .replace(/_/g, '-');
      for (const [name, url] of others) {
        const answer = await rpc({ ...ctx, url }, 'tasks/get', { id: task.id });
        if (answer.error) fail(`over ${name}, tasks/get ${JSON.stringify(task.id)}: ${JSON.stringify(answer.error).slice(0, 200)}`);
        const read = answer.result as { id?: unknown; status?: { state?: unknown } };
        if (read.id !== task.id || read.status?.state !== state)
          fail(
            `over ${name}, the task reads ${JSON.stringify({ id: read.id, state: read.status?.state })}; over 1.0 it was ${JSON.stringify({ id: task.id, state })}`,
          );
      }
    },
  },
  {
    id: '1.0-jsonrpc-list-tasks-page',
    title: 'ListTasks pages: a page of one task at most, with the next page token and the total',
    section: '1.0 §3.1.4, §9.4.4',
    level: 'MUST',
    async run(ctx) {
      await sendMessage10(ctx);
      await sendMessage10(ctx);
      const first = await rpc(ctx, 'ListTasks', { pageSize: 1 }, { version: '1.0' });
      if (first.error) fail(`ListTasks failed: ${JSON.stringify(first.error).slice(0, 300)}`);
      expectValid('the ListTasks result', publishedSchemaValidator10('List Tasks Response'), first.result);
      const { tasks, nextPageToken, totalSize } = first.result as { tasks: unknown[]; nextPageToken: string; totalSize: number };
      if (tasks.length > 1) fail(`pageSize 1 returned ${tasks.length} tasks`);
      if (totalSize >= 2 && !nextPageToken) fail(`${totalSize} tasks in all and a page of one, but no nextPageToken`);
      if (!nextPageToken) return;
      const second = await rpc(ctx, 'ListTasks', { pageSize: 1, pageToken: nextPageToken }, { version: '1.0' });
      if (second.error) fail(`the next page failed: ${JSON.stringify(second.error).slice(0, 300)}`);
      const next = (second.result as { tasks?: { id?: string }[] }).tasks ?? [];
      if (next[0] && next[0].id === (tasks[0] as { id?: string }).id) fail('the next page repeats the first page’s task');
    },
  },
]);

// ---------------------------------------------------------------------------------------------
// A2A 1.0 over HTTP+JSON

/** An HTTP+JSON call: the exchange, and the answer's JSON when it has a body. */
async function rest(ctx: CheckContext, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const exchange = await ctx.send(method, `${base(ctx)}${path}`, {
    headers: { 'A2A-Version': '1.0', ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  if (!exchange.response) fail(`no answer: ${exchange.error}`);
  return exchange.response;
}

const base = (ctx: CheckContext) => ctx.url.replace(/\/+$/, '');

/** A task of the agent's, started by the check's message over HTTP+JSON (skipped when the agent answers with a message). */
async function restTask(ctx: CheckContext): Promise<{ id: string; state: string }> {
  const response = await rest(ctx, 'POST', '/message:send', { message: message10(ctx) });
  expectStatus(response, 200, 'OK');
  const task = (JSON.parse(response.body) as { task?: { id?: string; status?: { state?: string } } }).task;
  if (!task?.id) skip('the agent answered the message with a message, not a task');
  ctx.started(task.id);
  return { id: task.id, state: task.status?.state ?? '' };
}

function expectStatus(response: { status: number; body: string }, status: number, name: string): void {
  if (response.status !== status) fail(`expected HTTP ${status} (${name}); got ${response.status}: ${response.body.slice(0, 200)}`);
  if (status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      fail(`the error's body is not JSON: ${response.body.slice(0, 200)}`);
    }
    const error = (parsed as { error?: { message?: unknown; code?: unknown } }).error;
    if (typeof error?.message !== 'string') fail(`the error's body has no error.message: ${response.body.slice(0, 200)}`);
    // §11.6: the error code is the HTTP status and the body's error.code (google.rpc.Status as JSON).
    if (error.code !== status) fail(`HTTP ${status} as expected, but the body's error.code is ${JSON.stringify(error.code)} (§11.6)`);
  }
}

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';

/** The `google.rpc.ErrorInfo` of an error's details that names `reason` in the A2A domain, or why there is none. */
function errorInfoProblem(details: unknown, reason: string): string | undefined {
  if (!Array.isArray(details)) return 'the error has no details array';
  const untyped = details.findIndex((d) => typeof (d as { '@type'?: unknown } | null)?.['@type'] !== 'string');
  if (untyped >= 0) return `details[${untyped}] has no @type`;
  const info = details.find((d) => (d as { '@type': string })['@type'] === ERROR_INFO) as
    | { reason?: unknown; domain?: unknown }
    | undefined;
  if (!info) return `the details hold no ${ERROR_INFO}`;
  if (info.reason !== reason || info.domain !== 'a2a-protocol.org')
    return `its ErrorInfo says ${JSON.stringify({ reason: info.reason, domain: info.domain })}, not ${JSON.stringify({ reason, domain: 'a2a-protocol.org' })}`;
  return undefined;
}

/** An A2A error over HTTP+JSON: its status, and an ErrorInfo with its reason in the body's details (§11.6). */
function expectA2aStatus(response: { status: number; body: string }, status: number, reason: string): void {
  expectStatus(response, status, reason);
  const problem = errorInfoProblem((JSON.parse(response.body) as { error: { details?: unknown } }).error.details, reason);
  if (problem) fail(`HTTP ${status} as expected, but ${problem} (§11.6: A2A errors MUST carry one): ${response.body.slice(0, 300)}`);
}

/** The SSE events of an HTTP+JSON stream, each a Stream Response (§11.7): checked, the task remembered, the last returned. */
/** A JSON-RPC stream event's result, the Stream Response; an error event fails the check. */
function resultOfEvent(data: Record<string, unknown>, i: number): Record<string, unknown> {
  if (data.error) fail(`event ${i + 1} is an error: ${JSON.stringify(data.error).slice(0, 200)}`);
  return (data.result ?? {}) as Record<string, unknown>;
}

function streamResponsesOf(
  ctx: CheckContext,
  exchange: Exchange & { events?: SseEvent[] },
  unwrap: (data: Record<string, unknown>, i: number) => Record<string, unknown>,
  {
    endsWhenInterrupted = true,
  }: {
    /**
     * Whether the stream ends at an interrupted state too (a message's stream, §3.1.2, §11.7), or at
     * a terminal state only (a subscription, §3.1.6: "can be used with any task that is not in a terminal state").
     */
    endsWhenInterrupted?: boolean;
  } = {},
): Record<string, unknown>[] {
  if (!exchange.response) fail(`no answer: ${exchange.error}`);
  if (!exchange.events)
    fail(
      `expected text/event-stream; got HTTP ${exchange.response.status} ${exchange.response.headers['content-type'] ?? ''}: ${exchange.response.body.slice(0, 200)}`,
    );
  const responses = exchange.events.map((event, i) => {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data) as Record<string, unknown>;
    } catch {
      return fail(`event ${i + 1} is not JSON: ${event.data.slice(0, 200)}`);
    }
    return unwrap(data, i);
  });
  if (exchange.error) fail(`the stream was cut: ${exchange.error}`);
  holdStreamOrder(ctx, responses, { endsWhenInterrupted });
  return responses;
}

/**
 * A stream's Stream Responses, in order (§3.1.2, §3.5.2, §11.7): each as the schema has it, the
 * first the task or a message (its task remembered for the cleanup), nothing after the one that
 * ends the stream, and the stream ended by one: a message, a terminal state, or (unless it is a
 * subscription) an interrupted one.
 */
function holdStreamOrder(
  ctx: CheckContext,
  responses: readonly Record<string, unknown>[],
  { endsWhenInterrupted = true, item = 'event' }: { endsWhenInterrupted?: boolean; item?: string } = {},
): void {
  if (responses.length === 0) fail(`the stream carried no ${item}`);
  const validate = publishedSchemaValidator10('Stream Response');
  let ended = '';
  for (const [i, response] of responses.entries()) {
    expectValid(`${item} ${i + 1}`, validate, response);
    if (ended) fail(`${item} ${i + 1} comes after the task ${ended}: a stream ends there (§3.5.2, §11.7)`);
    if (i === 0 && !response.task && !response.message) fail(`the first ${item} is neither the task nor a message (§11.7)`);
    const task = response.task as { id?: string } | undefined;
    if (i === 0 && task?.id) ctx.started(task.id);
    const state = stateOf(response);
    if (response.message || TERMINAL_10.includes(state) || (endsWhenInterrupted && INTERRUPTED_10.includes(state)))
      ended = state || 'answered with a message';
  }
  if (!ended)
    fail(
      `the stream ended with the task ${stateOf(responses.at(-1)) || 'in no state'}: it must end when the task ends${endsWhenInterrupted ? ' or is interrupted' : ''}`,
    );
}

const rest10 = over('1.0', 'HTTP+JSON', [
  {
    id: '1.0-rest-send',
    title: 'POST /message:send answers a message with a task or a message, as the schema has them',
    section: '1.0 §11.3.1, §3.1.1',
    level: 'MUST',
    async run(ctx) {
      const response = await rest(ctx, 'POST', '/message:send', { message: message10(ctx) });
      expectStatus(response, 200, 'OK');
      const body = JSON.parse(response.body) as { task?: { id?: string } };
      expectValid('the answer', publishedSchemaValidator10('Send Message Response'), body);
      if (body.task?.id) ctx.started(body.task.id);
    },
  },
  {
    id: '1.0-rest-get-unknown',
    title: 'GET /tasks/{id} of a task that does not exist is 404 with ErrorInfo TASK_NOT_FOUND',
    section: '1.0 §11.3.2, §5.4, §11.6',
    level: 'MUST',
    async run(ctx) {
      expectA2aStatus(await rest(ctx, 'GET', `/tasks/${unknownTaskId()}`), 404, 'TASK_NOT_FOUND');
    },
  },
  {
    id: '1.0-rest-cancel-unknown',
    title: 'POST /tasks/{id}:cancel of a task that does not exist is 404 with ErrorInfo TASK_NOT_FOUND',
    section: '1.0 §11.3.2, §5.4, §11.6',
    level: 'MUST',
    async run(ctx) {
      expectA2aStatus(await rest(ctx, 'POST', `/tasks/${unknownTaskId()}:cancel`, {}), 404, 'TASK_NOT_FOUND');
    },
  },
  {
    id: '1.0-rest-invalid-body',
    title: 'POST /message:send without a message is 400',
    section: '1.0 §3.3.2, §11.6',
    level: 'MUST',
    async run(ctx) {
      expectStatus(await rest(ctx, 'POST', '/message:send', {}), 400, 'a validation error');
    },
  },
  {
    id: '1.0-rest-version-not-supported',
    title: 'a call asking for a version the interface does not serve is 400 with ErrorInfo VERSION_NOT_SUPPORTED',
    section: '1.0 §3.6.2, §5.4',
    level: 'MUST',
    async run(ctx) {
      // A read (ListTasks), so that an agent that ignores the version changes nothing.
      expectA2aStatus(await rest(ctx, 'GET', '/tasks?pageSize=1', undefined, { 'A2A-Version': '99.0' }), 400, 'VERSION_NOT_SUPPORTED');
    },
  },
  {
    id: '1.0-rest-response-content-type',
    title: 'an HTTP+JSON answer is JSON (application/a2a+json, or application/json)',
    section: '1.0 §11.1, §11.4',
    level: 'MUST',
    async run(ctx) {
      const exchange = await ctx.send('GET', `${base(ctx)}/tasks?pageSize=1`, { headers: { 'A2A-Version': '1.0' } });
      if (!exchange.response) fail(`no answer: ${exchange.error}`);
      const type = exchange.response.headers['content-type'] ?? '';
      if (!/^application\/(a2a\+)?json\s*(;|$)/i.test(type)) fail(`the answer's Content-Type is ${JSON.stringify(type)}`);
    },
  },
  {
    id: '1.0-rest-empty-version',
    title: 'a call without A2A-Version is taken as 0.3: GET /tasks is not answered with a 1.0 page',
    section: '1.0 §3.6.2',
    level: 'MUST',
    async run(ctx) {
      // 0.3's HTTP+JSON has no list of tasks: VersionNotSupportedError (400), or a 404/405 from a 0.3 served there.
      const exchange = await ctx.send('GET', `${base(ctx)}/tasks?pageSize=1`, { headers: {} });
      if (!exchange.response) fail(`no answer: ${exchange.error}`);
      if (exchange.response.status < 400)
        fail(
          `GET /tasks without A2A-Version answered ${exchange.response.status}: the call was taken as 1.0, where an empty version MUST be read as 0.3`,
        );
    },
  },
  {
    id: '1.0-rest-get',
    title: 'GET /tasks/{id} returns the task POST /message:send started',
    section: '1.0 §11.3, §3.1.3',
    level: 'MUST',
    async run(ctx) {
      const task = await restTask(ctx);
      const response = await rest(ctx, 'GET', `/tasks/${encodeURIComponent(task.id)}`);
      expectStatus(response, 200, 'OK');
      const got = JSON.parse(response.body) as { id?: unknown };
      expectValid('the task', publishedSchemaValidator10('Task'), got);
      if (got.id !== task.id) fail(`GET /tasks/${task.id} returned task ${JSON.stringify(got.id)}`);
    },
  },
  {
    id: '1.0-rest-cancel-ended',
    title: 'POST /tasks/{id}:cancel of a task that has ended is 400 with ErrorInfo TASK_NOT_CANCELABLE',
    section: '1.0 §3.1.5, §5.4, §11.6',
    level: 'MUST',
    async run(ctx) {
      const task = await restTask(ctx);
      const cancel = () => rest(ctx, 'POST', `/tasks/${encodeURIComponent(task.id)}:cancel`, {});
      if (!TERMINAL_10.includes(task.state) && (await cancel()).status !== 200)
        skip(`the task is ${task.state} and could not be canceled to end it`);
      expectA2aStatus(await cancel(), 400, 'TASK_NOT_CANCELABLE');
    },
  },
  {
    id: '1.0-rest-list-tasks',
    title: 'GET /tasks?pageSize=1 answers a page of one task at most, as the schema has it',
    section: '1.0 §11.3, §11.5, §3.1.4',
    level: 'MUST',
    async run(ctx) {
      await restTask(ctx);
      const response = await rest(ctx, 'GET', '/tasks?pageSize=1');
      expectStatus(response, 200, 'OK');
      const page = JSON.parse(response.body) as { tasks?: unknown[] };
      expectValid('the page', publishedSchemaValidator10('List Tasks Response'), page);
      if ((page.tasks ?? []).length > 1) fail(`pageSize=1 returned ${page.tasks!.length} tasks`);
    },
  },
  {
    id: '1.0-rest-stream',
    title:
      'POST /message:stream streams SSE events, each a Stream Response, first the task or a message, ending with the task ended or interrupted',
    section: '1.0 §11.7, §3.1.2',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      const exchange = await ctx.send('POST', `${base(ctx)}/message:stream`, {
        headers: { 'A2A-Version': '1.0', 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ message: message10(ctx) }),
      });
      streamResponsesOf(ctx, exchange, (data) => data);
    },
  },
  {
    id: '1.0-rest-stream-not-declared',
    title: 'without streaming in the card, POST /message:stream is 400 with ErrorInfo UNSUPPORTED_OPERATION',
    section: '1.0 §3.3.4, §5.4, §11.6',
    level: 'MUST',
    async run(ctx) {
      if (capability(ctx, 'streaming')) skip('the card declares streaming');
      expectA2aStatus(await rest(ctx, 'POST', '/message:stream', { message: message10(ctx) }), 400, 'UNSUPPORTED_OPERATION');
    },
  },
  {
    id: '1.0-rest-subscribe-unknown',
    title: 'POST /tasks/{id}:subscribe of a task that does not exist is 404 with ErrorInfo TASK_NOT_FOUND',
    section: '1.0 §3.1.6, §5.4, §11.6',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      expectA2aStatus(await rest(ctx, 'POST', `/tasks/${unknownTaskId()}:subscribe`, {}), 404, 'TASK_NOT_FOUND');
    },
  },
  {
    id: '1.0-rest-push-not-declared',
    title:
      'without push notifications in the card, POST /tasks/{id}/pushNotificationConfigs is 400 with ErrorInfo PUSH_NOTIFICATION_NOT_SUPPORTED',
    section: '1.0 §3.3.4, §5.4, §11.6',
    level: 'MUST',
    async run(ctx) {
      if (capability(ctx, 'pushNotifications')) skip('the card declares push notifications');
      const taskId = unknownTaskId();
      const body = { taskId, url: 'https://127.0.0.1:9/a2a-check-never-called' };
      expectA2aStatus(await rest(ctx, 'POST', `/tasks/${taskId}/pushNotificationConfigs`, body), 400, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    },
  },
]);

// ---------------------------------------------------------------------------------------------
// A2A 1.0 over gRPC

/** A gRPC call's outcome; a failure when the call got no status at all. */
async function grpcCall(ctx: CheckContext, method: string, request: unknown, metadata: Record<string, string> = {}): Promise<GrpcOutcome> {
  const exchange = await ctx.grpc(method, request, { 'a2a-version': '1.0', ...metadata }).catch((error: unknown) => {
    if (error instanceof GrpcMissing) skip(error.message);
    throw error;
  });
  if (!exchange.grpc) fail(`no answer: ${exchange.error}`);
  // A channel that cannot connect ends its calls UNAVAILABLE: no answer from the interface.
  if (exchange.grpc.name === 'UNAVAILABLE') fail(`no answer: ${exchange.grpc.message}`);
  return exchange.grpc;
}

/** A call that must succeed: its messages. */
function expectGrpcOk(outcome: GrpcOutcome, method: string): unknown[] {
  if (outcome.code !== 0) fail(`${method} failed: ${outcome.name}: ${outcome.message} ${JSON.stringify(outcome.details).slice(0, 200)}`);
  return outcome.messages;
}

/** An A2A error over gRPC: its status code, and for an A2A error an ErrorInfo with its reason in the details (§10.6). */
function expectGrpcError(outcome: GrpcOutcome, code: string, reason?: string): void {
  if (outcome.code === 0) fail(`expected ${code}${reason ? ` (${reason})` : ''}; the call succeeded`);
  if (outcome.name !== code) fail(`expected ${code}${reason ? ` (${reason})` : ''}; got ${outcome.name}: ${outcome.message}`);
  if (!outcome.message) fail('the status has no message');
  if (!reason) return;
  const problem = errorInfoProblem(outcome.details, reason);
  if (problem) fail(`${code} as expected, but ${problem} (§10.6: A2A errors MUST carry one)`);
}

/** Sends the check's message over gRPC: the task it started (remembered), or a skip for a message answer. */
async function grpcTask(ctx: CheckContext): Promise<{ id: string; state: string }> {
  const [answer] = expectGrpcOk(await grpcCall(ctx, 'SendMessage', { message: message10(ctx) }), 'SendMessage') as Record<
    string,
    unknown
  >[];
  expectValid('the SendMessage answer', publishedSchemaValidator10('Send Message Response'), answer);
  const task = answer?.task as { id?: string; status?: { state?: string } } | undefined;
  if (!task?.id) skip('the agent answered the message with a message, not a task');
  ctx.started(task.id);
  return { id: task.id, state: task.status?.state ?? '' };
}

const grpc10 = over('1.0', 'GRPC', [
  {
    id: '1.0-grpc-send',
    title: 'SendMessage answers a message with a task or a message, as the schema has them',
    section: '1.0 §10.4.1, §3.1.1',
    level: 'MUST',
    async run(ctx) {
      const [answer] = expectGrpcOk(await grpcCall(ctx, 'SendMessage', { message: message10(ctx) }), 'SendMessage') as Record<
        string,
        unknown
      >[];
      expectValid('the answer', publishedSchemaValidator10('Send Message Response'), answer);
      const task = answer?.task as { id?: string } | undefined;
      if (task?.id) ctx.started(task.id);
    },
  },
  {
    id: '1.0-grpc-get',
    title: 'GetTask returns the task SendMessage started',
    section: '1.0 §10.4.3, §3.1.3',
    level: 'MUST',
    async run(ctx) {
      const task = await grpcTask(ctx);
      const [got] = expectGrpcOk(await grpcCall(ctx, 'GetTask', { id: task.id }), 'GetTask') as { id?: unknown }[];
      expectValid('the task', publishedSchemaValidator10('Task'), got);
      if (got?.id !== task.id) fail(`GetTask ${task.id} returned task ${JSON.stringify(got?.id)}`);
    },
  },
  {
    id: '1.0-grpc-get-unknown',
    title: 'GetTask of a task that does not exist is NOT_FOUND with ErrorInfo TASK_NOT_FOUND',
    section: '1.0 §10.6, §5.4',
    level: 'MUST',
    async run(ctx) {
      expectGrpcError(await grpcCall(ctx, 'GetTask', { id: unknownTaskId() }), 'NOT_FOUND', 'TASK_NOT_FOUND');
    },
  },
  {
    id: '1.0-grpc-cancel-ended',
    title: 'CancelTask of a task that has ended is FAILED_PRECONDITION with ErrorInfo TASK_NOT_CANCELABLE',
    section: '1.0 §10.6, §5.4, §3.1.5',
    level: 'MUST',
    async run(ctx) {
      const task = await grpcTask(ctx);
      if (!TERMINAL_10.includes(task.state) && (await grpcCall(ctx, 'CancelTask', { id: task.id })).code !== 0)
        skip(`the task is ${task.state} and could not be canceled to end it`);
      expectGrpcError(await grpcCall(ctx, 'CancelTask', { id: task.id }), 'FAILED_PRECONDITION', 'TASK_NOT_CANCELABLE');
    },
  },
  {
    id: '1.0-grpc-invalid-params',
    title: 'SendMessage without a message is INVALID_ARGUMENT',
    section: '1.0 §10.6, §3.3.2',
    level: 'MUST',
    async run(ctx) {
      expectGrpcError(await grpcCall(ctx, 'SendMessage', {}), 'INVALID_ARGUMENT');
    },
  },
  {
    id: '1.0-grpc-version-not-supported',
    title: 'a call asking for a version the interface does not serve is FAILED_PRECONDITION with ErrorInfo VERSION_NOT_SUPPORTED',
    section: '1.0 §3.6.2, §5.4, §10.2',
    level: 'MUST',
    async run(ctx) {
      const outcome = await grpcCall(ctx, 'ListTasks', { pageSize: 1 }, { 'a2a-version': '99.0' });
      expectGrpcError(outcome, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');
    },
  },
  {
    id: '1.0-grpc-stream',
    title: 'SendStreamingMessage streams Stream Responses, first the task or a message, ending with the task ended or interrupted',
    section: '1.0 §10.7, §3.1.2',
    level: 'MUST',
    async run(ctx) {
      const outcome = await grpcCall(ctx, 'SendStreamingMessage', { message: message10(ctx) });
      if (!capability(ctx, 'streaming')) return expectGrpcError(outcome, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
      holdStreamOrder(ctx, expectGrpcOk(outcome, 'SendStreamingMessage') as Record<string, unknown>[], { item: 'message' });
    },
  },
  {
    id: '1.0-grpc-subscribe-unknown',
    title: 'SubscribeToTask of a task that does not exist is NOT_FOUND with ErrorInfo TASK_NOT_FOUND',
    section: '1.0 §10.6, §5.4, §3.1.6',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      expectGrpcError(await grpcCall(ctx, 'SubscribeToTask', { id: unknownTaskId() }), 'NOT_FOUND', 'TASK_NOT_FOUND');
    },
  },
]);

// ---------------------------------------------------------------------------------------------
// A2A 0.3 and 0.1.0 over JSON-RPC

const message03 = (ctx: CheckContext) => ({
  kind: 'message',
  messageId: `a2a-check-${randomUUID()}`,
  role: 'user',
  parts: [{ kind: 'text', text: ctx.message }],
});

/** Sends the check's message over 0.3: the task it started (remembered), held to the schema; a message answer skips, unless `orMessage`. */
async function sendMessage03(ctx: CheckContext, { orMessage = false } = {}): Promise<{ id: string }> {
  const answer = await rpc(ctx, 'message/send', { message: message03(ctx) });
  if (answer.error) fail(`message/send failed: ${JSON.stringify(answer.error).slice(0, 300)}`);
  const result = answer.result ?? {};
  expectValid('the result', publishedSchemaValidator03(result.kind === 'task' ? 'Task' : 'Message'), result);
  if (result.kind !== 'task') {
    if (orMessage) return { id: '' };
    skip('the agent answered the message with a message, not a task');
  }
  ctx.started(String(result.id));
  return { id: String(result.id) };
}

const jsonRpc03 = over('0.3', 'JSONRPC', [
  {
    id: '0.3-jsonrpc-send',
    title: 'message/send answers a message with a task or a message, as the schema has them',
    section: '0.3 §7.1',
    level: 'MUST',
    async run(ctx) {
      await sendMessage03(ctx, { orMessage: true });
    },
  },
  {
    id: '0.3-jsonrpc-get-unknown',
    title: 'tasks/get of a task that does not exist is -32001 TaskNotFoundError',
    section: '0.3 §7.3, §8.2',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'tasks/get', { id: unknownTaskId() }), -32001, 'TaskNotFoundError');
    },
  },
  {
    id: '0.3-jsonrpc-invalid-params',
    title: 'message/send without a message is -32602 Invalid params',
    section: '0.3 §8.1',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'message/send', {}), -32602, 'Invalid params');
    },
  },
  {
    id: '0.3-jsonrpc-method-not-found',
    title: 'a method that does not exist is -32601 Method not found',
    section: '0.3 §8.1',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'no/such/method', {}), -32601, 'Method not found');
    },
  },
  {
    id: '0.3-jsonrpc-invalid-request',
    title: 'a request that is not JSON-RPC 2.0 (jsonrpc "1.0") is -32600 Invalid Request',
    section: '0.3 §8.1; JSON-RPC 2.0 §4, §5.1',
    level: 'MUST',
    async run(ctx) {
      await expectInvalidRequest(ctx, {});
    },
  },
  {
    id: '0.3-jsonrpc-get',
    title: 'tasks/get returns the task message/send started',
    section: '0.3 §7.3',
    level: 'MUST',
    async run(ctx) {
      const task = await sendMessage03(ctx);
      const answer = await rpc(ctx, 'tasks/get', { id: task.id });
      if (answer.error) fail(`tasks/get failed: ${JSON.stringify(answer.error).slice(0, 300)}`);
      expectValid('the task', publishedSchemaValidator03('Task'), answer.result);
      if (answer.result?.id !== task.id) fail(`tasks/get ${task.id} returned task ${JSON.stringify(answer.result?.id)}`);
    },
  },
  {
    id: '0.3-jsonrpc-cancel-unknown',
    title: 'tasks/cancel of a task that does not exist is -32001 TaskNotFoundError',
    section: '0.3 §7.4, §8.2',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'tasks/cancel', { id: unknownTaskId() }), -32001, 'TaskNotFoundError');
    },
  },
  {
    id: '0.3-jsonrpc-stream',
    title: 'message/stream streams SSE events, each a JSON-RPC response of the schema, ending with a final status',
    section: '0.3 §7.2, §7.2.1',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      const answer = await rpc(ctx, 'message/stream', { message: message03(ctx) });
      const events = answer.exchange.events;
      if (!events) fail(`expected text/event-stream; got ${answer.exchange.response?.body.slice(0, 200)}`);
      const validate = publishedSchemaValidator03('SendStreamingMessageResponse');
      let ended = false;
      for (const [i, event] of events.entries()) {
        let data: { result?: { kind?: string; final?: boolean; id?: string; taskId?: string } };
        try {
          data = JSON.parse(event.data);
        } catch {
          fail(`event ${i + 1} is not JSON: ${event.data.slice(0, 200)}`);
        }
        expectValid(`event ${i + 1}`, validate, data);
        if (ended) fail(`event ${i + 1} comes after the final event: a stream ends there (§7.2)`);
        const result = data.result ?? {};
        if (i === 0 && (result.kind === 'task' || result.taskId)) ctx.started(String(result.id ?? result.taskId));
        if (result.kind === 'message' || result.final === true) ended = true;
      }
      if (!ended) fail('the stream ended without a final status update (final: true) or a message');
    },
  },
  {
    id: '0.3-jsonrpc-push-not-declared',
    title: 'without push notifications in the card, tasks/pushNotificationConfig/set is -32003 PushNotificationNotSupportedError',
    section: '0.3 §7.5, §8.2',
    level: 'MUST',
    async run(ctx) {
      if (capability(ctx, 'pushNotifications')) skip('the card declares push notifications');
      const params = { taskId: unknownTaskId(), pushNotificationConfig: { url: 'https://127.0.0.1:9/a2a-check-never-called' } };
      expectError(await rpc(ctx, 'tasks/pushNotificationConfig/set', params), -32003, 'PushNotificationNotSupportedError');
    },
  },
  {
    id: '0.3-jsonrpc-resubscribe-unknown',
    title: 'tasks/resubscribe of a task that does not exist is -32001 TaskNotFoundError',
    section: '0.3 §7.9, §8.2',
    level: 'MUST',
    async run(ctx) {
      if (!capability(ctx, 'streaming')) skip('the card does not declare streaming');
      const answer = await rpc(ctx, 'tasks/resubscribe', { id: unknownTaskId() });
      expectError(answer.exchange.events ? firstEventOf(answer.exchange.events) : answer, -32001, 'TaskNotFoundError');
    },
  },
]);

const jsonRpc01 = over('0.1.0', 'JSONRPC', [
  {
    id: '0.1.0-jsonrpc-send',
    title: 'tasks/send answers with the task, as the schema has it',
    section: '0.1.0 §7.1',
    level: 'MUST',
    async run(ctx) {
      const id = `a2a-check-${randomUUID()}`;
      const answer = await rpc(ctx, 'tasks/send', { id, message: { role: 'user', parts: [{ type: 'text', text: ctx.message }] } });
      if (answer.error) fail(`tasks/send failed: ${JSON.stringify(answer.error).slice(0, 300)}`);
      ctx.started(id);
      const issues = allIssues('Task', answer.result);
      if (issues.length > 0)
        fail(
          `the task departs from the schema: ${issues
            .map((i) => `${i.path || '/'} ${i.message}`)
            .slice(0, 3)
            .join('; ')}`,
        );
      if (answer.result?.id !== id) fail(`tasks/send ${id} answered with task ${JSON.stringify(answer.result?.id)}`);
    },
  },
  {
    id: '0.1.0-jsonrpc-get-unknown',
    title: 'tasks/get of a task that does not exist is -32001 Task not found',
    section: '0.1.0 §7.3, §8.2',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'tasks/get', { id: unknownTaskId() }), -32001, 'Task not found');
    },
  },
  {
    id: '0.1.0-jsonrpc-invalid-params',
    title: 'tasks/send without a message is -32602 Invalid params',
    section: '0.1.0 §8.1',
    level: 'MUST',
    async run(ctx) {
      expectError(await rpc(ctx, 'tasks/send', { id: `a2a-check-${randomUUID()}` }), -32602, 'Invalid params');
    },
  },
]);

/** Every check, in the order the report lists them. */
export const CHECKS: readonly CheckDefinition[] = [...cardChecks, ...jsonRpc10, ...rest10, ...grpc10, ...jsonRpc03, ...jsonRpc01];

/** How a task the check started is canceled at the end, by the version and binding it was started over. */
export function cancelRequest(
  version: Protocol,
  binding: Binding,
  url: string,
  taskId: string,
): { url: string; init: { headers: Record<string, string>; body: string } } {
  if (binding === 'HTTP+JSON')
    return {
      url: `${url.replace(/\/+$/, '')}/tasks/${encodeURIComponent(taskId)}:cancel`,
      init: { headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' }, body: '{}' },
    };
  const method = version === '1.0' ? 'CancelTask' : 'tasks/cancel';
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(version === '1.0' && { 'A2A-Version': '1.0' }) };
  return { url, init: { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 'a2a-check-cleanup', method, params: { id: taskId } }) } };
}
