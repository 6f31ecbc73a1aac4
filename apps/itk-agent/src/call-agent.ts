// Calling the next agent of an ITK chain with a2a-client: A2A 1.0 when its card lists a 1.0
// interface, else A2A 0.3, each over the binding the instruction names. The four behaviours are
// written once, over what both versions do.
import { randomUUID } from 'node:crypto';
import { toBinary } from '@bufbuild/protobuf';
import { A2AClient03, A2AClient10, type Binding10, type GrpcTransport } from 'a2a-client';
import type { Message as Message03, StreamResult as StreamResult03, Task as Task03 } from 'a2a-types/v0.3';
import type { Message as Message10, StreamResponse, Task as Task10 } from 'a2a-types/v1.0';
import { type CallAgent, InstructionSchema } from './gen/instruction_pb.js';

/** The media type and file name the kit gives the part that carries an instruction. */
export const INSTRUCTION_MEDIA_TYPE = 'application/x-protobuf';
export const INSTRUCTION_FILE_NAME = 'instruction.bin';
/** What a held task's answer ends with: the caller that resubscribed stops reading there. */
export const TASK_FINISHED = 'task-finished';
/** The token the webhooks this agent sets are given (the kit's notification server reads none). */
const PUSH_TOKEN = 'itk';

/** What a call's events say: the texts of the agent's messages in them, and the task's id. */
interface Heard {
  texts: string[];
  taskId?: string;
}

/** One agent, reached over one version and binding. */
interface Peer {
  send(): Promise<string[]>;
  stream(signal?: AbortSignal): AsyncIterable<Heard>;
  subscribe(taskId: string): AsyncIterable<Heard>;
  cancel(taskId: string): Promise<void>;
  close(): void;
}

/** The kit's transport names, and 1.0's. */
const BINDINGS: Record<string, Binding10> = {
  JSONRPC: 'JSONRPC',
  'JSON-RPC': 'JSONRPC',
  GRPC: 'GRPC',
  HTTP_JSON: 'HTTP+JSON',
  'HTTP+JSON': 'HTTP+JSON',
  REST: 'HTTP+JSON',
};

/** Calls the agent `call` names, as its behaviour says, and returns the texts it answered with. */
export async function callAgent(call: CallAgent, how: { grpc?: GrpcTransport; signal: AbortSignal }): Promise<string[]> {
  const binding = BINDINGS[call.transport.toUpperCase()];
  if (!binding) throw new Error(`unknown transport ${JSON.stringify(call.transport)} (jsonrpc, http_json or grpc)`);
  if (!call.instruction) throw new Error(`the call of ${call.agentCardUri} has no instruction to send`);
  const base = call.agentCardUri.replace(/\/+$/, '');
  let webhook: string | undefined;
  if (call.behavior.case === 'pushNotification') {
    const url = call.behavior.value.url;
    if (!url) throw new Error('the push_notification behaviour has no url');
    webhook = `${/^https?:\/\//i.test(url) ? url : `http://${url}`}/notifications`;
  }
  const instruction = Buffer.from(toBinary(InstructionSchema, call.instruction)).toString('base64');
  let peer: Peer | undefined;
  try {
    peer = (await speaks10(base, how.signal))
      ? peer10(base, binding, instruction, webhook, how.grpc)
      : peer03(base, binding, instruction, webhook, how.grpc);
    if (call.behavior.case === 'resubscribe') return await resubscribe(peer);
    if (!call.streaming) return await peer.send();
    const texts: string[] = [];
    for await (const heard of peer.stream()) texts.push(...heard.texts);
    return texts;
  } catch (error) {
    throw new Error(`the call of ${base} over ${binding} failed: ${(error as Error).message}`, { cause: error });
  } finally {
    peer?.close();
  }
}

/**
 * The kit's resubscribe: stream the send until the task's id is known, drop that stream,
 * subscribe to the task again and read until its answer says it is finished, then cancel the
 * task the agent holds for this. The texts are the answer's, without the marker.
 */
async function resubscribe(peer: Peer): Promise<string[]> {
  const first = new AbortController();
  let taskId: string | undefined;
  try {
    for await (const heard of peer.stream(first.signal)) {
      taskId = heard.taskId;
      if (taskId) break;
    }
  } finally {
    first.abort();
  }
  if (!taskId) throw new Error('the stream ended before it named its task');
  const texts: string[] = [];
  let finished = false;
  for await (const heard of peer.subscribe(taskId)) {
    for (const text of heard.texts) {
      const answer = text.replaceAll(TASK_FINISHED, '').trim();
      if (answer) texts.push(answer);
      if (text.includes(TASK_FINISHED)) finished = true;
    }
    if (finished) break;
  }
  if (!finished) throw new Error(`task ${taskId} ended without saying ${TASK_FINISHED}`);
  await peer.cancel(taskId);
  return texts;
}

/** Whether the agent's card (asked for as 1.0) lists a 1.0 interface. */
async function speaks10(base: string, signal: AbortSignal): Promise<boolean> {
  const response = await fetch(`${base}/.well-known/agent-card.json`, {
    headers: { 'A2A-Version': '1.0', accept: 'application/json' },
    signal: AbortSignal.any([signal, AbortSignal.timeout(15_000)]),
  });
  if (!response.ok) throw new Error(`${base}/.well-known/agent-card.json answered HTTP ${response.status}`);
  const card = (await response.json()) as { supportedInterfaces?: { protocolVersion?: unknown }[] };
  return (
    Array.isArray(card.supportedInterfaces) &&
    card.supportedInterfaces.some((i) => typeof i?.protocolVersion === 'string' && /^1\./.test(i.protocolVersion))
  );
}

function peer10(base: string, binding: Binding10, instruction: string, webhook: string | undefined, grpc: GrpcTransport | undefined): Peer {
  const client = new A2AClient10(base, { preferredBinding: binding, ...(grpc && { grpc }) });
  const request = {
    message: {
      messageId: randomUUID(),
      role: 'ROLE_USER' as const,
      parts: [{ raw: instruction, mediaType: INSTRUCTION_MEDIA_TYPE, filename: INSTRUCTION_FILE_NAME }],
    },
    ...(webhook && { configuration: { taskPushNotificationConfig: { url: webhook, token: PUSH_TOKEN } } }),
  };
  const heard = ({ event }: { event: StreamResponse }): Heard => {
    if ('task' in event) return { texts: texts10(event.task.status.message), taskId: event.task.id };
    if ('statusUpdate' in event) return { texts: texts10(event.statusUpdate.status.message), taskId: event.statusUpdate.taskId };
    if ('artifactUpdate' in event) return { texts: [], taskId: event.artifactUpdate.taskId };
    return { texts: texts10(event.message) };
  };
  return {
    async send() {
      const answer = await client.sendMessage(request);
      return 'task' in answer ? texts10((answer.task as Task10).status.message) : texts10(answer.message);
    },
    async *stream(signal) {
      for await (const event of client.streamMessage(request, { signal })) yield heard(event);
    },
    async *subscribe(taskId) {
      for await (const event of client.subscribe({ id: taskId })) yield heard(event);
    },
    async cancel(taskId) {
      await client.cancelTask({ id: taskId });
    },
    close: () => client.close(),
  };
}

function peer03(base: string, binding: Binding10, instruction: string, webhook: string | undefined, grpc: GrpcTransport | undefined): Peer {
  const client = new A2AClient03(base, { preferredBinding: binding, ...(grpc && { grpc }) });
  const message: Message03 = {
    kind: 'message',
    messageId: randomUUID(),
    role: 'user',
    parts: [{ kind: 'file', file: { bytes: instruction, mimeType: INSTRUCTION_MEDIA_TYPE, name: INSTRUCTION_FILE_NAME } }],
  };
  const params = {
    message,
    configuration: { blocking: true, ...(webhook && { pushNotificationConfig: { url: webhook, token: PUSH_TOKEN } }) },
  };
  const heard = ({ event }: { event: StreamResult03 }): Heard => {
    if (event.kind === 'task') return { texts: texts03(event.status.message), taskId: event.id };
    if (event.kind === 'status-update') return { texts: texts03(event.status.message), taskId: event.taskId };
    if (event.kind === 'artifact-update') return { texts: [], taskId: event.taskId };
    return { texts: texts03(event) };
  };
  return {
    async send() {
      const answer = await client.sendMessage(params);
      return answer.kind === 'task' ? texts03((answer as Task03).status.message) : texts03(answer);
    },
    async *stream(signal) {
      for await (const event of client.streamMessage(params, { signal })) yield heard(event);
    },
    async *subscribe(taskId) {
      for await (const event of client.resubscribe({ id: taskId })) yield heard(event);
    },
    async cancel(taskId) {
      await client.cancelTask({ id: taskId });
    },
    close: () => client.close(),
  };
}

function texts10(message: Message10 | undefined): string[] {
  if (message?.role !== 'ROLE_AGENT') return [];
  return message.parts.flatMap((p) => ('text' in p && p.text ? [p.text] : []));
}

function texts03(message: Message03 | undefined): string[] {
  if (message?.role !== 'agent') return [];
  return message.parts.flatMap((p) => (p.kind === 'text' && p.text ? [p.text] : []));
}
