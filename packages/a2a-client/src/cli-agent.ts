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
import { A2AClient } from './client.js';
import { A2AClient03 } from './client-03.js';
import type { A2AClientOptions } from './transport.js';

export type Protocol = '0.1.0' | '0.3';

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
  resubscribe(taskId: string, lastEventId?: string): AsyncIterable<Event>;
  setPush(taskId: string, config: { url: string; token?: string }): Promise<unknown>;
  getPush(taskId: string): Promise<unknown>;
}

/**
 * The protocol an agent speaks, from its cards: 0.1.0 when it serves `/.well-known/agent.json`
 * (a kit agent serves both, and 0.1.0 is the kit's own), else 0.3 when it serves
 * `/.well-known/agent-card.json`, else 0.1.0 (whose errors then say what answered).
 */
export async function detectProtocol(baseUrl: string, headers: Record<string, string>): Promise<Protocol> {
  const base = baseUrl.replace(/\/+$/, '');
  const answers = async (path: string) => {
    try {
      const response = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  };
  if (await answers('/.well-known/agent.json')) return '0.1.0';
  return (await answers('/.well-known/agent-card.json')) ? '0.3' : '0.1.0';
}

export function agentApi(protocol: Protocol, baseUrl: string, options: A2AClientOptions): AgentApi {
  return protocol === '0.3' ? api03(new A2AClient03(baseUrl, options)) : api01(new A2AClient(baseUrl, options));
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
    resubscribe: (id, lastEventId) => events(client.resubscribe({ id }, lastEventId ? { lastEventId } : {})),
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
      return { raw: card, view: cardFrom03(card) };
    },
    send: async (message, to, signal) => {
      const result = await client.sendMessage(sendParams(message, to), { signal });
      return { raw: result, task: result.kind === 'message' ? taskOfMessage(result) : taskFrom03(result) };
    },
    stream: (message, to, signal) => events(client.streamMessage(sendParams(message, to), { signal })),
    get: async (id, historyLength) => {
      const task = await client.getTask({ id, historyLength: historyLength ?? 0 });
      return { raw: task, task: taskFrom03(task) };
    },
    cancel: async (id) => {
      const task = await client.cancelTask({ id });
      return { raw: task, task: taskFrom03(task) };
    },
    resubscribe: (id, lastEventId) => events(client.resubscribe({ id }, lastEventId ? { lastEventId } : {})),
    setPush: (taskId, config) => client.setPushNotificationConfig({ taskId, pushNotificationConfig: config }),
    getPush: (id) => client.getPushNotificationConfig({ id }),
  };
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

/** The 0.3 card as the card printer reads it: its security schemes stand for 0.1.0's `authentication`. */
function cardFrom03(card: AgentCard03): AgentCard {
  const schemes = Object.keys(card.securitySchemes ?? {});
  return {
    ...card,
    ...(schemes.length ? { authentication: { schemes } } : {}),
    skills: card.skills,
  } as unknown as AgentCard;
}
