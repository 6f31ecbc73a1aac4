// The checks of `a2a check`: each names what it holds the agent to, the section of the spec that
// says so and its level, and which version and binding it speaks. A check passes by returning;
// it fails (`CheckFailed`) with what was expected and what came, or is skipped (`CheckSkipped`)
// when the agent does not declare what it needs. docs/check.md lists them all.
import { randomUUID } from 'node:crypto';
import { allIssues } from 'a2a-types';
import { publishedSchemaValidator03 } from 'a2a-types/v0.3';
import { publishedSchemaValidator10 } from 'a2a-types/v1.0';
import type { Protocol } from '../cli-agent.js';
import type { Exchange, SseEvent } from './prober.js';

export type Level = 'MUST' | 'SHOULD' | 'MAY';
/** What a check speaks: a card, or a binding of its version. */
export type Binding = 'card' | 'JSONRPC' | 'HTTP+JSON';

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
  send(
    method: string,
    url: string,
    init?: { headers?: Record<string, string>; body?: string },
  ): Promise<Exchange & { events?: SseEvent[] }>;
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
  exchange: Exchange & { events?: SseEvent[] };
}> {
  const id = ++rpcIds;
  const exchange = await ctx.send('POST', ctx.url, {
    headers: { 'content-type': 'application/json', ...(version && { 'A2A-Version': version }), ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  if (exchange.events) return { exchange };
  const body = jsonOf(exchange);
  if (body.jsonrpc !== '2.0') fail(`the answer is not JSON-RPC 2.0 (jsonrpc: ${JSON.stringify(body.jsonrpc)})`);
  if (body.id !== id) fail(`the answer's id is ${JSON.stringify(body.id)}, the request's ${id}`);
  return { ...(body as { result?: Record<string, unknown>; error?: { code?: unknown } }), exchange };
}

function expectError(answer: { result?: unknown; error?: { code?: unknown } }, code: number, name: string): void {
  if (!answer.error) fail(`expected ${name} (${code}); the call succeeded`);
  if (answer.error.code !== code)
    fail(`expected ${name} (${code}); got ${JSON.stringify(answer.error.code)}: ${JSON.stringify(answer.error).slice(0, 200)}`);
  if (typeof (answer.error as { message?: unknown }).message !== 'string') fail('the error has no message (JSON-RPC 2.0 §5.1)');
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
        if (typeof url !== 'string' || !/^https?:\/\//.test(url))
          fail(`supportedInterfaces[${i}].url is not an absolute URL: ${JSON.stringify(url)}`);
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
    id: 'card-0.3-schema',
    title: 'the 0.3 card passes the published 0.3 schema',
    version: '0.3',
    binding: 'card',
    section: '0.3 §5.5',
    level: 'MUST',
    run: failOnCardProblems,
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
      const answer = await rpc(ctx, 'SendStreamingMessage', { message: message10(ctx) }, { version: '1.0' });
      const { exchange } = answer;
      const type = exchange.response?.headers['content-type'] ?? '';
      if (!type.startsWith('text/event-stream')) fail(`content type ${JSON.stringify(type)}, not text/event-stream`);
      const events = exchange.events ?? [];
      if (events.length === 0) fail('the stream has no events');
      const validate = publishedSchemaValidator10('Stream Response');
      let last: Record<string, unknown> | undefined;
      for (const [i, event] of events.entries()) {
        let parsed: { result?: Record<string, unknown>; error?: unknown };
        try {
          parsed = JSON.parse(event.data);
        } catch {
          fail(`event ${i + 1} is not JSON: ${event.data.slice(0, 200)}`);
        }
        if (parsed.error) fail(`event ${i + 1} is an error: ${JSON.stringify(parsed.error).slice(0, 200)}`);
        expectValid(`event ${i + 1}'s result`, validate, parsed.result);
        // The stream ends with the task: nothing may follow the event that ended it.
        const ended = stateOf(last);
        if (last && (last.message || TERMINAL_10.includes(ended) || INTERRUPTED_10.includes(ended)))
          fail(`event ${i + 1} follows event ${i}, which ended the stream (${last.message ? 'a message' : ended})`);
        last = parsed.result;
        const task = (last?.task ?? last?.statusUpdate) as { id?: string; taskId?: string } | undefined;
        if (i === 0 && (task?.id ?? task?.taskId)) ctx.started(String(task?.id ?? task?.taskId));
      }
      if (last?.message) return;
      const state = stateOf(last);
      if (!TERMINAL_10.includes(state) && !INTERRUPTED_10.includes(state))
        fail(`the stream ended with the task ${state || 'in no state'}: it must end when the task ends or is interrupted`);
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
      if (answer.exchange.events) {
        const first = JSON.parse(answer.exchange.events[0]?.data ?? '{}') as { error?: { code?: unknown } };
        expectError(first, -32004, 'UnsupportedOperationError');
        return;
      }
      expectError(answer, -32004, 'UnsupportedOperationError');
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
  const exchange = await ctx.send(method, `${ctx.url.replace(/\/+$/, '')}${path}`, {
    headers: { 'A2A-Version': '1.0', ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
    ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  if (!exchange.response) fail(`no answer: ${exchange.error}`);
  return exchange.response;
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
    const error = (parsed as { error?: { message?: unknown } }).error;
    if (typeof error?.message !== 'string') fail(`the error's body has no error.message: ${response.body.slice(0, 200)}`);
  }
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
    title: 'GET /tasks/{id} of a task that does not exist is 404',
    section: '1.0 §11.3.2, §5.4, §11.6',
    level: 'MUST',
    async run(ctx) {
      expectStatus(await rest(ctx, 'GET', `/tasks/${unknownTaskId()}`), 404, 'TaskNotFoundError');
    },
  },
  {
    id: '1.0-rest-cancel-unknown',
    title: 'POST /tasks/{id}:cancel of a task that does not exist is 404',
    section: '1.0 §11.3.2, §5.4, §11.6',
    level: 'MUST',
    async run(ctx) {
      expectStatus(await rest(ctx, 'POST', `/tasks/${unknownTaskId()}:cancel`, {}), 404, 'TaskNotFoundError');
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
    title: 'a call asking for a version the interface does not serve is 400 (VersionNotSupportedError)',
    section: '1.0 §3.6.2, §5.4',
    level: 'MUST',
    async run(ctx) {
      // A read (ListTasks), so that an agent that ignores the version changes nothing.
      expectStatus(await rest(ctx, 'GET', '/tasks?pageSize=1', undefined, { 'A2A-Version': '99.0' }), 400, 'VersionNotSupportedError');
    },
  },
]);

// ---------------------------------------------------------------------------------------------
// A2A 0.3 and 0.1.0 over JSON-RPC

const jsonRpc03 = over('0.3', 'JSONRPC', [
  {
    id: '0.3-jsonrpc-send',
    title: 'message/send answers a message with a task or a message, as the schema has them',
    section: '0.3 §7.1',
    level: 'MUST',
    async run(ctx) {
      const params = {
        message: { kind: 'message', messageId: `a2a-check-${randomUUID()}`, role: 'user', parts: [{ kind: 'text', text: ctx.message }] },
      };
      const answer = await rpc(ctx, 'message/send', params);
      if (answer.error) fail(`message/send failed: ${JSON.stringify(answer.error).slice(0, 300)}`);
      const result = answer.result ?? {};
      const validate = publishedSchemaValidator03(result.kind === 'task' ? 'Task' : 'Message');
      expectValid('the result', validate, result);
      if (result.kind === 'task') ctx.started(String(result.id));
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
export const CHECKS: readonly CheckDefinition[] = [...cardChecks, ...jsonRpc10, ...rest10, ...jsonRpc03, ...jsonRpc01];

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
