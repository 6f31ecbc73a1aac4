// A typed client for A2A 0.1.0: the agent card and all seven RPCs, streams as async iterables,
// responses validated against the schema so that a misbehaving server is reported, not trusted.
// For A2A 0.3 agents, see client-03.ts.
import {
  allIssues,
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
  type Validator,
} from 'a2a-types';
import { AgentClient } from './agent-client.js';
import type { A2AClientOptions, CallOptions, Check, StreamPlan } from './transport.js';

export type { A2AClientOptions, CallOptions, Departure } from './transport.js';

const check = (validate: Validator<unknown>, definition: string): Check => ({
  validate,
  allIssues: (value) => allIssues(definition, value),
});
const CARD = check(validateAgentCard, 'AgentCard');
const TASK = check(validateTask, 'Task');
const PUSH_CONFIG = check(validateTaskPushNotificationConfig, 'TaskPushNotificationConfig');
const STREAM_EVENT = check(validateSendTaskStreamingResponse, 'SendTaskStreamingResponse');

/** One event of a stream, with its SSE id (what `Last-Event-ID` resumes from). */
export interface StreamEvent {
  id: string | undefined;
  event: TaskEvent;
}

export class A2AClient extends AgentClient<AgentCard> {
  /**
   * @param baseUrl where the agent is mounted: its card is at `<baseUrl>/.well-known/agent.json`
   *   and, until the card says otherwise, its JSON-RPC endpoint is `baseUrl` itself.
   */
  constructor(baseUrl: string | URL, options: A2AClientOptions = {}) {
    super(baseUrl, options, '/.well-known/agent.json', CARD, '0.1.0');
  }

  /** A client for the agent a card describes (its `url` is the endpoint). */
  static fromCard(card: AgentCard, options: A2AClientOptions = {}): A2AClient {
    const client = new A2AClient(card.url, options);
    client.card = card;
    return client;
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
    return this.events(plan('tasks/sendSubscribe', params, params.id), undefined, call);
  }

  /** tasks/resubscribe: from `lastEventId` when given (the events missed), else from now. */
  resubscribe(params: TaskQueryParams, call: CallOptions & { lastEventId?: string } = {}): AsyncGenerator<StreamEvent> {
    return this.events(plan('tasks/resubscribe', params, params.id), call.lastEventId, call);
  }

  private async *events(streamPlan: StreamPlan, lastEventId: string | undefined, call: CallOptions): AsyncGenerator<StreamEvent> {
    for await (const { id, result } of this.http.stream(this.endpoint(), streamPlan, lastEventId, call)) {
      yield { id, event: result as TaskEvent };
    }
  }

  private async rpc<R>(method: string, params: unknown, resultCheck: Check, call: CallOptions = {}): Promise<R> {
    return (await this.http.call(this.endpoint(), method, params, resultCheck, call)) as R;
  }

  /** Where requests go: the card's `url` once the card is known, else the base URL. */
  private endpoint(): string {
    return this.card?.url ?? this.baseUrl;
  }
}

function plan(method: string, params: unknown, taskId: string): StreamPlan {
  return {
    method,
    params,
    check: STREAM_EVENT,
    isFinal: (result) => isStatusUpdateEvent(result as TaskEvent) && (result as { final?: boolean }).final === true,
    resume: () => ({ method: 'tasks/resubscribe', params: { id: taskId } }),
  };
}
