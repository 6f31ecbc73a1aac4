// Another A2A agent as something a model calls: its card read once (the version and binding
// chosen by a2a-client), each call a streamed message continuing the same conversation, and the
// answer reduced to what a model reads (its text, its data, or the question it asks). No AI
// library here: the tools of `a2a-ai/ai-sdk` and `a2a-ai/langchain` wrap it.
import { A2AClient, A2AClient03, A2AClient10, type A2AClient10Options, HttpError, InvalidResponseError, NotAnAgentError } from 'a2a-client';
import type { AgentCard as AgentCard01, Message as Message01, Part as Part01, TaskEvent } from 'a2a-types';
import type { AgentCard as AgentCard03, Message as Message03, Part as Part03, StreamResult } from 'a2a-types/v0.3';
import type { AgentCard as AgentCard10, Message as Message10, Part as Part10, StreamResponse } from 'a2a-types/v1.0';

/** The A2A versions a remote agent is called in. */
export type RemoteProtocol = '1.0' | '0.3' | '0.1.0';

/** A card of any version, as fetched or shipped with the caller. */
export type AnyAgentCard = AgentCard10 | AgentCard03 | AgentCard01;

export interface RemoteAgentOptions extends A2AClient10Options {
  /**
   * The version to speak. Default: the newest the agent's card offers (1.0 when the card, asked
   * for in 1.0, lists a 1.0 interface; else 0.3 when it serves a 0.3 card; else 0.1.0).
   */
  protocolVersion?: RemoteProtocol;
  /** The tool's name. Default: the card's name in snake case (`Echo Agent` → `echo_agent`). */
  name?: string;
  /** What the model is told the tool does. Default: from the card, its description and skills. */
  description?: string;
  /**
   * Time allowed for a whole call of the tool, streamed answer included, ms. Default 120,000.
   * (`timeoutMs` is the client's: how long each request waits for its first byte.)
   */
  callTimeoutMs?: number;
  /** Aborts every call of the tool (say, when the conversation it serves ends). */
  signal?: AbortSignal;
}

/** The state of the remote task, in the words of A2A 0.3 (`input-required`, `completed`, ...). */
export type RemoteState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'auth-required'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'rejected'
  | 'unknown';

/** What a call of the remote agent answered, as the model is given it. */
export interface RemoteAnswer {
  /** The agent's name (its card's). */
  agent: string;
  state: RemoteState;
  /** The text of its answer: its artifacts' text, then its final status message's. */
  text: string;
  /** The data parts of its answer (artifacts and final status message), as they came. */
  data: unknown[];
  /** With `input-required` (or `auth-required`): what the agent asks. */
  question?: string;
  /** What the model should make of a state other than `completed`. */
  note?: string;
}

/** Where one conversation with a remote agent stands: kept between calls of a tool. */
export class RemoteConversation {
  /** The remote conversation (`contextId`; 0.1.0's `sessionId`), once the agent has named it. */
  contextId: string | undefined;
  /** The remote task waiting for more (`input-required`), which the next message continues. */
  pendingTaskId: string | undefined;
  private last: Promise<unknown> = Promise.resolve();

  /**
   * Runs `call` after the calls before it: a model may call one tool twice in a step, and the
   * second message belongs in the context (and the task) the first one's answer names.
   */
  inTurn<T>(call: () => Promise<T>): Promise<T> {
    const result = this.last.then(call, call);
    this.last = result.catch(() => undefined);
    return result;
  }
}

/** A remote A2A agent, its card read: make a tool of it with `a2a-ai/ai-sdk` or `a2a-ai/langchain`. */
export class RemoteAgent {
  private constructor(
    readonly card: AnyAgentCard,
    readonly protocol: RemoteProtocol,
    private readonly client: A2AClient10 | A2AClient03 | A2AClient,
    private readonly options: RemoteAgentOptions,
  ) {}

  /**
   * Reads the agent's card, from its URL (the agent's base URL, or its card's URL under
   * `/.well-known/`) or as given, and chooses the version to speak; a2a-client chooses the
   * binding (1.0: JSON-RPC, HTTP+JSON, or gRPC with `grpc: grpcTransport()` from `a2a-client/grpc`).
   */
  static async connect(agent: string | URL | AnyAgentCard, options: RemoteAgentOptions = {}): Promise<RemoteAgent> {
    if (typeof agent === 'object' && !(agent instanceof URL)) return RemoteAgent.fromCard(agent, options);
    const base = String(agent)
      .replace(/\/\.well-known\/(agent-card|agent)\.json$/, '')
      .replace(/\/+$/, '');
    const call = options.signal ? { signal: options.signal } : {};
    const wanted = options.protocolVersion;
    const { protocolVersion: _, name: __, description: ___, callTimeoutMs: ____, signal: _____, ...clientOptions } = options;
    if (wanted === undefined || wanted === '1.0') {
      const client = new A2AClient10(base, clientOptions);
      try {
        await client.agentInterface(call);
        return new RemoteAgent(await client.getCard(call), '1.0', client, options);
      } catch (error) {
        client.close();
        if (wanted === '1.0' || !isNotThisVersion(error)) throw error;
      }
    }
    if (wanted === undefined || wanted === '0.3') {
      const client = new A2AClient03(base, clientOptions);
      try {
        return new RemoteAgent(await client.getCard(call), '0.3', client, options);
      } catch (error) {
        if (wanted === '0.3' || !isNotThisVersion(error)) throw error;
      }
    }
    const client = new A2AClient(base, clientOptions);
    return new RemoteAgent(await client.getCard(call), '0.1.0', client, options);
  }

  private static fromCard(card: AnyAgentCard, options: RemoteAgentOptions): RemoteAgent {
    const { protocolVersion: wanted, name: _, description: __, callTimeoutMs: ___, signal: ____, ...clientOptions } = options;
    const interfaces = (card as AgentCard10).supportedInterfaces;
    const offers10 = interfaces?.some((i) => /^1\.0(\.\d+)?$/.test(i.protocolVersion)) === true;
    const version: RemoteProtocol =
      wanted ?? (offers10 ? '1.0' : /^0\.3(\.\d+)?$/.test(String((card as AgentCard03).protocolVersion)) ? '0.3' : '0.1.0');
    if (version === '1.0') return new RemoteAgent(card, version, A2AClient10.fromCard(card as AgentCard10, clientOptions), options);
    if (version === '0.3') return new RemoteAgent(card, version, A2AClient03.fromCard(card as AgentCard03, clientOptions), options);
    return new RemoteAgent(card, version, A2AClient.fromCard(card as AgentCard01, clientOptions), options);
  }

  /** The tool's name: the option, or the card's name in snake case. */
  get name(): string {
    return this.options.name ?? toolNameOf(this.card.name);
  }

  /** What the model is told: the option, or the card's description, its skills and their examples. */
  get description(): string {
    if (this.options.description) return this.options.description;
    const skills = (this.card.skills ?? []).map((skill) => {
      const examples = skill.examples?.length ? ` (e.g. ${skill.examples.map((e) => JSON.stringify(e)).join(', ')})` : '';
      return `- ${skill.name}: ${skill.description ?? ''}${examples}`;
    });
    return [
      `Sends a message to the A2A agent "${this.card.name}" and returns its answer.`,
      this.card.description ?? '',
      skills.length ? `Its skills:\n${skills.join('\n')}` : '',
      'It remembers the conversation between calls. When it asks for more (state input-required), call it again with the answer.',
    ]
      .filter((line) => line !== '')
      .join('\n');
  }

  /** A conversation of its own: each tool made without one gets a new one. */
  conversation(): RemoteConversation {
    return new RemoteConversation();
  }

  /**
   * Sends `text` in `conversation` (its context, and its task when that waits for input) and
   * gathers the streamed answer until the task ends or waits again.
   */
  send(text: string, conversation: RemoteConversation, signal?: AbortSignal): Promise<RemoteAnswer> {
    return conversation.inTurn(() => this.sendNow(text, conversation, signal));
  }

  private async sendNow(text: string, conversation: RemoteConversation, signal?: AbortSignal): Promise<RemoteAnswer> {
    const signals = [AbortSignal.timeout(this.options.callTimeoutMs ?? 120_000)];
    if (this.options.signal) signals.push(this.options.signal);
    if (signal) signals.push(signal);
    const call = { signal: AbortSignal.any(signals) };
    const streaming = (this.card.capabilities as { streaming?: boolean } | undefined)?.streaming === true;
    const gathered = new Gathered();
    if (this.client instanceof A2AClient10) {
      const message: Message10 = {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ text }],
        ...(conversation.contextId ? { contextId: conversation.contextId } : {}),
        ...(conversation.pendingTaskId ? { taskId: conversation.pendingTaskId } : {}),
      };
      const request = { message, configuration: { historyLength: 0 } };
      if (streaming) for await (const { event } of this.client.streamMessage(request, call)) gathered.add10(event);
      else gathered.add10(await this.client.sendMessage(request, call));
    } else if (this.client instanceof A2AClient03) {
      const message: Message03 = {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'text', text }],
        ...(conversation.contextId ? { contextId: conversation.contextId } : {}),
        ...(conversation.pendingTaskId ? { taskId: conversation.pendingTaskId } : {}),
      };
      const request = { message, configuration: { historyLength: 0 } };
      if (streaming) for await (const { event } of this.client.streamMessage(request, call)) gathered.add03(event);
      else gathered.add03(await this.client.sendMessage(request, call));
    } else {
      // A 0.1.0 agent's events do not name the session: the caller names it, from the first message on.
      conversation.contextId ??= crypto.randomUUID();
      const message: Message01 = { role: 'user', parts: [{ type: 'text', text }] };
      const request = {
        id: conversation.pendingTaskId ?? crypto.randomUUID(),
        message,
        sessionId: conversation.contextId,
        historyLength: 0,
      };
      if (streaming) for await (const { event } of this.client.sendSubscribe(request, call)) gathered.add01(event);
      else {
        const task = await this.client.send(request, call);
        gathered.task(task.id, task.sessionId ?? undefined);
        for (const artifact of task.artifacts ?? []) gathered.artifact(String(artifact.index ?? 0), artifact.parts.map(from01), false);
        gathered.status(task.status.state, task.status.message?.parts.map(from01));
      }
    }
    conversation.contextId = gathered.contextId ?? conversation.contextId;
    conversation.pendingTaskId = gathered.state === 'input-required' ? gathered.taskId : undefined;
    return gathered.answer(this.card.name);
  }

  /** Lets go of what the client holds open (a gRPC channel). */
  close(): void {
    if (this.client instanceof A2AClient10) this.client.close();
  }
}

/** A card's name as a tool name: lowercase letters, digits and underscores. */
function toolNameOf(name: string): string {
  const snake = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (snake || 'a2a_agent').slice(0, 64);
}

/** An answer that says the agent does not speak the version asked (not that it cannot be reached). */
function isNotThisVersion(error: unknown): boolean {
  return (
    error instanceof InvalidResponseError ||
    error instanceof NotAnAgentError ||
    (error instanceof HttpError && (error.status === 404 || error.status === 406 || error.status === 400))
  );
}

/** A part in the shape every version shares here: text, data, or neither (a file, which the model is not given). */
interface PlainPart {
  text?: string;
  data?: unknown;
}

const from10 = (part: Part10): PlainPart => ('text' in part ? { text: part.text } : 'data' in part ? { data: part.data } : {});
const from03 = (part: Part03): PlainPart => (part.kind === 'text' ? { text: part.text } : part.kind === 'data' ? { data: part.data } : {});
const from01 = (part: Part01): PlainPart => (part.type === 'text' ? { text: part.text } : part.type === 'data' ? { data: part.data } : {});

/** The answer as its events arrive: the task's ids, each artifact's parts (appended as streamed), the last status. */
class Gathered {
  taskId: string | undefined;
  contextId: string | undefined;
  state: RemoteState = 'unknown';
  private readonly artifacts = new Map<string, PlainPart[]>();
  private statusParts: PlainPart[] = [];

  task(taskId: string | undefined, contextId: string | undefined): void {
    this.taskId = taskId ?? this.taskId;
    this.contextId = contextId ?? this.contextId;
  }

  artifact(id: string, parts: PlainPart[], append: boolean): void {
    const earlier = append ? (this.artifacts.get(id) ?? []) : [];
    this.artifacts.set(id, [...earlier, ...parts]);
  }

  status(state: string, parts: PlainPart[] | undefined): void {
    this.state = stateOf(state);
    this.statusParts = parts ?? [];
  }

  add10(event: StreamResponse): void {
    if ('task' in event) {
      this.task(event.task.id, event.task.contextId);
      for (const artifact of event.task.artifacts ?? []) this.artifact(artifact.artifactId, artifact.parts.map(from10), false);
      this.status(event.task.status.state, event.task.status.message?.parts.map(from10));
    } else if ('message' in event) {
      this.task(event.message.taskId, event.message.contextId);
      this.status('completed', event.message.parts.map(from10));
    } else if ('statusUpdate' in event) {
      this.task(event.statusUpdate.taskId, event.statusUpdate.contextId);
      this.status(event.statusUpdate.status.state, event.statusUpdate.status.message?.parts.map(from10));
    } else {
      const { artifactUpdate } = event;
      this.task(artifactUpdate.taskId, artifactUpdate.contextId);
      this.artifact(artifactUpdate.artifact.artifactId, artifactUpdate.artifact.parts.map(from10), artifactUpdate.append === true);
    }
  }

  add03(event: StreamResult): void {
    switch (event.kind) {
      case 'task':
        this.task(event.id, event.contextId);
        for (const artifact of event.artifacts ?? []) this.artifact(artifact.artifactId, artifact.parts.map(from03), false);
        this.status(event.status.state, event.status.message?.parts.map(from03));
        return;
      case 'message':
        this.task(event.taskId, event.contextId);
        this.status('completed', event.parts.map(from03));
        return;
      case 'status-update':
        this.task(event.taskId, event.contextId);
        this.status(event.status.state, event.status.message?.parts.map(from03));
        return;
      case 'artifact-update':
        this.task(event.taskId, event.contextId);
        this.artifact(event.artifact.artifactId, event.artifact.parts.map(from03), event.append === true);
    }
  }

  add01(event: TaskEvent): void {
    this.task(event.id, undefined);
    if ('status' in event) this.status(event.status.state, event.status.message?.parts.map(from01));
    else this.artifact(String(event.artifact.index ?? 0), event.artifact.parts.map(from01), event.artifact.append === true);
  }

  answer(agent: string): RemoteAnswer {
    const artifactParts = [...this.artifacts.values()].flat();
    const textOf = (parts: PlainPart[]) => parts.map((p) => p.text ?? '').join('');
    const artifactText = [...this.artifacts.values()].map(textOf).filter((t) => t !== '');
    const statusText = textOf(this.statusParts);
    const asking = this.state === 'input-required' || this.state === 'auth-required';
    const answer: RemoteAnswer = {
      agent,
      state: this.state,
      text: [...artifactText, ...(asking ? [] : [statusText])].filter((t) => t !== '').join('\n'),
      data: [...artifactParts, ...this.statusParts].filter((p) => 'data' in p).map((p) => p.data),
    };
    if (asking) {
      answer.question = statusText;
      answer.note =
        this.state === 'input-required'
          ? `${agent} asks for more before it can answer: ${JSON.stringify(statusText)}. Call this tool again with the answer (ask the user if you do not know it).`
          : `${agent} asks to be authenticated: ${JSON.stringify(statusText)}.`;
    } else if (this.state !== 'completed') {
      answer.note = `${agent} did not complete the request (${this.state}).`;
    }
    return answer;
  }
}

/** `TASK_STATE_INPUT_REQUIRED` (1.0) and `input-required` (0.3, 0.1.0) alike as `input-required`. */
function stateOf(state: string): RemoteState {
  const plain = state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replaceAll('_', '-');
  const known: readonly string[] = [
    'submitted',
    'working',
    'input-required',
    'auth-required',
    'completed',
    'failed',
    'canceled',
    'rejected',
  ];
  return (known.includes(plain) ? plain : 'unknown') as RemoteState;
}

/** Reads the agent's card and chooses the version (see {@link RemoteAgent.connect}). */
export function connectAgent(agent: string | URL | AnyAgentCard, options?: RemoteAgentOptions): Promise<RemoteAgent> {
  return RemoteAgent.connect(agent, options);
}
