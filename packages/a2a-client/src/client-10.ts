// A typed client for A2A 1.0 agents, over JSON-RPC, HTTP+JSON or gRPC: the binding is chosen from the
// card's `supportedInterfaces` (its first 1.0 interface this client speaks, or the one asked
// for), every call carries `A2A-Version: 1.0`, and answers are held to the published 1.0 schema.
import type { Validator } from 'a2a-types';
import {
  publishedSchemaValidator10,
  type AgentCard,
  type AgentInterface,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from 'a2a-types/v1.0';
import { codeOfReason10, InvalidResponseError } from './errors.js';
import type { GrpcChannel, GrpcTransport } from './grpc.js';
import { JsonRpcHttp, type A2AClientOptions, type CallOptions, type Check, type StreamPlan } from './transport.js';

/** The bindings this client speaks, as cards name them. */
export type Binding10 = 'JSONRPC' | 'HTTP+JSON' | 'GRPC';

export interface A2AClient10Options extends A2AClientOptions {
  /**
   * The binding to use when the card lists several. Default: the one the card lists first (of
   * those this client speaks: gRPC only with `grpc`).
   */
  preferredBinding?: Binding10;
  /**
   * gRPC: `grpcTransport(...)` from `a2a-client/grpc` (Node only, with @grpc/grpc-js installed),
   * which says how the card's gRPC interface is dialled (TLS, keepalive). Without it the client
   * speaks JSON-RPC and HTTP+JSON only, and a card's gRPC interface is passed over.
   */
  grpc?: GrpcTransport;
  /**
   * The tenant to call (spec 1.0: `tenant`): the card's interface for it is chosen, or where the
   * card lists none for it, its first one, with the tenant named all the same. Default: the
   * tenant of the interface chosen (spec 1.0 8.3.2: every request names the selected interface's).
   */
  tenant?: string;
}

/** One event of a 1.0 stream, with its SSE id. */
export interface StreamEvent10 {
  id: string | undefined;
  event: StreamResponse;
}

const VERSION_HEADERS = { 'A2A-Version': '1.0' };
const BINDINGS: readonly string[] = ['JSONRPC', 'HTTP+JSON', 'GRPC'];

function check(title: string, nullable = false): Check {
  const validate = ((value: unknown) => publishedSchemaValidator10(title)(value)) as Validator<unknown>;
  Object.defineProperty(validate, 'issues', { get: () => publishedSchemaValidator10(title).issues });
  return { validate, allIssues: (value) => (validate(value) ? [] : validate.issues), nullable };
}

const CARD = check('Agent Card');
const TASK = check('Task');
const SEND_RESPONSE = check('Send Message Response');
const LIST_RESPONSE = check('List Tasks Response');
const PUSH_CONFIG = check('Task Push Notification Config');
const PUSH_CONFIGS = check('List Task Push Notification Configs Response');
const STREAM_RESPONSE = check('Stream Response');
/** A JSON-RPC stream event: the envelope, its result a StreamResponse. */
const STREAM_ENVELOPE: Check = {
  validate: Object.assign((value: unknown) => STREAM_RESPONSE.validate((value as { result?: unknown }).result), {
    get issues() {
      return STREAM_RESPONSE.validate.issues;
    },
  }) as unknown as Validator<unknown>,
  allIssues: (value) => STREAM_RESPONSE.allIssues((value as { result?: unknown }).result),
};
/** DeleteTaskPushNotificationConfig answers an empty object (or, from some agents, null). */
const EMPTY: Check = {
  validate: Object.assign(() => true, { issues: [] }) as unknown as Validator<unknown>,
  allIssues: () => [],
  nullable: true,
};

/** The JSON-RPC code of a 1.0 error an HTTP+JSON agent names by its ErrorInfo reason. */
function codeOfReason(reason: string | undefined, status: number): number {
  return codeOfReason10(reason) ?? (status === 404 ? -32001 : status >= 500 ? -32603 : -32600);
}

/** Whether a 1.0 stream ends with this event: a message, or a task's terminal or interrupted status. */
export function endsStream10(event: unknown): boolean {
  const value = event as StreamResponse;
  if ('message' in value) return true;
  const state = 'statusUpdate' in value ? value.statusUpdate.status.state : undefined;
  return state !== undefined && ENDING_STATES.has(state);
}
const ENDING_STATES: ReadonlySet<string> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

export class A2AClient10 {
  readonly baseUrl: string;
  private card: AgentCard | undefined;
  private chosen: AgentInterface | undefined;
  private readonly http: JsonRpcHttp;
  private grpc: GrpcChannel | undefined;

  /**
   * @param baseUrl where the agent is: its card is at `<baseUrl>/.well-known/agent-card.json`
   *   (asked for with `A2A-Version: 1.0`), and its interfaces are where the card says.
   */
  constructor(
    baseUrl: string | URL,
    private readonly options: A2AClient10Options = {},
  ) {
    this.baseUrl = new URL(baseUrl).toString().replace(/\/+$/, '');
    if (options.grpc !== undefined && typeof (options.grpc as Partial<GrpcTransport>).open !== 'function')
      throw new TypeError(
        "A2AClient10: `grpc` takes grpcTransport({ ... }) from 'a2a-client/grpc' (its hooks, metadata and observe, go there)",
      );
    if (options.preferredBinding === 'GRPC' && !options.grpc)
      throw new TypeError("A2AClient10: preferredBinding 'GRPC' needs `grpc: grpcTransport()` from 'a2a-client/grpc'");
    this.http = new JsonRpcHttp({ ...options, headers: { ...options.headers, ...VERSION_HEADERS } }, '1.0', () => this.getCard());
  }

  /**
   * A client for the agent a 1.0 card describes (one already fetched, or shipped with the caller):
   * its interfaces are where that card says, and no card is fetched.
   */
  static fromCard(card: AgentCard, options: A2AClient10Options = {}): A2AClient10 {
    const where = card.supportedInterfaces?.find((i) => /^https?:/i.test(i.url))?.url ?? 'http://card.invalid';
    const client = new A2AClient10(where, options);
    client.card = card;
    return client;
  }

  /** The agent's 1.0 card: fetched once, checked against the published schema, then cached. */
  async getCard(call: CallOptions = {}): Promise<AgentCard> {
    this.card ??= (await this.http.getJson(`${this.baseUrl}/.well-known/agent-card.json`, CARD, 'agent card', call)) as AgentCard;
    return this.card;
  }

  /** The interface calls go to: the card's first 1.0 interface of a binding this client speaks (or the preferred one). */
  async agentInterface(call: CallOptions = {}): Promise<AgentInterface> {
    if (this.chosen) return this.chosen;
    const listed = ((await this.getCard(call)).supportedInterfaces ?? []).filter(
      (i) => BINDINGS.includes(i.protocolBinding.toUpperCase()) && /^1\.0(\.\d+)?$/.test(i.protocolVersion),
    );
    const usable = this.options.grpc ? listed : listed.filter((i) => i.protocolBinding.toUpperCase() !== 'GRPC');
    if (usable.length === 0 && listed.length > 0)
      throw new InvalidResponseError(
        "the agent card lists A2A 1.0 over gRPC only: give the client `grpc: grpcTransport()` from 'a2a-client/grpc' (Node, with @grpc/grpc-js)",
      );

    // The tenant asked for narrows the choice to its interfaces, where the card lists any; no tenant, to those of none.
    const { tenant } = this.options;
    const ofTenant = usable.filter((i) => (i.tenant || undefined) === tenant);
    const candidates = ofTenant.length > 0 ? ofTenant : usable;
    const preferred =
      this.options.preferredBinding && candidates.find((i) => i.protocolBinding.toUpperCase() === this.options.preferredBinding);
    const chosen = preferred ?? candidates[0];
    if (!chosen) throw new InvalidResponseError('the agent card lists no A2A 1.0 interface over JSONRPC, HTTP+JSON or GRPC');
    this.chosen = tenant === undefined || chosen.tenant === tenant ? chosen : { ...chosen, tenant };
    return this.chosen;
  }

  /** SendMessage: `{ task }` once the turn ends (or as it stands, with `returnImmediately`), or `{ message }`. */
  async sendMessage(params: SendMessageRequest, call?: CallOptions): Promise<SendMessageResponse> {
    return (await this.unary('SendMessage', 'POST', '/message:send', params, SEND_RESPONSE, call)) as SendMessageResponse;
  }

  async getTask(params: { id: string; historyLength?: number }, call?: CallOptions): Promise<Task> {
    const query = params.historyLength !== undefined ? `?historyLength=${params.historyLength}` : '';
    return (await this.unary('GetTask', 'GET', `/tasks/${encodeURIComponent(params.id)}${query}`, params, TASK, call)) as Task;
  }

  async listTasks(params: ListTasksRequest = {}, call?: CallOptions): Promise<ListTasksResponse> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
    const path = `/tasks${query.size > 0 ? `?${query}` : ''}`;
    return (await this.unary('ListTasks', 'GET', path, params, LIST_RESPONSE, call)) as ListTasksResponse;
  }

  async cancelTask(params: { id: string }, call?: CallOptions): Promise<Task> {
    return (await this.unary('CancelTask', 'POST', `/tasks/${encodeURIComponent(params.id)}:cancel`, params, TASK, call, {})) as Task;
  }

  async createPushNotificationConfig(
    params: TaskPushNotificationConfig & { taskId: string },
    call?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    const { taskId, ...config } = params;
    const path = `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs`;
    return (await this.unary(
      'CreateTaskPushNotificationConfig',
      'POST',
      path,
      params,
      PUSH_CONFIG,
      call,
      config,
    )) as TaskPushNotificationConfig;
  }

  async getPushNotificationConfig(params: { taskId: string; id: string }, call?: CallOptions): Promise<TaskPushNotificationConfig> {
    const path = `/tasks/${encodeURIComponent(params.taskId)}/pushNotificationConfigs/${encodeURIComponent(params.id)}`;
    return (await this.unary('GetTaskPushNotificationConfig', 'GET', path, params, PUSH_CONFIG, call)) as TaskPushNotificationConfig;
  }

  async listPushNotificationConfigs(params: { taskId: string }, call?: CallOptions): Promise<ListTaskPushNotificationConfigsResponse> {
    const path = `/tasks/${encodeURIComponent(params.taskId)}/pushNotificationConfigs`;
    return (await this.unary(
      'ListTaskPushNotificationConfigs',
      'GET',
      path,
      params,
      PUSH_CONFIGS,
      call,
    )) as ListTaskPushNotificationConfigsResponse;
  }

  async deletePushNotificationConfig(params: { taskId: string; id: string }, call?: CallOptions): Promise<void> {
    const path = `/tasks/${encodeURIComponent(params.taskId)}/pushNotificationConfigs/${encodeURIComponent(params.id)}`;
    await this.unary('DeleteTaskPushNotificationConfig', 'DELETE', path, params, EMPTY, call);
  }

  /** GetExtendedAgentCard: the fuller card an authenticated caller gets (when the card says there is one). */
  async getExtendedCard(call?: CallOptions): Promise<AgentCard> {
    return (await this.unary('GetExtendedAgentCard', 'GET', '/extendedAgentCard', {}, CARD, call)) as AgentCard;
  }

  /** SendStreamingMessage: the task as the turn opened, then its updates (or a message alone), until the turn's end. */
  streamMessage(params: SendMessageRequest, call: CallOptions = {}): AsyncGenerator<StreamEvent10> {
    return this.events('SendStreamingMessage', 'POST', '/message:stream', params, params, call);
  }

  /** SubscribeToTask: the task as it stands, then its updates until a turn's end. */
  subscribe(params: { id: string }, call: CallOptions & { lastEventId?: string } = {}): AsyncGenerator<StreamEvent10> {
    const headers = call.lastEventId ? { ...call.headers, 'Last-Event-ID': call.lastEventId } : call.headers;
    return this.events('SubscribeToTask', 'POST', `/tasks/${encodeURIComponent(params.id)}:subscribe`, params, undefined, {
      ...call,
      headers,
    });
  }

  /** Closes the gRPC channel, if the client opened one (HTTP needs nothing closed). */
  close(): void {
    this.grpc?.close();
  }

  private grpcCalls(address: string): GrpcChannel {
    this.grpc ??= this.options.grpc!.open(address, this.http, {
      headers: { ...this.options.headers, 'a2a-version': '1.0' },
      timeoutMs: this.options.timeoutMs ?? 30_000,
    });
    return this.grpc;
  }

  private async unary(
    method: string,
    verb: string,
    path: string,
    params: unknown,
    resultCheck: Check,
    call: CallOptions = {},
    restBody?: unknown,
  ): Promise<unknown> {
    const chosen = await this.agentInterface(call);
    const { url, protocolBinding } = chosen;
    const withTenant = inTenant(params, chosen.tenant);
    if (protocolBinding.toUpperCase() === 'JSONRPC') return this.http.call(url, method, withTenant, resultCheck, call);
    if (protocolBinding.toUpperCase() === 'GRPC') return this.grpcCalls(url).unary(method, withTenant, resultCheck, call);
    const body = verb === 'POST' ? (restBody ?? params) : undefined;
    return this.http.rest({ method, verb, url: restUrl(url, chosen.tenant, path), body, check: resultCheck, codeOf: codeOfReason }, call);
  }

  private async *events(
    method: string,
    verb: string,
    path: string,
    params: unknown,
    restBody: unknown,
    call: CallOptions,
  ): AsyncGenerator<StreamEvent10> {
    const chosen = await this.agentInterface(call);
    const { url, protocolBinding, tenant } = chosen;
    if (protocolBinding.toUpperCase() === 'JSONRPC') {
      // A dropped JSON-RPC stream is picked up with SubscribeToTask and Last-Event-ID.
      let taskId = (params as { id?: string; message?: { taskId?: string } }).id ?? (params as SendMessageRequest).message?.taskId;
      const plan: StreamPlan = {
        method,
        params: inTenant(params, tenant),
        check: STREAM_ENVELOPE,
        isFinal: endsStream10,
        resume: () => ({ method: 'SubscribeToTask', params: inTenant({ id: taskId }, tenant) }),
      };
      for await (const { id, result } of this.http.stream(url, plan, undefined, call)) {
        const event = result as StreamResponse;
        taskId ??= 'task' in event ? event.task.id : 'statusUpdate' in event ? event.statusUpdate.taskId : undefined;
        yield { id, event };
      }
      return;
    }
    if (protocolBinding.toUpperCase() === 'GRPC') {
      for await (const event of this.grpcCalls(url).stream(method, inTenant(params, tenant), STREAM_RESPONSE, call))
        yield { id: undefined, event: event as StreamResponse };
      return;
    }
    const stream = this.http.restStream(
      {
        method,
        verb,
        url: restUrl(url, tenant, path),
        body: restBody,
        check: STREAM_RESPONSE,
        isFinal: endsStream10,
        codeOf: codeOfReason,
      },
      call,
    );
    for await (const { id, result } of stream) yield { id, event: result as StreamResponse };
  }
}

/** A request's params naming the tenant (spec 1.0 8.3.2), unless it names one itself. */
function inTenant(params: unknown, tenant: string | undefined): unknown {
  if (!tenant || params === null || typeof params !== 'object' || (params as { tenant?: unknown }).tenant) return params;
  return { ...params, tenant };
}

/** An HTTP+JSON route below the interface's URL, and below the tenant's segment where there is one (the proto's `/{tenant}/…`). */
function restUrl(url: string, tenant: string | undefined, path: string): string {
  return `${url.replace(/\/+$/, '')}${tenant ? `/${encodeURIComponent(tenant)}` : ''}${path}`;
}
