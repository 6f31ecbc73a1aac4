// A typed client for A2A 0.3 agents (what today's SDKs serve, and a2a-express beside 0.1.0): the
// 0.3 card and every 0.3 method over JSON-RPC, HTTP+JSON or (with `grpc`) gRPC, chosen from the
// card's interfaces; streams that resume, answers held to the published 0.3 schema. The same
// transport as the 0.1.0 client (transport.ts); HTTP+JSON bodies are the 0.3 proto's JSON, read
// back into 0.3's objects (a2a-types/v0.3's proto-json.ts) before they are checked; over gRPC the
// same methods, their params and results in the same objects.
import {
  publishedSchemaValidator03,
  type AgentCard,
  type DeleteTaskPushNotificationConfigParams,
  type GetTaskPushNotificationConfigParams,
  type Message,
  type MessageSendParams,
  type StreamResult,
  type Task,
  type TaskIdParams,
  type TaskPushNotificationConfig,
  type TaskQueryParams,
  sendParamsToProtoJson03,
  sendResultFromProtoJson03,
  streamResultFromProtoJson03,
  taskFromProtoJson03,
  taskPushConfigFromProtoJson03,
  setPushConfigRequestToProtoJson03,
} from 'a2a-types/v0.3';
import { InvalidResponseError } from './errors.js';
import type { Validator } from 'a2a-types';
import { AgentClient } from './agent-client.js';
import type { A2AClientOptions, CallOptions, Check, StreamPlan } from './transport.js';
import type { GrpcChannel, GrpcTransport } from './grpc.js';

/** The 0.3 bindings this client speaks, as cards name them (`preferredTransport`, `additionalInterfaces`). */
export type Binding03 = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface A2AClient03Options extends A2AClientOptions {
  /**
   * gRPC: `grpcTransport(...)` from `a2a-client/grpc` (Node only, with @grpc/grpc-js installed),
   * which says how the card's `GRPC` interface is dialled (TLS, keepalive). Without it the client
   * speaks JSON-RPC and HTTP+JSON only, and a card's gRPC interface is passed over.
   */
  grpc?: GrpcTransport;
  /**
   * The binding to use when the card lists it, over the card's own `preferredTransport` (as
   * A2AClient10's, whose options are often given as they are). Default: the card's
   * `preferredTransport` (at its `url`) where this client speaks it, else the first of its
   * `additionalInterfaces` it does. One the card does not list is passed over.
   */
  preferredBinding?: Binding03;
}

/** One HTTP+JSON call: its verb and route below the interface's URL, its body, and how its answer is read. */
interface RestCall03 {
  readonly verb: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly read?: (value: unknown) => unknown;
  /** What the answer is held to, where it is not what JSON-RPC's result is. */
  readonly check?: Check;
}

/**
 * A check against the published 0.3 schema: the definition `pick` names for a value (a Task or a
 * Message, by `kind`), compiled on first use. Its validators report every issue already.
 */
function check(pick: (value: unknown) => string, nullable = false): Check {
  let last = pick(undefined);
  const validate = ((value: unknown) => publishedSchemaValidator03((last = pick(value)))(value)) as Validator<unknown>;
  Object.defineProperty(validate, 'issues', { get: () => publishedSchemaValidator03(last).issues });
  return { validate, allIssues: (value) => (validate(value) ? [] : validate.issues), nullable };
}

const CARD = check(() => 'AgentCard');
const TASK = check(() => 'Task');
const TASK_OR_MESSAGE = check((value) => ((value as { kind?: unknown } | null)?.kind === 'message' ? 'Message' : 'Task'));
const PUSH_CONFIG = check(() => 'TaskPushNotificationConfig');
const STREAM_EVENT = check(() => 'SendStreamingMessageSuccessResponse');
const STREAM_RESULT_DEFINITIONS: Readonly<Record<string, string>> = {
  task: 'Task',
  message: 'Message',
  'status-update': 'TaskStatusUpdateEvent',
  'artifact-update': 'TaskArtifactUpdateEvent',
};
/** A stream's event as HTTP+JSON and gRPC carry it (no JSON-RPC envelope): the object alone, by its `kind`. */
const STREAM_RESULT = check((value) => STREAM_RESULT_DEFINITIONS[String((value as { kind?: unknown } | null)?.kind)] ?? 'Task');
/** For a result checked item by item. */
const NO_CHECK: Check = { validate: Object.assign(() => true, { issues: [] }) as unknown as Validator<unknown>, allIssues: () => [] };
/** `tasks/pushNotificationConfig/delete` answers null. */
const NULL_RESULT = check(() => 'TaskPushNotificationConfig', true);

/** One event of a 0.3 stream, with its SSE id (what `Last-Event-ID` resumes from). */
export interface StreamEvent03 {
  id: string | undefined;
  event: StreamResult;
}

/** An HTTP+JSON error body that names no JSON-RPC code: its code from the HTTP status. */
function codeOfStatus03(_reason: string | undefined, status: number): number {
  return status === 404 ? -32001 : status >= 500 ? -32603 : -32600;
}

const taskPath = (id: string) => `/v1/tasks/${encodeURIComponent(id)}`;

export class A2AClient03 extends AgentClient<AgentCard> {
  private chosen: { readonly binding: Binding03; readonly url: string } | undefined;
  private grpc: GrpcChannel | undefined;

  /**
   * @param baseUrl where the agent is: its card is at `<baseUrl>/.well-known/agent-card.json`,
   *   and its interfaces are where the card says (read before the first call).
   */
  constructor(
    baseUrl: string | URL,
    private readonly options: A2AClient03Options = {},
  ) {
    super(baseUrl, options, '/.well-known/agent-card.json', CARD, '0.3');
    if (options.grpc !== undefined && typeof (options.grpc as Partial<GrpcTransport>).open !== 'function')
      throw new TypeError("A2AClient03: `grpc` takes grpcTransport({ ... }) from 'a2a-client/grpc'");
    if (options.preferredBinding === 'GRPC' && !options.grpc)
      throw new TypeError("A2AClient03: preferredBinding 'GRPC' needs `grpc: grpcTransport()` from 'a2a-client/grpc'");
  }

  /** A client for the agent a 0.3 card describes. */
  static fromCard(card: AgentCard, options: A2AClient03Options = {}): A2AClient03 {
    const client = new A2AClient03(card.url, options);
    client.card = card;
    return client;
  }

  /** message/send: the Task (or, from agents that answer so, a Message). */
  sendMessage(params: MessageSendParams, call?: CallOptions): Promise<Task | Message> {
    return this.rpc('message/send', params, TASK_OR_MESSAGE, call, () => ({
      verb: 'POST',
      path: '/v1/message:send',
      body: sendParamsToProtoJson03(params),
      read: sendResultFromProtoJson03,
    }));
  }
  getTask(params: TaskQueryParams, call?: CallOptions): Promise<Task> {
    return this.rpc('tasks/get', params, TASK, call, () => ({
      verb: 'GET',
      path: `${taskPath(params.id)}${params.historyLength != null ? `?historyLength=${params.historyLength}` : ''}`,
      read: taskFromProtoJson03,
    }));
  }
  cancelTask(params: TaskIdParams, call?: CallOptions): Promise<Task> {
    return this.rpc('tasks/cancel', params, TASK, call, () => ({
      verb: 'POST',
      path: `${taskPath(params.id)}:cancel`,
      body: { name: `tasks/${params.id}` },
      read: taskFromProtoJson03,
    }));
  }
  setPushNotificationConfig(params: TaskPushNotificationConfig, call?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.rpc('tasks/pushNotificationConfig/set', params, PUSH_CONFIG, call, () => ({
      verb: 'POST',
      path: `${taskPath(params.taskId)}/pushNotificationConfigs`,
      // The spec's `{ config }`, with the proto's `parent` and `configId`, which the official JS SDK's server reads.
      body: setPushConfigRequestToProtoJson03(params),
      read: (value) => taskPushConfigFromProtoJson03(value, params.taskId),
    }));
  }
  /** Over HTTP+JSON a config is named in the path: without `pushNotificationConfigId`, the task's own (its id is the task's). */
  getPushNotificationConfig(params: GetTaskPushNotificationConfigParams, call?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.rpc('tasks/pushNotificationConfig/get', params, PUSH_CONFIG, call, () => ({
      verb: 'GET',
      path: `${taskPath(params.id)}/pushNotificationConfigs/${encodeURIComponent(params.pushNotificationConfigId ?? params.id)}`,
      read: (value) => taskPushConfigFromProtoJson03(value, params.id),
    }));
  }
  /** Each config is checked; a result that is not a list is an InvalidResponseError in every mode. */
  async listPushNotificationConfigs(params: TaskIdParams, call?: CallOptions): Promise<TaskPushNotificationConfig[]> {
    const configs = await this.rpc<unknown>('tasks/pushNotificationConfig/list', params, NO_CHECK, call, () => ({
      verb: 'GET',
      path: `${taskPath(params.id)}/pushNotificationConfigs`,
      // The proto's `{ configs }`; the spec's REST tab shows a bare list, read too.
      read: (value) => {
        const listed = Array.isArray(value) ? value : (value as { configs?: unknown } | null)?.configs;
        return Array.isArray(listed) ? listed.map((config) => taskPushConfigFromProtoJson03(config, params.id)) : (listed ?? []);
      },
    }));
    if (!Array.isArray(configs)) throw new InvalidResponseError('tasks/pushNotificationConfig/list did not answer with a list');
    for (const config of configs) this.http.hold(config, PUSH_CONFIG, 'tasks/pushNotificationConfig/list item');
    return configs as TaskPushNotificationConfig[];
  }
  async deletePushNotificationConfig(params: DeleteTaskPushNotificationConfigParams, call?: CallOptions): Promise<void> {
    await this.rpc('tasks/pushNotificationConfig/delete', params, NULL_RESULT, call, () => ({
      verb: 'DELETE',
      path: `${taskPath(params.id)}/pushNotificationConfigs/${encodeURIComponent(params.pushNotificationConfigId)}`,
      // google.protobuf.Empty, or no body at all (204).
      check: NO_CHECK,
    }));
  }

  /**
   * The interface calls go to: the card's `preferredTransport` at its `url`, then its
   * `additionalInterfaces`, the first of a binding this client speaks (gRPC only with `grpc`), or
   * the preferred binding's. A card that lists none it speaks is called over JSON-RPC at its `url`,
   * as 0.3 cards mostly are.
   */
  async agentInterface(call: CallOptions = {}): Promise<{ readonly binding: Binding03; readonly url: string }> {
    if (this.chosen) return this.chosen;
    const card = await this.getCard(call);
    const spoken: readonly string[] = this.options.grpc ? ['JSONRPC', 'HTTP+JSON', 'GRPC'] : ['JSONRPC', 'HTTP+JSON'];
    const listed = [{ url: card.url, transport: card.preferredTransport ?? 'JSONRPC' }, ...(card.additionalInterfaces ?? [])]
      .map(({ url, transport }) => ({ url, binding: String(transport).toUpperCase() as Binding03 }))
      .filter(({ binding }) => spoken.includes(binding));
    const preferred = this.options.preferredBinding?.toUpperCase();
    const chosen = listed.find(({ binding }) => binding === preferred) ?? listed[0] ?? { binding: 'JSONRPC', url: card.url };
    this.chosen = chosen;
    return chosen;
  }

  /**
   * message/stream: the task's events (the Task, status and artifact updates, or a Message) until
   * the final one. A dropped connection is resumed with tasks/resubscribe and `Last-Event-ID`.
   */
  async *streamMessage(params: MessageSendParams, call: CallOptions = {}): AsyncGenerator<StreamEvent03> {
    const chosen = await this.agentInterface(call);
    let taskId = params.message.taskId;
    if (chosen.binding === 'HTTP+JSON') {
      const body = sendParamsToProtoJson03(params);
      for await (const event of this.restEvents(chosen.url, 'message/stream', '/v1/message:stream', body, call, () => taskId)) {
        taskId ??= taskIdOf(event.event);
        yield event;
      }
      return;
    }
    const resume = () => ({ method: 'tasks/resubscribe', params: { id: taskId } });
    for await (const event of this.events({ method: 'message/stream', params, resume }, undefined, call)) {
      // A new task's id is known from its first event; a dropped stream resumes that task.
      taskId ??= taskIdOf(event.event);
      yield event;
    }
  }

  /** tasks/resubscribe: from `lastEventId` when given (the events missed), else from now. */
  async *resubscribe(params: TaskIdParams, call: CallOptions & { lastEventId?: string } = {}): AsyncGenerator<StreamEvent03> {
    const chosen = await this.agentInterface(call);
    if (chosen.binding === 'HTTP+JSON') {
      const headers = call.lastEventId ? { ...call.headers, 'Last-Event-ID': call.lastEventId } : call.headers;
      const body = { name: `tasks/${params.id}` };
      yield* this.restEvents(
        chosen.url,
        'tasks/resubscribe',
        `${taskPath(params.id)}:subscribe`,
        body,
        { ...call, headers },
        () => params.id,
      );
      return;
    }
    yield* this.events(
      { method: 'tasks/resubscribe', params, resume: () => ({ method: 'tasks/resubscribe', params: { id: params.id } }) },
      call.lastEventId,
      call,
    );
  }

  private async *events(
    request: { method: string; params: unknown; resume: () => { method: string; params: unknown } },
    lastEventId: string | undefined,
    call: CallOptions,
  ): AsyncGenerator<StreamEvent03> {
    const grpc = await this.grpcChannel(call);
    if (grpc) {
      // gRPC has no Last-Event-ID header: it travels as metadata, which a2a-express reads the same way.
      const headers = lastEventId === undefined ? call.headers : { ...call.headers, 'last-event-id': lastEventId };
      for await (const event of grpc.stream(request.method, request.params, STREAM_RESULT, { ...call, headers }))
        yield { id: undefined, event: event as StreamResult };
      return;
    }
    const plan: StreamPlan = { ...request, check: STREAM_EVENT, isFinal: (result) => isFinal(result as StreamResult) };
    for await (const { id, result } of this.http.stream(await this.endpoint(call), plan, lastEventId, call)) {
      yield { id, event: result as StreamResult };
    }
  }

  /**
   * An HTTP+JSON stream: each event read back into 0.3's objects, until the final one. A dropped
   * connection is resumed on the task `taskId` names (once known) with `:subscribe` and `Last-Event-ID`.
   */
  private async *restEvents(
    url: string,
    method: string,
    path: string,
    body: unknown,
    call: CallOptions,
    taskId: () => string | undefined,
  ): AsyncGenerator<StreamEvent03> {
    const base = url.replace(/\/+$/, '');
    const resume = () => {
      const id = taskId();
      return id === undefined ? undefined : { verb: 'POST', url: `${base}${taskPath(id)}:subscribe`, body: { name: `tasks/${id}` } };
    };
    const stream = this.http.restStream(
      {
        method,
        verb: 'POST',
        url: `${base}${path}`,
        body,
        resume,
        check: STREAM_RESULT,
        isFinal: (result) => isFinal(result as StreamResult),
        codeOf: codeOfStatus03,
        read: streamResultFromProtoJson03,
      },
      call,
    );
    for await (const { id, result } of stream) yield { id, event: result as StreamResult };
  }

  /** One call, over the binding the card's interfaces give: `rest` says it over HTTP+JSON. */
  private async rpc<R>(method: string, params: unknown, resultCheck: Check, call: CallOptions = {}, rest?: () => RestCall03): Promise<R> {
    const grpc = await this.grpcChannel(call);
    if (grpc) return (await grpc.unary(method, params, resultCheck, call)) as R;
    const chosen = await this.agentInterface(call);
    if (chosen.binding !== 'HTTP+JSON' || !rest) return (await this.http.call(chosen.url, method, params, resultCheck, call)) as R;
    const { verb, path, body, read, check = resultCheck } = rest();
    const url = `${chosen.url.replace(/\/+$/, '')}${path}`;
    return (await this.http.rest({ method, verb, url, body, check, codeOf: codeOfStatus03, read }, call)) as R;
  }

  /** Closes the gRPC channel, if the client opened one (HTTP needs nothing closed). */
  close(): void {
    this.grpc?.close();
  }

  /** The channel to the card's `GRPC` interface, when that is the interface chosen; undefined for HTTP. */
  private async grpcChannel(call: CallOptions): Promise<GrpcChannel | undefined> {
    if (this.grpc) return this.grpc;
    const { grpc } = this.options;
    if (!grpc) return undefined;
    const chosen = await this.agentInterface(call);
    if (chosen.binding !== 'GRPC') return undefined;
    this.grpc = grpc.open(chosen.url, this.http, {
      headers: { ...this.options.headers },
      timeoutMs: this.options.timeoutMs ?? 30_000,
      protocol: '0.3',
    });
    return this.grpc;
  }

  /** The JSON-RPC endpoint: a 0.3 agent's need not be where its card is. */
  private async endpoint(call: CallOptions): Promise<string> {
    return (await this.agentInterface(call)).url;
  }
}

/** The task a stream event names (a new task's id comes with the stream's first event). */
function taskIdOf(event: StreamResult): string | undefined {
  return 'taskId' in event ? event.taskId : event.kind === 'task' ? event.id : undefined;
}

/**
 * Whether a 0.3 stream ends with this event: a final status update, or a Message (an agent that
 * answers with a message sends nothing after it).
 */
function isFinal(event: StreamResult): boolean {
  if (event.kind === 'status-update') return event.final === true;
  return event.kind === 'message';
}
