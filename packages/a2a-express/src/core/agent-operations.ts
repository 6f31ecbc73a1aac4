// The A2A operations, written once. Every version and binding calls them the same way: an
// operation in 1.0's words with its params in the core's model (operations.ts), and a call
// context (call.ts). `call` refuses what the agent's capabilities rule out, asks the authorize
// hook, and runs the operation. What comes back is the core's: a record, push configs, a page, a
// stream of events shown through the caller's view, or an A2AError.
import { A2AError, ErrorCode } from 'a2a-types/model';
import type { AuthorizeHook, AuthorizeRequest } from './auth.js';
import { tenantNotServed, type ServedTenants } from './tenants.js';
import { CORE_VIEW, ownerIn, streamHolder, type CallContext, type CallView } from './call.js';
import { TaskEventStream } from './event-feed.js';
import { isTerminalState, type StoredPushConfig } from '../model/task.js';
import {
  CAPABILITY_OF,
  taskIdOfOperation,
  type CreatePushConfigParams,
  type GetTaskParams,
  type ListTasksParams,
  type Operation,
  type OperationName,
  type OperationParams,
  type PushConfigRef,
  type SendMessageParams,
  type SubscribeParams,
  type TaskIdParams,
  type TurnRules,
} from './operations.js';
import { openResubscription } from './resubscription.js';
import { openSendStream } from './send-stream.js';
import type { TaskService } from './task-service.js';
import type { StoredEvent, TaskRecord } from '../model/record.js';
import type { TaskListCursor } from '../store/task-store.js';

/** A page of ListTasks: the tasks as the caller's view shows them. */
export interface TaskPage {
  readonly tasks: unknown[];
  /** Where the next page starts; absent on the last page. */
  readonly next: TaskListCursor | undefined;
  /** How many tasks match, on every page. */
  readonly total: number;
}

/** What each operation answers with, in the core's model. */
export interface OperationResults {
  /** The task once the turn ended, waits, or `sendWaitMs` passed; `replied` when its message is the whole answer. */
  SendMessage: TaskRecord;
  SendStreamingMessage: TaskEventStream;
  GetTask: TaskRecord;
  ListTasks: TaskPage;
  CancelTask: TaskRecord;
  SubscribeToTask: TaskEventStream;
  CreateTaskPushNotificationConfig: StoredPushConfig;
  GetTaskPushNotificationConfig: StoredPushConfig;
  ListTaskPushNotificationConfigs: readonly StoredPushConfig[];
  DeleteTaskPushNotificationConfig: undefined;
  /** The extended card in the caller's version's form. */
  GetExtendedAgentCard: unknown;
}

interface OperationSettings {
  readonly streaming: boolean;
  readonly pushNotifications: boolean;
  readonly authorize: AuthorizeHook | undefined;
  /** The URIs of the extensions the agent requires: a 0.3 or 1.0 call that does not ask for one is refused. */
  readonly requiredExtensions: readonly string[];
  /** The tenants served besides the default one; a call naming another is refused. */
  readonly tenants: ServedTenants | undefined;
}

/** 1.0's turn rules: a message names an existing task, and a completed task takes no more (spec 1.0 3.1.1). */
const RULES_10: TurnRules = { existingTaskOnly: true, completedIsTerminal: true };

/**
 * Room kept in an answer for everything around the tasks of a ListTasks page: the envelope
 * (with a client's request id), the page token, the sizes.
 */
const LIST_ENVELOPE_CHARS = 16 * 1024;

export class AgentOperations {
  private readonly work: OperationWork;

  constructor(
    service: TaskService,
    private readonly settings: OperationSettings,
  ) {
    this.work = new TaskOperations(service);
  }

  /** The error every call of `operation` gets on this agent, whatever its params: a capability it lacks. */
  refusal(operation: OperationName): A2AError | undefined {
    const needs = CAPABILITY_OF[operation];
    if (needs === 'streaming' && !this.settings.streaming) return A2AError.streamingNotSupported();
    if (needs === 'pushNotifications' && !this.settings.pushNotifications) return A2AError.pushNotificationNotSupported();
    return undefined;
  }

  /** Runs one operation for a caller: refused by capability or by the authorize hook (-32008), or done. */
  async call<O extends OperationName>(name: O, params: OperationParams[O], context: CallContext): Promise<OperationResults[O]> {
    const refused = this.refusal(name);
    if (refused) throw refused;
    const { tenant } = context;
    if (tenant !== undefined && !this.settings.tenants?.serves(tenant)) throw tenantNotServed(tenant);
    const { requiredExtensions } = this.settings;
    // 0.1.0 has no way to ask for an extension: its calls are not held to them (docs/extensions.md).
    if (requiredExtensions.length > 0 && context.origin.protocol !== '0.1.0') {
      const asked = context.extensions?.requested ?? [];
      const missing = requiredExtensions.filter((uri) => !asked.includes(uri));
      if (missing.length > 0) throw A2AError.extensionSupportRequired(missing);
    }
    const { authorize } = this.settings;
    if (authorize && context.principal) {
      const operation = { name, params } as Operation;
      const request = {
        operation: name,
        params,
        principal: context.principal,
        taskId: taskIdOfOperation(operation),
        origin: context.origin,
        headers: context.headers,
        tenant,
      } as AuthorizeRequest;
      if (!(await authorize(request))) throw A2AError.authorizationFailed();
    }
    return this.work[name](params, context);
  }
}

/**
 * What each operation does, once the call is let through: one method per operation, by its 1.0
 * name, its params and answer in the core's model. A version's method says which one it performs
 * (`toOperation`); the binding's call reaches it through `AgentOperations.call`.
 */
export type OperationWork = {
  readonly [O in OperationName]: (params: OperationParams[O], context: CallContext) => Promise<OperationResults[O]>;
};

/** The operations' work on the agent's tasks, through the task service. */
class TaskOperations implements OperationWork {
  constructor(private readonly service: TaskService) {}

  async SendMessage(params: SendMessageParams, context: CallContext): Promise<TaskRecord> {
    const { service } = this;
    const { taskId, rules } = addressOf(params, context);
    const owner = ownerIn(context);
    const send = await service.admitSend(taskId, params, owner, context);
    if (params.configuration?.returnImmediately === true) {
      const { run, taken } = await service.startTurn(send, owner, rules, context);
      return taken ?? run.started.record;
    }
    return service.sendAndWait(send, owner, rules, context);
  }

  async SendStreamingMessage(params: SendMessageParams, context: CallContext): Promise<TaskEventStream> {
    const { taskId, rules } = addressOf(params, context);
    return openSendStream(this.service, taskId, params, context, rules);
  }

  GetTask(params: GetTaskParams, context: CallContext): Promise<TaskRecord> {
    return this.service.readTask(params.id, ownerIn(context));
  }

  ListTasks(params: ListTasksParams, context: CallContext): Promise<TaskPage> {
    return listTasks(params, context, this.service);
  }

  CancelTask(params: TaskIdParams, context: CallContext): Promise<TaskRecord> {
    return this.service.cancel(params.id, ownerIn(context));
  }

  async SubscribeToTask({ id, opensWith }: SubscribeParams, context: CallContext): Promise<TaskEventStream> {
    const resumed = context.lastEventId !== undefined && context.lastEventId !== '';
    if (opensWith === 'replay' || resumed) return openResubscription(this.service, id, context);
    return openTaskSubscription(this.service, id, context, context.view ?? CORE_VIEW);
  }

  /** A config without an id replaces the task's own config, else its oldest; with none, it becomes the task's own. */
  async CreateTaskPushNotificationConfig({ taskId, config }: CreatePushConfigParams, context: CallContext): Promise<StoredPushConfig> {
    const { service } = this;
    const id = config.id ?? addressedConfig(await service.readTask(taskId, ownerIn(context)), undefined)?.id ?? taskId;
    const stored = { ...config, id } as StoredPushConfig;
    await service.setPushConfig(taskId, stored, ownerIn(context));
    return stored;
  }

  async GetTaskPushNotificationConfig({ taskId, id }: PushConfigRef, context: CallContext): Promise<StoredPushConfig> {
    const config = addressedConfig(await this.service.readTask(taskId, ownerIn(context)), id);
    if (!config) throw configNotFound(taskId, id);
    return config;
  }

  async ListTaskPushNotificationConfigs({ taskId }: { taskId: string }, context: CallContext): Promise<readonly StoredPushConfig[]> {
    return (await this.service.readTask(taskId, ownerIn(context))).pushConfigs ?? [];
  }

  /** Deleting a config the task does not have succeeds: what the client wanted is so (spec 1.0 3.1.10). */
  async DeleteTaskPushNotificationConfig({ taskId, id }: PushConfigRef, context: CallContext): Promise<undefined> {
    const { service } = this;
    const configId = id ?? addressedConfig(await service.readTask(taskId, ownerIn(context)), undefined)?.id;
    if (configId !== undefined) await service.deletePushConfig(taskId, configId, ownerIn(context));
    else await service.readTask(taskId, ownerIn(context));
    return undefined;
  }

  async GetExtendedAgentCard(_params: Record<string, never>, context: CallContext): Promise<unknown> {
    if (!context.extendedCard) {
      throw new A2AError(ErrorCode.UnsupportedOperation, 'This agent has no extended agent card', {
        reason: 'the agent card does not declare capabilities.extendedAgentCard',
      });
    }
    return context.extendedCard();
  }
}

/**
 * The task a send is for and the rules its turn follows: the task the request names (created
 * when unknown), else the message's (which must exist), else a new one.
 */
function addressOf(params: SendMessageParams, context: CallContext): { taskId: string; rules: TurnRules } {
  const rules = context.turnRules ?? RULES_10;
  if (params.task) return { taskId: params.task.id, rules: { ...rules, existingTaskOnly: false } };
  const { taskId } = params.message;
  if (taskId) return { taskId, rules };
  return { taskId: crypto.randomUUID(), rules: NEW_TASK };
}

/** A message without a task id: its task id was just made, so the task is new. */
const NEW_TASK: TurnRules = {};

/** The task's config of `configId`; without one, the task's own config (its id is the task's), else its oldest. */
function addressedConfig(record: TaskRecord, configId: string | undefined): StoredPushConfig | undefined {
  const configs = record.pushConfigs ?? [];
  if (configId !== undefined) return configs.find((config) => config.id === configId);
  return configs.find((config) => config.id === record.task.id) ?? configs[0];
}

function configNotFound(taskId: string, configId: string | undefined): A2AError {
  if (configId === undefined) return A2AError.pushNotificationConfigNotFound(taskId);
  return new A2AError(ErrorCode.TaskNotFound, 'Push notification config not found', { taskId, pushNotificationConfigId: configId });
}

/**
 * SubscribeToTask for a view that opens with the task: the task as it stands, then its updates
 * until a turn's final one (spec 1.0 3.1.6). A task waiting for input stays subscribed through the
 * next turn; a task in a terminal state has nothing to stream: -32004.
 */
async function openTaskSubscription(service: TaskService, taskId: string, context: CallContext, view: CallView): Promise<TaskEventStream> {
  const showTask = view.task ?? CORE_VIEW.task!;
  // The feed is open before the task is read, so that no update falls between the two.
  const feed = await service.openFeed(taskId, streamHolder(context));
  try {
    const record = await service.readTask(taskId, ownerIn(context));
    const { state } = record.task.status;
    if (isTerminalState(state)) throw A2AError.unsupportedOperation(`task ${taskId} is ${state}: it has no more updates`);
    // The task stands for every event so far; it does not end the stream, even when its turn is over.
    const snapshot: StoredEvent = { id: record.lastEventId, event: { id: record.task.id, status: record.task.status, final: false } };
    const render = view.events(record);
    return new TaskEventStream(feed, [snapshot], record.lastEventId, (stored) => (stored === snapshot ? showTask(record) : render(stored)));
  } catch (error) {
    feed.close();
    throw error;
  }
}

/**
 * ListTasks: the caller's tasks, newest status first, filtered by context, state and status time,
 * a page at a time. A page holds what fits in one answer (`maxResponseBytes`): each task is shown
 * and measured as the store hands it over, and the page ends before the task that would not fit,
 * which starts the next page (the spec lets a page hold fewer tasks than asked). A task too large
 * to be listed alone is -32602 naming the params that make it smaller.
 */
async function listTasks(params: ListTasksParams, context: CallContext, service: TaskService): Promise<TaskPage> {
  const { historyLength, includeArtifacts } = params;
  const view = context.view?.listed ? context.view : CORE_VIEW;
  const { maxResponseBytes } = service.limits;
  const room = Math.max(0, maxResponseBytes - LIST_ENVELOPE_CHARS);
  const tasks: unknown[] = [];
  let used = 0;
  const page = await service.listTasks(
    {
      contextId: params.contextId || undefined,
      state: params.status,
      statusAtOrAfterMs: params.statusTimestampAfterMs,
      pageSize: params.pageSize,
      after: params.after,
      accept(record) {
        const task = view.listed!(record, historyLength, includeArtifacts);
        // JSON text and its comma, measured as the answer is (in characters).
        const size = JSON.stringify(task).length + 1;
        if (used + size > room) {
          if (tasks.length === 0) throw tooLargeToList(record.task.id, size, maxResponseBytes, includeArtifacts, historyLength);
          return false;
        }
        used += size;
        tasks.push(task);
        return true;
      },
    },
    ownerIn(context),
  );
  return { tasks, next: page.next, total: page.total };
}

/** -32602 for a task that alone is more than an answer holds, naming what would make it smaller. */
function tooLargeToList(
  taskId: string,
  size: number,
  maxResponseBytes: number,
  includeArtifacts: boolean,
  historyLength: number,
): A2AError {
  const smaller = [includeArtifacts && 'includeArtifacts false', historyLength > 0 && 'a smaller historyLength']
    .filter(Boolean)
    .join(' or ');
  return A2AError.invalidParams([
    {
      path: includeArtifacts ? '/includeArtifacts' : '/historyLength',
      message:
        `task ${taskId} is ${size} characters as listed, more than this agent sends in one answer (maxResponseBytes ${maxResponseBytes})` +
        (smaller ? `: list with ${smaller}, or read it with GetTask` : ''),
      keyword: 'maxResponseBytes',
      params: { taskId, size, maxResponseBytes },
    },
  ]);
}
