// A typed client for A2A 0.1.0: the agent card and all seven RPCs, streams as async iterables,
// responses validated against the schema so that a misbehaving server is reported, not trusted.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  allIssues,
  formatIssues,
  isStatusUpdateEvent,
  validateAgentCard,
  validateSendTaskStreamingResponse,
  validateTask,
  validateTaskPushNotificationConfig,
  type AgentCard,
  type Task,
  type TaskEvent,
  type TaskIdParams,
  type TaskPushNotificationConfig,
  type TaskQueryParams,
  type TaskSendParams,
  type ValidationIssue,
  type Validator,
} from 'a2a-types';
import { A2AClientError, HttpError, InvalidResponseError, JsonRpcError, NetworkError, NotAnAgentError, TimeoutError } from './errors.js';
import { readSse } from './sse.js';

export interface A2AClientOptions {
  /** Headers sent with every request (authentication, say). */
  headers?: Record<string, string>;
  /** Time allowed for an answer (for a stream: for its first byte), ms. Default 30,000. */
  timeoutMs?: number;
  /**
   * How answers are checked against the A2A schema (the specification's rules):
   * - `'strict'` (default; also `true`): an answer that departs from them is an
   *   InvalidResponseError, so what the typed methods return is what their types say;
   * - `'warn'`: the answer is returned as it came, and each departure is given to `onDeparture`
   *   (for servers you do not control; the `a2a` CLI works this way unless `--strict`);
   * - `'off'` (also `false`): not checked.
   * Answers that are not JSON-RPC at all, or that answer another request, are errors in every mode.
   */
  validateResponses?: boolean | 'strict' | 'warn' | 'off';
  /** With `validateResponses: 'warn'`: told of every way an answer departs from the schema. */
  onDeparture?: (departure: Departure) => void;
  /** How often a dropped stream is resumed with `Last-Event-ID`. Default 3. */
  reconnectAttempts?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Headers for this call, over the client's. */
  headers?: Record<string, string>;
}

/** An answer that departs from the A2A schema, as reported in `'warn'` mode. */
export interface Departure {
  /** What was checked: `agent card`, `tasks/cancel result`, `stream event`. */
  readonly what: string;
  /** Each way it departs (JSON Pointer, message), not only the first. */
  readonly issues: readonly ValidationIssue[];
}

/** How one kind of answer is checked: a validator and the schema definition it was compiled from. */
interface Check {
  readonly validate: Validator<unknown>;
  readonly definition: string;
  readonly nullable?: boolean;
}

const CARD: Check = { validate: validateAgentCard, definition: 'AgentCard' };
const TASK: Check = { validate: validateTask, definition: 'Task' };
const PUSH_CONFIG: Check = { validate: validateTaskPushNotificationConfig, definition: 'TaskPushNotificationConfig' };
const STREAM_EVENT: Check = { validate: validateSendTaskStreamingResponse, definition: 'SendTaskStreamingResponse' };

/** One event of a stream, with its SSE id (what `Last-Event-ID` resumes from). */
export interface StreamEvent {
  id: string | undefined;
  event: TaskEvent;
}

let nextRequestId = 1;

/** The `Prefer` token for SSE event ids, as a2a-express names it. */
const EVENT_IDS_PREFERENCE = 'sse-event-ids';

export class A2AClient {
  private card: AgentCard | undefined;
  private readonly options: {
    headers: Record<string, string>;
    timeoutMs: number;
    reconnectAttempts: number;
    validateResponses: 'strict' | 'warn' | 'off';
    onDeparture: ((departure: Departure) => void) | undefined;
  };

  /**
   * @param baseUrl where the agent is mounted: its card is at `<baseUrl>/.well-known/agent.json`
   *   and, until the card says otherwise, its JSON-RPC endpoint is `baseUrl` itself.
   */
  constructor(baseUrl: string | URL, options: A2AClientOptions = {}) {
    this.baseUrl = new URL(baseUrl).toString().replace(/\/+$/, '');
    this.options = {
      headers: options.headers ?? {},
      timeoutMs: options.timeoutMs ?? 30_000,
      validateResponses: checkMode(options.validateResponses),
      onDeparture: options.onDeparture,
      reconnectAttempts: options.reconnectAttempts ?? 3,
    };
  }

  readonly baseUrl: string;

  /** A client for the agent a card describes (its `url` is the endpoint). */
  static fromCard(card: AgentCard, options: A2AClientOptions = {}): A2AClient {
    const client = new A2AClient(card.url, options);
    client.card = card;
    return client;
  }

  /** The agent card: fetched once, checked against the schema, then cached. */
  async getCard(call: CallOptions = {}): Promise<AgentCard> {
    if (this.card) return this.card;
    const { response, text } = await this.fetchText(`${this.baseUrl}/.well-known/agent.json`, { method: 'GET' }, call);
    if (!response.ok) throw httpError(response, text);
    const card = parseJson(text, 'the agent card', response);
    this.check(card, CARD, 'agent card');
    return (this.card = card as AgentCard);
  }

  send(params: TaskSendParams, call?: CallOptions): Promise<Task> {
    return this.rpc('tasks/send', params, TASK, call);
  }
  get(params: TaskQueryParams, call?: CallOptions): Promise<Task> {
    return this.rpc('tasks/get', params, TASK, call);
  }
  cancel(params: TaskIdParams, call?: CallOptions): Promise<Task> {
    return this.rpc('tasks/cancel', params, TASK, call);
  }
  /** Sets a task's webhook; `pushNotificationConfig: null` removes it, and a kit server then answers `null`. */
  setPushNotification(params: TaskPushNotificationConfig, call?: CallOptions): Promise<TaskPushNotificationConfig | null> {
    return this.rpc('tasks/pushNotification/set', params, { ...PUSH_CONFIG, nullable: true }, call);
  }
  /** A task's webhook; a task with none gets -32001 (JsonRpcError) from a kit server. */
  getPushNotification(params: TaskIdParams, call?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.rpc('tasks/pushNotification/get', params, PUSH_CONFIG, call);
  }

  /**
   * tasks/sendSubscribe: the task's events until the final one. A connection that drops before
   * then is resumed with tasks/resubscribe and `Last-Event-ID`, so no event is missed.
   */
  sendSubscribe(params: TaskSendParams, call: CallOptions = {}): AsyncGenerator<StreamEvent> {
    return this.resumable('tasks/sendSubscribe', params, params.id, undefined, call);
  }

  /** tasks/resubscribe: from `lastEventId` when given (the events missed), else from now. */
  resubscribe(params: TaskQueryParams, call: CallOptions & { lastEventId?: string } = {}): AsyncGenerator<StreamEvent> {
    return this.resumable('tasks/resubscribe', params, params.id, call.lastEventId, call);
  }

  private async *resumable(
    method: string,
    params: unknown,
    taskId: string,
    lastEventId: string | undefined,
    call: CallOptions,
  ): AsyncGenerator<StreamEvent> {
    let attempt = 0;
    let lastSeen = lastEventId;
    let current = { method, params };
    for (;;) {
      try {
        const headers = lastSeen !== undefined ? { ...call.headers, 'Last-Event-ID': lastSeen } : call.headers;
        for await (const event of this.stream(current.method, current.params, { ...call, headers })) {
          lastSeen = event.id ?? lastSeen;
          attempt = 0;
          yield event;
          if (isStatusUpdateEvent(event.event) && event.event.final) return;
        }
        return; // the server ended the stream
      } catch (error) {
        if (!(error instanceof NetworkError) || call.signal?.aborted || ++attempt > this.options.reconnectAttempts) throw error;
        await sleep(100 * 2 ** (attempt - 1));
        current = { method: 'tasks/resubscribe', params: { id: taskId } };
      }
    }
  }

  private async *stream(method: string, params: unknown, call: CallOptions): AsyncGenerator<StreamEvent> {
    const id = nextRequestId++;
    // Ask for an id on every event (RFC 7240), so a dropped stream resumes where it broke. A kit
    // server sends ids only when asked: the protocol's reference clients cannot parse them.
    const init = postInit({ jsonrpc: '2.0', id, method, params }, 'text/event-stream', { prefer: EVENT_IDS_PREFERENCE });
    const response = await this.fetchStream(this.endpoint(), init, call);
    const type = response.headers.get('content-type') ?? '';
    if (type.startsWith('application/json')) {
      // Refused before streaming: a JSON-RPC error (or a server that does not stream).
      this.unwrap(readJson(response, await response.text()), id);
      throw new InvalidResponseError('expected an event stream, got a JSON result');
    }
    if (!response.ok) throw httpError(response, await response.text());
    if (!type.startsWith('text/event-stream')) {
      await response.body?.cancel();
      throw new InvalidResponseError(`expected text/event-stream, got ${type || 'no content type'}`);
    }
    try {
      for await (const sse of readSse(response.body!)) {
        const message = parseJson(sse.data, 'a stream event');
        const event = this.unwrap(message, id) as TaskEvent;
        this.check(message, STREAM_EVENT, 'stream event');
        yield { id: sse.id, event };
      }
    } catch (error) {
      if (error instanceof A2AClientError) throw error;
      throw new NetworkError(`the stream broke: ${(error as Error).message}`, { cause: error });
    } finally {
      await response.body?.cancel().catch(() => undefined);
    }
  }

  private async rpc<R>(method: string, params: unknown, check: Check, call: CallOptions = {}): Promise<R> {
    const id = nextRequestId++;
    const { response, text } = await this.fetchText(
      this.endpoint(),
      postInit({ jsonrpc: '2.0', id, method, params }, 'application/json'),
      call,
    );
    const result = this.unwrap(readJson(response, text), id);
    if (!(check.nullable && result === null)) this.check(result, check, `${method} result`);
    return result as R;
  }

  /** Holds an answer to the schema as `validateResponses` says: throw, report, or let it be. */
  private check(value: unknown, { validate, definition }: Check, what: string): void {
    const mode = this.options.validateResponses;
    if (mode === 'off' || validate(value)) return;
    if (mode === 'strict') throw new InvalidResponseError(`invalid ${what}: ${formatIssues(validate.issues)}`, validate.issues);
    this.options.onDeparture?.({ what, issues: allIssues(definition, value) });
  }

  /** The result of a JSON-RPC response, after checking it answers request `id`. */
  private unwrap(message: unknown, id: number): unknown {
    const response = message as {
      jsonrpc?: unknown;
      id?: unknown;
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    if (typeof response !== 'object' || response === null || response.jsonrpc !== '2.0') {
      throw new InvalidResponseError('not a JSON-RPC 2.0 response');
    }
    if (response.error) throw new JsonRpcError(response.error);
    if (response.id !== id) throw new InvalidResponseError(`response id ${JSON.stringify(response.id)} does not match request id ${id}`);
    if (!('result' in response)) throw new InvalidResponseError('a response with neither result nor error');
    return response.result;
  }

  /** Where requests go: the card's `url` once the card is known, else the base URL. */
  private endpoint(): string {
    return this.card?.url ?? this.baseUrl;
  }

  /** A request and its whole body, within the timeout. */
  private async fetchText(url: string, init: RequestInit, call: CallOptions): Promise<{ response: Response; text: string }> {
    return this.timed(url, init, call, async (response) => ({ response, text: await response.text() }));
  }

  /** A stream: the timeout covers only the wait for it to start; it may then last as long as its task. */
  private async fetchStream(url: string, init: RequestInit, call: CallOptions): Promise<Response> {
    return this.timed(url, init, call, async (response) => response);
  }

  private async timed<T>(url: string, init: RequestInit, call: CallOptions, read: (response: Response) => Promise<T>): Promise<T> {
    const timeoutMs = call.timeoutMs ?? this.options.timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout.signal]) : timeout.signal;
    try {
      const response = await fetch(url, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), ...this.options.headers, ...call.headers },
        signal,
      });
      return await read(response);
    } catch (error) {
      if (timeout.signal.aborted && !call.signal?.aborted) throw new TimeoutError(`no answer from ${url} within ${timeoutMs} ms`);
      if (call.signal?.aborted) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new NetworkError(`cannot reach ${url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }
}

function checkMode(option: A2AClientOptions['validateResponses']): 'strict' | 'warn' | 'off' {
  if (option === undefined || option === true || option === 'strict') return 'strict';
  if (option === false || option === 'off') return 'off';
  if (option === 'warn') return 'warn';
  throw new TypeError(`A2AClient: validateResponses must be 'strict', 'warn', 'off' or a boolean, got ${JSON.stringify(option)}`);
}

function postInit(body: unknown, accept: string, headers: Record<string, string> = {}): RequestInit {
  return { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', accept, ...headers } };
}

function httpError(response: Response, text: string): HttpError {
  return new HttpError(response.status, text, { url: response.url, contentType: response.headers.get('content-type') });
}

/** A JSON body, or the error that says why the answer is not one. */
function readJson(response: Response, text: string): unknown {
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('application/json')) {
    if (!response.ok) throw httpError(response, text);
    throw new NotAnAgentError(`expected application/json, got ${type || 'no content type'} from ${response.url}`);
  }
  return parseJson(text, 'the response', response);
}

/** Parses JSON; a body that is not JSON at all (given the response it came in) means no agent answered. */
function parseJson(text: string, what: string, response?: Response): unknown {
  try {
    return JSON.parse(text);
  } catch {
    if (!response) throw new InvalidResponseError(`${what} is not valid JSON`);
    const type = response.headers.get('content-type');
    throw new NotAnAgentError(`${what} from ${response.url} is not JSON${type ? ` (${type.split(';')[0]})` : ''}`);
  }
}
