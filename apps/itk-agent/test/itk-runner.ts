// Our runner of the A2A integration test kit's traversal (github.com/a2aproject/a2a-itk), for
// agents already running on loopback. What the kit's runner does, written here in TypeScript
// (the kit's is Python, and needs packages this machine cannot get): it builds one nested
// instruction that walks an Euler circuit of the agents' complete digraph (every ordered pair
// of agents, each once) for each transport, sends it to the first agent over JSON-RPC as the
// kit does, and checks the trace in the answer: one token per hop and the end of each circuit's
// traversal. With push notifications it checks, as the kit does, that every agent on the way
// pushed its own part of the trace to a webhook of the runner's.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { create, toBinary } from '@bufbuild/protobuf';
import { readSse } from 'a2a-client';
import {
  type CallAgent,
  type Instruction,
  InstructionSchema,
  PushNotificationBehaviorSchema,
  ResubscribeBehaviorSchema,
  SendMessageBehaviorSchema,
  SeriesOfSteps_ResponseGenerator,
} from '../src/gen/instruction_pb.js';

export type Transport = 'jsonrpc' | 'http_json' | 'grpc';
export type Behaviour = 'send_message' | 'push_notification' | 'resubscribe';

export interface ItkNode {
  /** A name for the trace (`[a -> b (grpc)]`). */
  readonly name: string;
  /** Its base URL: card at `<url>/.well-known/agent-card.json`, the kit's JSON-RPC entry at `<url>/jsonrpc/`. */
  readonly url: string;
  /** The version the runner speaks to it when it is first (the kit: 0.3 to a `v03` agent, else 1.0). */
  readonly entry: '1.0' | '0.3';
}

export interface Scenario {
  readonly nodes: readonly ItkNode[];
  readonly transports: readonly Transport[];
  readonly behaviour: Behaviour;
  readonly streaming?: boolean;
}

export interface Outcome {
  /** Every token the trace must hold: each hop's, and each circuit's end. */
  readonly tokens: string[];
  /** The answer's text (send, stream, resubscribe), or the texts pushed, joined. */
  readonly text: string;
  /** With push: each agent's part of the trace (from it to the circuit's end) not pushed. */
  readonly statesNotPushed: string[];
}

const END_OF_TRAVERSAL = 'traversal-completed';

/** An Euler circuit of the complete digraph on `nodes` from the first (Hierholzer's algorithm). */
export function eulerCircuit(nodes: readonly string[]): string[] {
  const unused = new Map(nodes.map((u) => [u, nodes.filter((v) => v !== u)]));
  const stack = [nodes[0]!];
  const circuit: string[] = [];
  while (stack.length > 0) {
    const u = stack.at(-1)!;
    const next = unused.get(u)!.pop();
    if (next === undefined) circuit.push(stack.pop()!);
    else stack.push(next);
  }
  return circuit.reverse();
}

/**
 * The instruction for one circuit over one transport, and its trace tokens: each agent on the
 * way answers `[u -> v (transport)]`, then what the next one answers; the last answers that the
 * traversal is over. Tokens are listed from the last hop back, then the end, as the kit lists them.
 */
export function circuitInstruction(
  circuit: readonly ItkNode[],
  transport: Transport,
  { behaviour, streaming = false, webhookBase }: { behaviour: Behaviour; streaming?: boolean; webhookBase?: string },
): { instruction: Instruction; tokens: string[] } {
  const holdTask = behaviour === 'resubscribe';
  const end = `${END_OF_TRAVERSAL}:${transport}`;
  let instruction = create(InstructionSchema, { step: { case: 'returnResponse', value: { response: end, holdTask } } });
  const hopTokens: string[] = [];
  for (let i = circuit.length - 2; i >= 0; i--) {
    const [u, v] = [circuit[i]!, circuit[i + 1]!];
    const token = `[${u.name} -> ${v.name} (${transport})]`;
    hopTokens.push(token);
    const behaviourStep: CallAgent['behavior'] =
      behaviour === 'push_notification'
        ? { case: 'pushNotification', value: create(PushNotificationBehaviorSchema, { url: webhookBase ?? '' }) }
        : behaviour === 'resubscribe'
          ? { case: 'resubscribe', value: create(ResubscribeBehaviorSchema) }
          : { case: 'sendMessage', value: create(SendMessageBehaviorSchema) };
    instruction = create(InstructionSchema, {
      step: {
        case: 'steps',
        value: {
          responseGenerator: SeriesOfSteps_ResponseGenerator.CONCAT,
          instructions: [
            { step: { case: 'returnResponse', value: { response: token, holdTask } } },
            {
              step: {
                case: 'callAgent',
                value: { transport, agentCardUri: v.url, streaming, instruction, behavior: behaviourStep },
              },
            },
          ],
        },
      },
    });
  }
  return { instruction, tokens: [...hopTokens, end] };
}

/** A webhook for the push behaviour: keeps what each scenario's agents push, as the kit's notification server does. */
export interface NotificationReceiver {
  readonly url: string;
  /** A base URL of its own for one scenario: agents push to `<base>/notifications`. */
  scenario(): { base: string; texts(): string[] };
  close(): Promise<void>;
}

export async function startNotificationReceiver(): Promise<NotificationReceiver> {
  const received = new Map<string, unknown[]>();
  const server = createServer(async (req, res) => {
    const at = /^\/(s\d+)\/notifications$/.exec(req.url ?? '');
    const body = await jsonOf(req).catch(() => undefined);
    // The kit's server takes a notification only when it names its task, as 1.0's StreamResponse
    // (`task.id`, `statusUpdate.taskId`) or 0.3's Task (`kind: "task"`, `id`) do.
    if (req.method !== 'POST' || !at || !taskIdOfNotification(body)) {
      res.writeHead(400).end();
      return;
    }
    received.get(at[1]!)?.push(body);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"received"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let scenarios = 0;
  return {
    url,
    scenario() {
      const id = `s${++scenarios}`;
      received.set(id, []);
      return { base: `${url}/${id}`, texts: () => received.get(id)!.flatMap(notificationTexts) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function jsonOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

type Json = Record<string, unknown> | undefined;

function taskIdOfNotification(body: unknown): string | undefined {
  const b = body as Json;
  const v10 = ((b?.task as Json)?.id ?? (b?.statusUpdate as Json)?.taskId) as string | undefined;
  return v10 ?? (b?.kind === 'task' ? (b.id as string | undefined) : undefined);
}

/** The agent's texts in a notification, read as the kit reads them: 1.0's status update, else 0.3's task. */
function notificationTexts(body: unknown): string[] {
  const update = (body as Json)?.statusUpdate as Json;
  const v10 = agentTexts(((update?.status as Json)?.message as Json) ?? undefined);
  return v10.length > 0 ? v10 : agentTexts(((body as Json)?.status as Json)?.message as Json);
}

function agentTexts(message: Json): string[] {
  if (message?.role !== 'agent' && message?.role !== 'ROLE_AGENT') return [];
  return ((message.parts as Json[] | undefined) ?? []).flatMap((p) => (typeof p?.text === 'string' && p.text ? [p.text] : []));
}

/** The texts of an answer the kit reads: the message, the task's status message, the agent's messages in its history. */
function answerTexts(result: Json): string[] {
  const task = (result?.task as Json) ?? result;
  const message = (result?.message as Json) ?? (result?.parts ? result : ((task?.status as Json)?.message as Json));
  const history = ((task?.history as Json[] | undefined) ?? []).flatMap(agentTexts);
  return [...agentTexts(message), ...history];
}

/** What a stream's event says: the agent's texts (1.0: its status updates'; 0.3: as an answer), and the task's id. */
function streamEvent(result: Json, entry: '1.0' | '0.3'): { texts: string[]; taskId?: string } {
  if (entry === '0.3')
    return { texts: answerTexts(result), taskId: (result?.kind === 'task' ? result.id : result?.taskId) as string | undefined };
  const update = result?.statusUpdate as Json;
  return {
    texts: agentTexts((update?.status as Json)?.message as Json),
    taskId: ((result?.task as Json)?.id ?? update?.taskId) as string | undefined,
  };
}

/** The push behaviour's check: each agent's part of each circuit's trace, as it answers it. */
function pushedStates(tokens: readonly string[]): string[] {
  const states: string[] = [];
  let chain: string[] = [];
  for (const token of tokens) {
    chain.push(token);
    if (!token.startsWith(`${END_OF_TRAVERSAL}:`)) continue;
    let state = token;
    states.push(state);
    for (const hop of chain.slice(0, -1)) states.push((state = `${hop}\n${state}`));
    chain = [];
  }
  return states;
}

/**
 * Runs one traversal: sends the instruction to the first agent over JSON-RPC (streamed for the
 * streaming and resubscribe behaviours), reads the answer until every token is in it, and with
 * push waits (bounded) for every agent's part of the trace to be pushed.
 */
export async function runTraversal(scenario: Scenario, receiver?: NotificationReceiver, waitMs = 15_000): Promise<Outcome> {
  const { nodes, transports, behaviour } = scenario;
  const streaming = scenario.streaming ?? behaviour === 'resubscribe';
  const pushes = behaviour === 'push_notification' ? receiver?.scenario() : undefined;
  if (behaviour === 'push_notification' && !pushes) throw new Error('the push behaviour needs a notification receiver');
  const circuit = eulerCircuit(nodes.map((n) => n.name)).map((name) => nodes.find((n) => n.name === name)!);
  const tokens: string[] = [];
  const top = create(InstructionSchema, {
    step: { case: 'steps', value: { responseGenerator: SeriesOfSteps_ResponseGenerator.CONCAT, instructions: [] } },
  });
  for (const transport of transports) {
    const built = circuitInstruction(circuit, transport, { behaviour, streaming, webhookBase: pushes?.base });
    tokens.push(...built.tokens);
    if (top.step.case === 'steps') top.step.value.instructions.push(built.instruction);
  }
  const first = nodes[0]!;
  const raw = Buffer.from(toBinary(InstructionSchema, top)).toString('base64');
  const webhook = pushes && { url: `${pushes.base}/notifications`, token: randomUUID() };
  const params =
    first.entry === '1.0'
      ? {
          message: {
            role: 'ROLE_USER',
            messageId: randomUUID(),
            parts: [{ raw, mediaType: 'application/x-protobuf', filename: 'instruction.bin' }],
          },
          ...(webhook && { configuration: { taskPushNotificationConfig: webhook } }),
        }
      : {
          message: {
            role: 'user',
            messageId: randomUUID(),
            parts: [{ kind: 'file', file: { bytes: raw, mimeType: 'application/x-protobuf', name: 'instruction.bin' } }],
            metadata: { 'a2a/protocol_version': '0.3' },
          },
          ...(webhook && { configuration: { pushNotificationConfig: webhook } }),
        };
  const method =
    first.entry === '1.0' ? (streaming ? 'SendStreamingMessage' : 'SendMessage') : streaming ? 'message/stream' : 'message/send';
  const call = (method: string, params: unknown, signal?: AbortSignal) =>
    fetch(`${first.url}/jsonrpc/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': first.entry },
      body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(waitMs)]) : AbortSignal.timeout(waitMs),
    });

  let text: string;
  if (!streaming) {
    const answer = (await (await call(method, params)).json()) as { result?: Json; error?: unknown };
    if (answer.error) throw new Error(`${first.name} answered with an error: ${JSON.stringify(answer.error)}`);
    text = answerTexts(answer.result).join('');
  } else {
    const texts: string[] = [];
    let taskId: string | undefined;
    const reading = new AbortController();
    const response = await call(method, params, reading.signal);
    try {
      for await (const event of readSse(response.body!)) {
        const data = JSON.parse(event.data) as { result?: Json; error?: unknown };
        if (data.error) throw new Error(`${first.name} streamed an error: ${JSON.stringify(data.error)}`);
        const heard = streamEvent(data.result, first.entry);
        taskId ??= heard.taskId;
        texts.push(...heard.texts);
        if (tokens.every((t) => texts.join('\n').includes(t))) break;
      }
    } finally {
      reading.abort();
    }
    text = texts.join('\n');
    // A held task would wait out its hold: the runner lets it go, as a resubscribing agent does.
    if (behaviour === 'resubscribe' && taskId) await call(first.entry === '1.0' ? 'CancelTask' : 'tasks/cancel', { id: taskId });
  }
  if (!pushes) return { tokens, text, statesNotPushed: [] };
  const states = pushedStates(tokens);
  const notPushed = () => states.filter((state) => !pushes.texts().some((pushed) => pushed.includes(state)));
  for (const deadline = Date.now() + waitMs; notPushed().length > 0 && Date.now() < deadline; ) await sleep(25);
  return { tokens, text: pushes.texts().join(''), statesNotPushed: notPushed() };
}
