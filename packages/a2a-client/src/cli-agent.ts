// What the `a2a` command line asks of an agent, in one shape whichever protocol version the agent
// speaks: A2A 0.1.0 through A2AClient, or 0.3 through A2AClient03. Answers come back both raw
// (what `--json` prints) and in 0.1.0's terms (what the printers show), so that the commands are
// written once.
import { randomUUID } from 'node:crypto';
import type { AgentCard, Artifact, Message, Task, TaskEvent, TaskStatus } from 'a2a-types';
import {
  messageFrom03,
  partFrom03,
  type AgentCard as AgentCard03,
  type Artifact as Artifact03,
  type Message as Message03,
  type Part as Part03,
  type StreamResult,
  type Task as Task03,
  type TaskStatus as TaskStatus03,
} from 'a2a-types/v0.3';
import { MAX_CARD_BYTES, readBounded } from './bounded-body.js';
import { A2AClient } from './client.js';
import { A2AClient03 } from './client-03.js';
import { A2AClient10, endsStream10, type A2AClient10Options } from './client-10.js';
import { grpcTransport, type GrpcTransportOptions } from './grpc.js';
import type * as v10 from 'a2a-types/v1.0';

export type Protocol = '0.1.0' | '0.3' | '1.0';

/** Which task a message goes to, and what to send with it. */
export interface Addressing {
  /** An existing task to continue; none starts a new task. */
  taskId?: string;
  sessionId?: string;
  historyLength?: number;
}

export interface Answer {
  raw: unknown;
  task: Task;
}

export interface Event {
  id: string | undefined;
  raw: unknown;
  event: TaskEvent;
}

export interface AgentApi {
  readonly protocol: Protocol;
  card(): Promise<{ raw: unknown; view: AgentCard }>;
  send(message: Message, to: Addressing, signal?: AbortSignal): Promise<Answer>;
  stream(message: Message, to: Addressing, signal?: AbortSignal): AsyncIterable<Event>;
  get(taskId: string, historyLength?: number): Promise<Answer>;
  cancel(taskId: string): Promise<Answer>;
  resubscribe(taskId: string, lastEventId?: string, signal?: AbortSignal): AsyncIterable<Event>;
  setPush(taskId: string, config: { url: string; token?: string }): Promise<unknown>;
  getPush(taskId: string): Promise<unknown>;
  /** The agent's tasks, newest first: A2A 1.0 only (ListTasks); earlier versions have no such method. */
  list?(params?: { contextId?: string; pageSize?: number; pageToken?: string }): Promise<{ raw: unknown; tasks: Task[] }>;
  /**
   * The binding calls go over (0.3 and 1.0: of the interface the client chose from the card), and
   * the bindings of the card's interfaces of this version, as the card names them.
   */
  binding?(): Promise<{ binding: string; listed: string[] }>;
  /** Lets go of what the client holds open (a gRPC channel); HTTP clients hold nothing. */
  close?(): void;
}

/**
 * The protocol an agent speaks, newest first, from its cards: 1.0 when the card at
 * `/.well-known/agent-card.json`, asked for in 1.0, lists a 1.0 interface over JSON-RPC or
 * HTTP+JSON; else 0.1.0 when it serves `/.well-known/agent.json`; else 0.3 when it serves
 * `/.well-known/agent-card.json`; else 0.1.0 (whose errors then say what answered).
 */
export async function detectProtocol(baseUrl: string, headers: Record<string, string>, fetchFn: typeof fetch = fetch): Promise<Protocol> {
  const base = baseUrl.replace(/\/+$/, '');
  const fetchCard = async (path: string, extra: Record<string, string> = {}) => {
    try {
      const response = await fetchFn(`${base}${path}`, { headers: { ...headers, ...extra }, signal: AbortSignal.timeout(10_000) });
      if (!response.ok) {
        await response.body?.cancel();
        return undefined;
      }
      // Read to the card's bound: a card past it is there, and reading it for use says it is too large.
      const { text, overBound, error } = await readBounded(response.body, MAX_CARD_BYTES);
      if (error !== undefined) return undefined;
      let card: unknown = {};
      try {
        if (!overBound) card = JSON.parse(text) ?? {};
      } catch {}
      return card as { supportedInterfaces?: { protocolBinding?: unknown; protocolVersion?: unknown }[] };
    } catch {
      return undefined;
    }
  };
  const card = await fetchCard('/.well-known/agent-card.json', { 'A2A-Version': '1.0' });
  const speaks10 = card?.supportedInterfaces?.some(
    (i) => /^(JSONRPC|HTTP\+JSON)$/i.test(String(i.protocolBinding)) && /^1\.0(\.\d+)?$/.test(String(i.protocolVersion)),
  );
  if (speaks10) return '1.0';
  if (await fetchCard('/.well-known/agent.json')) return '0.1.0';
  return card ? '0.3' : '0.1.0';
}

/** A client's options, gRPC's as grpcTransport takes them (the command line and the inspector run on Node: gRPC is always there). */
export type AgentApiOptions = Omit<A2AClient10Options, 'grpc'> & { grpc?: GrpcTransportOptions };

export function agentApi(protocol: Protocol, baseUrl: string, options: AgentApiOptions): AgentApi {
  const { grpc, ...http } = options;
  if (protocol === '1.0') return api10(new A2AClient10(baseUrl, { ...http, grpc: grpcTransport(grpc) }));
  if (protocol === '0.3') return api03(new A2AClient03(baseUrl, { ...http, grpc: grpcTransport(grpc) }));
  // 0.1.0 has JSON-RPC alone: another binding asked for is refused (bindingRefusal).
  return api01(new A2AClient(baseUrl, http));
}

const BINDING_NAMES: Readonly<Record<string, string>> = { JSONRPC: 'JSON-RPC', 'HTTP+JSON': 'HTTP+JSON', GRPC: 'gRPC' };

/**
 * Why `binding` cannot be spoken to this agent in `api.protocol`, or undefined when it is the one
 * its calls go over: the clients take a preferred binding the card does not list as a wish and
 * use another, where a person who typed `--binding grpc` wants gRPC or to be told.
 */
export async function bindingRefusal(api: AgentApi, binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC'): Promise<string | undefined> {
  const asked = BINDING_NAMES[binding]!;
  if (api.protocol === '0.1.0') return binding === 'JSONRPC' ? undefined : `A2A 0.1.0 has JSON-RPC alone, not ${asked}`;
  const used = await api.binding!();
  if (used.binding === binding) return undefined;
  const listed = [...new Set(used.listed)].map((name) => BINDING_NAMES[name] ?? name);
  return `the agent's A2A ${api.protocol} card lists no ${asked} interface (it lists ${listed.join(', ') || 'none'})`;
}

function api01(client: A2AClient): AgentApi {
  const answer = (task: Task): Answer => ({ raw: task, task });
  const events = async function* (stream: AsyncIterable<{ id: string | undefined; event: TaskEvent }>): AsyncIterable<Event> {
    for await (const { id, event } of stream) yield { id, raw: event, event };
  };
  const params = (message: Message, to: Addressing) => ({
    id: to.taskId ?? randomUUID(),
    message,
    ...(to.sessionId ? { sessionId: to.sessionId } : {}),
    ...(to.historyLength !== undefined ? { historyLength: to.historyLength } : {}),
  });
  return {
    protocol: '0.1.0',
    card: async () => {
      const card = await client.getCard();
      return { raw: card, view: card };
    },
    send: async (message, to, signal) => answer(await client.send(params(message, to), { signal })),
    stream: (message, to, signal) => events(client.sendSubscribe(params(message, to), { signal })),
    get: async (id, historyLength) => answer(await client.get({ id, ...(historyLength !== undefined ? { historyLength } : {}) })),
    cancel: async (id) => answer(await client.cancel({ id })),
    resubscribe: (id, lastEventId, signal) => events(client.resubscribe({ id }, { ...(lastEventId ? { lastEventId } : {}), signal })),
    setPush: (id, config) => client.setPushNotification({ id, pushNotificationConfig: config }),
    getPush: (id) => client.getPushNotification({ id }),
  };
}

function api03(client: A2AClient03): AgentApi {
  const message03 = (message: Message, to: Addressing): Message03 => ({
    kind: 'message',
    messageId: randomUUID(),
    role: message.role,
    parts: message.parts.map(({ type, ...rest }) => ({ kind: type, ...rest }) as Part03),
    ...(to.taskId ? { taskId: to.taskId } : {}),
    ...(to.sessionId ? { contextId: to.sessionId } : {}),
  });
  // A 0.3 Task carries its whole history unless asked otherwise: ask for what --history says (0.1.0's default, none).
  const sendParams = (message: Message, to: Addressing) => ({
    message: message03(message, to),
    configuration: { historyLength: to.historyLength ?? 0 },
  });
  const events = async function* (stream: AsyncIterable<{ id: string | undefined; event: StreamResult }>): AsyncIterable<Event> {
    for await (const { id, event } of stream) yield { id, raw: event, event: eventFrom03(event) };
  };
  return {
    protocol: '0.3',
    card: async () => {
      const card = await client.getCard();
      return { raw: card, view: cardFrom03(card, (await client.agentInterface()).url) };
    },
    send: async (message, to, signal) => {
      const result = await client.sendMessage(sendParams(message, to), { signal });
      return { raw: result, task: result.kind === 'message' ? taskOfMessage(result) : lastMessages(taskFrom03(result), to.historyLength) };
    },
    stream: (message, to, signal) => events(client.streamMessage(sendParams(message, to), { signal })),
    get: async (id, historyLength) => {
      const task = await client.getTask({ id, historyLength: historyLength ?? 0 });
      return { raw: task, task: lastMessages(taskFrom03(task), historyLength) };
    },
    cancel: async (id) => {
      const task = await client.cancelTask({ id });
      return { raw: task, task: lastMessages(taskFrom03(task)) };
    },
    resubscribe: (id, lastEventId, signal) => events(client.resubscribe({ id }, { ...(lastEventId ? { lastEventId } : {}), signal })),
    setPush: (taskId, config) => client.setPushNotificationConfig({ taskId, pushNotificationConfig: config }),
    getPush: (id) => client.getPushNotificationConfig({ id }),
    binding: async () => {
      const card = await client.getCard();
      const listed = [card.preferredTransport ?? 'JSONRPC', ...(card.additionalInterfaces ?? []).map((i) => i.transport)];
      return { binding: (await client.agentInterface()).binding, listed: listed.map((name) => String(name).toUpperCase()) };
    },
    close: () => client.close(),
  };
}

function api10(client: A2AClient10): AgentApi {
  const message10 = (message: Message, to: Addressing): v10.Message => ({
    messageId: randomUUID(),
    role: message.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: message.parts.map(partTo10),
    ...(to.taskId ? { taskId: to.taskId } : {}),
    ...(to.sessionId ? { contextId: to.sessionId } : {}),
  });
  // Without --history, no history: 0.1.0's default, which the printers expect.
  const sendParams = (message: Message, to: Addressing) => ({
    message: message10(message, to),
    configuration: { historyLength: to.historyLength ?? 0 },
  });
  const answer = (result: v10.SendMessageResponse | v10.Task): Answer => ({
    raw: result,
    task: 'message' in result ? taskOfMessage10(result.message) : taskFrom10('task' in result ? result.task : result),
  });
  const events = async function* (stream: AsyncIterable<{ id: string | undefined; event: v10.StreamResponse }>): AsyncIterable<Event> {
    for await (const { id, event } of stream) yield { id, raw: event, event: eventFrom10(event) };
  };
  return {
    protocol: '1.0',
    card: async () => {
      const card = await client.getCard();
      return { raw: card, view: cardFrom10(card, (await client.agentInterface()).url) };
    },
    send: async (message, to, signal) => answer(await client.sendMessage(sendParams(message, to), { signal })),
    stream: (message, to, signal) => events(client.streamMessage(sendParams(message, to), { signal })),
    get: async (id, historyLength) => answer(await client.getTask({ id, historyLength: historyLength ?? 0 })),
    cancel: async (id) => answer(await client.cancelTask({ id })),
    resubscribe: (id, lastEventId, signal) => events(client.subscribe({ id }, { ...(lastEventId ? { lastEventId } : {}), signal })),
    setPush: (taskId, config) => client.createPushNotificationConfig({ taskId, ...config }),
    getPush: async (taskId) => (await client.listPushNotificationConfigs({ taskId })).configs,
    list: async (params = {}) => {
      const raw = await client.listTasks({ historyLength: 0, ...params });
      return { raw, tasks: raw.tasks.map(taskFrom10) };
    },
    binding: async () => {
      const listed = ((await client.getCard()).supportedInterfaces ?? [])
        .filter((i) => /^1\.0(\.\d+)?$/.test(i.protocolVersion))
        .map((i) => i.protocolBinding.toUpperCase());
      return { binding: (await client.agentInterface()).protocolBinding.toUpperCase(), listed };
    },
    close: () => client.close(),
  };
}

// 1.0 answers in 0.1.0's terms, for the printers (`--json` prints them as they came).

function partTo10(part: Message['parts'][number]): v10.Part {
  if (part.type === 'text') return { text: part.text };
  if (part.type === 'data') return { data: part.data };
  const { file } = part;
  const content = file.uri != null ? { url: file.uri } : { raw: file.bytes ?? '' };
  return { ...content, ...(file.mimeType ? { mediaType: file.mimeType } : {}), ...(file.name ? { filename: file.name } : {}) };
}

function partFrom10(part: v10.Part): Message['parts'][number] {
  if ('text' in part) return { type: 'text', text: part.text };
  if ('data' in part) return { type: 'data', data: part.data as Record<string, unknown> };
  const file = {
    ...('url' in part ? { uri: part.url } : { bytes: (part as { raw: string }).raw }),
    ...(part.mediaType ? { mimeType: part.mediaType } : {}),
    ...(part.filename ? { name: part.filename } : {}),
  };
  return { type: 'file', file };
}

/** `TASK_STATE_INPUT_REQUIRED` as 0.1.0 names it: `input-required`. */
function stateFrom10(state: v10.TaskState): TaskStatus['state'] {
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replaceAll('_', '-')
    .replace('unspecified', 'unknown') as TaskStatus['state'];
}

function messageFrom10(message: v10.Message): Message {
  return { role: message.role === 'ROLE_AGENT' ? 'agent' : 'user', parts: message.parts.map(partFrom10) };
}

function statusFrom10(status: v10.TaskStatus): TaskStatus {
  return {
    state: stateFrom10(status.state),
    ...(status.message ? { message: messageFrom10(status.message) } : {}),
    ...(status.timestamp ? { timestamp: status.timestamp } : {}),
  };
}

/**
 * An artifact's index: the kit names artifacts `artifact-<index>`; others by their id, which is
 * kept beside the index (`artifactId`, not a 0.1.0 field) for readers that tell artifacts apart.
 */
function artifactFrom10(artifact: v10.Artifact): Artifact {
  const index = /^artifact-(\d+)$/.exec(artifact.artifactId)?.[1];
  const view: Artifact & { artifactId: string } = {
    artifactId: artifact.artifactId,
    ...(artifact.name ? { name: artifact.name } : {}),
    ...(artifact.description ? { description: artifact.description } : {}),
    parts: artifact.parts.map(partFrom10),
    index: index === undefined ? 0 : Number(index),
  };
  return view;
}

function taskFrom10(task: v10.Task): Task {
  return {
    id: task.id,
    sessionId: task.contextId,
    status: statusFrom10(task.status),
    ...(task.artifacts ? { artifacts: task.artifacts.map(artifactFrom10) } : {}),
    ...(task.history ? { history: task.history.map(messageFrom10) } : {}),
  };
}

function taskOfMessage10(message: v10.Message): Task {
  return { id: message.taskId ?? '', sessionId: message.contextId, status: { state: 'completed', message: messageFrom10(message) } };
}

function eventFrom10(event: v10.StreamResponse): TaskEvent {
  if ('task' in event) return { id: event.task.id, status: statusFrom10(event.task.status), final: false };
  if ('message' in event) return { id: event.message.taskId ?? '', status: taskOfMessage10(event.message).status, final: true };
  if ('statusUpdate' in event) {
    return { id: event.statusUpdate.taskId, status: statusFrom10(event.statusUpdate.status), final: endsStream10(event) };
  }
  const { artifactUpdate } = event;
  return {
    id: artifactUpdate.taskId,
    artifact: { ...artifactFrom10(artifactUpdate.artifact), append: artifactUpdate.append, lastChunk: artifactUpdate.lastChunk },
  };
}

/** The 1.0 card as the card printer reads it: the interface in use as its `url`, its security schemes as `authentication`. */
function cardFrom10(card: v10.AgentCard, url: string): AgentCard {
  const schemes = Object.keys(card.securitySchemes ?? {});
  return {
    ...card,
    url,
    capabilities: { streaming: card.capabilities.streaming === true, pushNotifications: card.capabilities.pushNotifications === true },
    ...(schemes.length ? { authentication: { schemes } } : {}),
  } as unknown as AgentCard;
}

// 0.3 answers in 0.1.0's terms, for the printers (`--json` prints them as they came).

function statusFrom03(status: TaskStatus03): TaskStatus {
  return { ...status, message: status.message && messageFrom03(status.message) } as TaskStatus;
}

function artifactFrom03(artifact: Artifact03): Artifact {
  return { ...artifact, parts: artifact.parts.map(partFrom03) };
}

function taskFrom03(task: Task03): Task {
  return {
    id: task.id,
    sessionId: task.contextId,
    status: statusFrom03(task.status),
    ...(task.artifacts ? { artifacts: task.artifacts.map(artifactFrom03) } : {}),
    ...(task.history ? { history: task.history.map(messageFrom03) } : {}),
  };
}

/**
 * The task as the printers show it: with the last `asked` messages of its history, none by default.
 * Over HTTP+JSON and gRPC a historyLength of 0 is proto3's "not set", which a 0.3 agent answers
 * with the whole history (`--json` prints it as it came).
 */
function lastMessages(task: Task, asked = 0): Task {
  const { history, ...rest } = task;
  return history && asked > 0 ? { ...rest, history: history.slice(-asked) } : rest;
}

/** An agent that answers with a Message (0.3 allows it) ends the exchange with it. */
function taskOfMessage(message: Message03): Task {
  return { id: message.taskId ?? '', sessionId: message.contextId, status: { state: 'completed', message: messageFrom03(message) } };
}

function eventFrom03(event: StreamResult): TaskEvent {
  switch (event.kind) {
    case 'task':
      return { id: event.id, status: statusFrom03(event.status), final: false };
    case 'message':
      return { id: event.taskId ?? '', status: taskOfMessage(event).status, final: true };
    case 'status-update':
      return { id: event.taskId, status: statusFrom03(event.status), final: event.final };
    case 'artifact-update':
      return { id: event.taskId, artifact: { ...artifactFrom03(event.artifact), append: event.append, lastChunk: event.lastChunk } };
  }
}

/** The 0.3 card as the card printer reads it: the interface in use as its `url`, its security schemes as 0.1.0's `authentication`. */
function cardFrom03(card: AgentCard03, url: string): AgentCard {
  const schemes = Object.keys(card.securitySchemes ?? {});
  return {
    ...card,
    url,
    ...(schemes.length ? { authentication: { schemes } } : {}),
    skills: card.skills,
  } as unknown as AgentCard;
}
