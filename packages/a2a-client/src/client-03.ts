// A typed client for A2A 0.3 agents (what today's SDKs serve, and a2a-express beside 0.1.0): the
// 0.3 card and every 0.3 JSON-RPC method, streams that resume, answers held to the published 0.3
// schema. The same transport as the 0.1.0 client (transport.ts); with `grpc`, the card's `GRPC`
// interface too (the same methods, their params and results in the same objects).
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
} from 'a2a-types/v0.3';
import { InvalidResponseError } from './errors.js';
import type { Validator } from 'a2a-types';
import { AgentClient } from './agent-client.js';
import type { A2AClientOptions, CallOptions, Check, StreamPlan } from './transport.js';
import type { GrpcChannel, GrpcTransport } from './grpc.js';

export interface A2AClient03Options extends A2AClientOptions {
  /**
   * gRPC: `grpcTransport(...)` from `a2a-client/grpc` (Node only, with @grpc/grpc-js installed),
   * which says how the card's `GRPC` interface is dialled (TLS, keepalive). It is used when the
   * card prefers gRPC (its `preferredTransport`) or the client does (`preferredBinding`);
   * otherwise JSON-RPC at the card's `url`.
   */
  grpc?: GrpcTransport;
  /**
   * The binding to use when the card lists it, over the card's own `preferredTransport` (as
   * A2AClient10's, whose options are often given as they are). One the card does not list, or
   * this client does not speak, is passed over.
   */
  preferredBinding?: 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
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
/** A stream's event as gRPC carries it: no JSON-RPC envelope around it. */
const BARE_STREAM_EVENT = check((value) => {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === 'message'
    ? 'Message'
    : kind === 'status-update'
      ? 'TaskStatusUpdateEvent'
      : kind === 'artifact-update'
        ? 'TaskArtifactUpdateEvent'
        : 'Task';
});
/** For a result checked item by item. */
const NO_CHECK: Check = { validate: Object.assign(() => true, { issues: [] }) as unknown as Validator<unknown>, allIssues: () => [] };
/** `tasks/pushNotificationConfig/delete` answers null. */
const NULL_RESULT = check(() => 'TaskPushNotificationConfig', true);

/** One event of a 0.3 stream, with its SSE id (what `Last-Event-ID` resumes from). */
export interface StreamEvent03 {
  id: string | undefined;
  event: StreamResult;
}

export class A2AClient03 extends AgentClient<AgentCard> {
  private grpc: GrpcChannel | undefined;

  /**
   * @param baseUrl where the agent is: its card is at `<baseUrl>/.well-known/agent-card.json`,
   *   and its JSON-RPC endpoint is the card's `url` (read before the first call).
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
    return this.rpc('message/send', params, TASK_OR_MESSAGE, call);
  }
  getTask(params: TaskQueryParams, call?: CallOptions): Promise<Task> {
    return this.rpc('tasks/get', params, TASK, call);
  }
  cancelTask(params: TaskIdParams, call?: CallOptions): Promise<Task> {
    return this.rpc('tasks/cancel', params, TASK, call);
  }
  setPushNotificationConfig(params: TaskPushNotificationConfig, call?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.rpc('tasks/pushNotificationConfig/set', params, PUSH_CONFIG, call);
  }
  getPushNotificationConfig(params: GetTaskPushNotificationConfigParams, call?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.rpc('tasks/pushNotificationConfig/get', params, PUSH_CONFIG, call);
  }
  /** Each config is checked; a result that is not a list is an InvalidResponseError in every mode. */
  async listPushNotificationConfigs(params: TaskIdParams, call?: CallOptions): Promise<TaskPushNotificationConfig[]> {
    const configs = await this.rpc<unknown>('tasks/pushNotificationConfig/list', params, NO_CHECK, call);
    if (!Array.isArray(configs)) throw new InvalidResponseError('tasks/pushNotificationConfig/list did not answer with a list');
    for (const config of configs) this.http.hold(config, PUSH_CONFIG, 'tasks/pushNotificationConfig/list item');
    return configs as TaskPushNotificationConfig[];
  }
  async deletePushNotificationConfig(params: DeleteTaskPushNotificationConfigParams, call?: CallOptions): Promise<void> {
    await this.rpc('tasks/pushNotificationConfig/delete', params, NULL_RESULT, call);
  }

  /**
   * message/stream: the task's events (the Task, status and artifact updates, or a Message) until
   * the final one. A dropped connection is resumed with tasks/resubscribe and `Last-Event-ID`.
   */
  async *streamMessage(params: MessageSendParams, call: CallOptions = {}): AsyncGenerator<StreamEvent03> {
    let taskId = params.message.taskId;
    const resume = () => ({ method: 'tasks/resubscribe', params: { id: taskId } });
    for await (const event of this.events({ method: 'message/stream', params, resume }, undefined, call)) {
      // A new task's id is known from its first event; a dropped stream resumes that task.
      taskId ??= 'taskId' in event.event ? event.event.taskId : event.event.kind === 'task' ? event.event.id : undefined;
      yield event;
    }
  }

  /** tasks/resubscribe: from `lastEventId` when given (the events missed), else from now. */
  resubscribe(params: TaskIdParams, call: CallOptions & { lastEventId?: string } = {}): AsyncGenerator<StreamEvent03> {
    return this.events(
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
      for await (const event of grpc.stream(request.method, request.params, BARE_STREAM_EVENT, { ...call, headers }))
        yield { id: undefined, event: event as StreamResult };
      return;
    }
    const plan: StreamPlan = { ...request, check: STREAM_EVENT, isFinal: (result) => isFinal(result as StreamResult) };
    for await (const { id, result } of this.http.stream(await this.endpoint(call), plan, lastEventId, call)) {
      yield { id, event: result as StreamResult };
    }
  }

  private async rpc<R>(method: string, params: unknown, resultCheck: Check, call: CallOptions = {}): Promise<R> {
    const grpc = await this.grpcChannel(call);
    if (grpc) return (await grpc.unary(method, params, resultCheck, call)) as R;
    return (await this.http.call(await this.endpoint(call), method, params, resultCheck, call)) as R;
  }

  /** Closes the gRPC channel, if the client opened one (HTTP needs nothing closed). */
  close(): void {
    this.grpc?.close();
  }

  /**
   * The channel to the card's `GRPC` interface, when the client has `grpc` and it or the card
   * prefers gRPC; undefined for JSON-RPC, also when the card lists no gRPC interface.
   */
  private async grpcChannel(call: CallOptions): Promise<GrpcChannel | undefined> {
    const { grpc, preferredBinding } = this.options;
    if (!grpc) return undefined;
    if (this.grpc) return this.grpc;
    const card = await this.getCard(call);
    const wanted = (preferredBinding ?? card.preferredTransport ?? 'JSONRPC').toUpperCase();
    if (wanted !== 'GRPC') return undefined;
    const listed = [{ url: card.url, transport: card.preferredTransport ?? 'JSONRPC' }, ...(card.additionalInterfaces ?? [])];
    const url = listed.find((entry) => entry.transport.toUpperCase() === 'GRPC')?.url;
    if (url === undefined) return undefined;
    this.grpc = grpc.open(url, this.http, {
      headers: { ...this.options.headers },
      timeoutMs: this.options.timeoutMs ?? 30_000,
      protocol: '0.3',
    });
    return this.grpc;
  }

  /** The card's `url`: a 0.3 agent's endpoint need not be where its card is. */
  private async endpoint(call: CallOptions): Promise<string> {
    return (await this.getCard(call)).url;
  }
}

/**
 * Whether a 0.3 stream ends with this event: a final status update, or a Message (an agent that
 * answers with a message sends nothing after it).
 */
function isFinal(event: StreamResult): boolean {
  if (event.kind === 'status-update') return event.final === true;
  return event.kind === 'message';
}
