// The official JS SDK's ITK agents, as the runner starts them: built with the SDK's own server and
// client from npm, @a2a-js/sdk 0.3.14 (`@a2a-js/sdk`) and 1.x (`a2a-sdk-1`), and behaving as the
// SDK's ITK agents do (a2a-js's itk/itk_agent.ts for 1.x, a2a-itk's agents/ts/v03 for 0.3.14):
// the 1.x agent serves 1.0 and, with the SDK's 0.3 compatibility, 0.3 on JSON-RPC (/jsonrpc),
// HTTP+JSON (/rest) and gRPC; the 0.3.14 agent serves 0.3 on the same three. Both answer an
// instruction the same way: a submitted task, working, then the answers one a line, completed;
// or, when a response says hold_task, the answers and `task-finished` while still working, the
// task then held (heartbeats every 2 s, for 10 s) until it is canceled. Written here, not taken
// from those repositories: they build their agents against the SDK's sources or with tsx and
// npm install at run time, which a test run has no business doing (docs/itk.md).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import express from 'express';
import * as sdk03 from '@a2a-js/sdk/server';
import * as sdk03express from '@a2a-js/sdk/server/express';
import * as sdk03grpc from '@a2a-js/sdk/server/grpc';
import * as sdk03client from '@a2a-js/sdk/client';
import { GrpcTransportFactory as GrpcTransportFactory03 } from '@a2a-js/sdk/client/grpc';
import { Role, TaskState } from 'a2a-sdk-1';
import * as sdk1 from 'a2a-sdk-1/server';
import * as sdk1express from 'a2a-sdk-1/server/express';
import * as sdk1grpc from 'a2a-sdk-1/server/grpc';
import * as sdk1legacyGrpc from 'a2a-sdk-1/compat/v0_3/server/grpc';
import * as sdk1client from 'a2a-sdk-1/client';
import { GrpcTransportFactory as GrpcTransportFactory1 } from 'a2a-sdk-1/client/grpc';
import { listen } from 'a2a-testing';
import { type CallAgent, type Instruction, InstructionSchema } from '../src/gen/instruction_pb.js';

const HOLD_TICK_MS = 2_000;
const HOLD_TICKS = 5;
const TASK_FINISHED = 'task-finished';

export interface SdkItkAgent {
  /** The agent's base URL: its card at `<url>/.well-known/agent-card.json`, JSON-RPC at `<url>/jsonrpc`. */
  readonly url: string;
  /** The calls it has been sent so far over each binding (by the kit's names): who reached it over what. */
  readonly calls: Record<'jsonrpc' | 'http_json' | 'grpc', number>;
  close(): Promise<void>;
}

/** The kit's transport names, as the SDK's clients name the bindings. */
function bindingOf(transport: string): 'JSONRPC' | 'HTTP+JSON' | 'GRPC' {
  const binding = ({ JSONRPC: 'JSONRPC', GRPC: 'GRPC', HTTP_JSON: 'HTTP+JSON', 'HTTP+JSON': 'HTTP+JSON', REST: 'HTTP+JSON' } as const)[
    transport.toUpperCase() as 'JSONRPC'
  ];
  if (!binding) throw new Error(`Unsupported transport: ${transport}`);
  return binding;
}

function holds(instruction: Instruction): boolean {
  const { step } = instruction;
  if (step.case === 'returnResponse') return step.value.holdTask;
  if (step.case === 'steps') return step.value.instructions.some(holds);
  return false;
}

async function follow(instruction: Instruction, call: (c: CallAgent) => Promise<string[]>): Promise<string[]> {
  const { step } = instruction;
  if (step.case === 'returnResponse') return [step.value.response];
  if (step.case === 'callAgent') return call(step.value);
  if (step.case === 'steps') {
    const answers: string[] = [];
    for (const each of step.value.instructions) answers.push(...(await follow(each, call)));
    return answers;
  }
  throw new Error('Unknown instruction type');
}

function webhookOf(call: CallAgent): string | undefined {
  if (call.behavior.case !== 'pushNotification') return undefined;
  const { url } = call.behavior.value;
  return `${/^https?:\/\//.test(url) ? url : `http://${url}`}/notifications`;
}

/** Resolves when the hold is over: true when the task was canceled, false when its time ran out. */
async function hold(signal: AbortSignal, tick: () => void): Promise<boolean> {
  for (let i = 0; i < HOLD_TICKS; i++) {
    try {
      await sleep(HOLD_TICK_MS, undefined, { signal });
    } catch {
      return true;
    }
    tick();
  }
  return false;
}

/** Serves the app and a gRPC server (port 0: any free one) until `close`. */
async function serve(
  app: express.Express,
  addServices: (server: grpc.Server) => void,
  card: (http: string, grpcPort: number) => void,
): Promise<SdkItkAgent> {
  const calls = { jsonrpc: 0, http_json: 0, grpc: 0 };
  const grpcServer = new grpc.Server({
    interceptors: [
      (_method, call) => {
        calls.grpc++;
        return new grpc.ServerInterceptingCall(call);
      },
    ],
  });
  addServices(grpcServer);
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
  const counted = express()
    .use((req, _res, next) => {
      // Calls, not card reads.
      if (!req.path.includes('/.well-known/')) {
        if (req.path.startsWith('/jsonrpc')) calls.jsonrpc++;
        if (req.path.startsWith('/rest/')) calls.http_json++;
      }
      next();
    })
    .use(app);
  const http = await listen(counted);
  card(http.url, grpcPort);
  return {
    url: http.url,
    calls,
    async close() {
      grpcServer.forceShutdown();
      await http.close();
    },
  };
}

// --- 1.x -------------------------------------------------------------------------------------

type Message1 = import('a2a-sdk-1').Message;
type StreamResponse1 = import('a2a-sdk-1').StreamResponse;

function texts1(message: Message1 | undefined): string[] {
  return (message?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' && p.content.value ? [p.content.value] : []));
}

function message1(taskId: string, contextId: string, text: string, messageId: string = randomUUID()): Message1 {
  return {
    messageId,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: {} }],
    extensions: [],
    referenceTaskIds: [],
    metadata: {},
  };
}

function taskIdOf1(event: StreamResponse1): string | undefined {
  const { payload } = event;
  if (payload?.$case === 'task') return payload.value.id || undefined;
  if (payload?.$case === 'statusUpdate' || payload?.$case === 'artifactUpdate') return payload.value.taskId || undefined;
  return undefined;
}

function messageOf1(event: StreamResponse1): Message1 | undefined {
  const { payload } = event;
  if (payload?.$case === 'message') return payload.value;
  if (payload?.$case === 'statusUpdate' || payload?.$case === 'task') return payload.value.status?.message;
  return undefined;
}

async function call1(call: CallAgent): Promise<string[]> {
  const legacyCompat = { enabled: true };
  const factory = new sdk1client.ClientFactory(
    sdk1client.ClientFactoryOptions.createFrom(sdk1client.ClientFactoryOptions.default, {
      transports: [
        new sdk1client.JsonRpcTransportFactory({ legacyCompat }),
        new sdk1client.RestTransportFactory({ legacyCompat }),
        new GrpcTransportFactory1({ legacyCompat }),
      ],
      preferredTransports: [bindingOf(call.transport)],
      cardResolver: new sdk1client.DefaultAgentCardResolver({ legacyCompat }),
    }),
  );
  const client = await factory.createFromUrl(call.agentCardUri.endsWith('/') ? call.agentCardUri : `${call.agentCardUri}/`);
  if (!call.instruction) throw new Error('Instruction missing in callAgent step');
  const webhook = webhookOf(call);
  const request = {
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: 'raw' as const, value: toBinary(InstructionSchema, call.instruction) },
          filename: 'instruction.bin',
          mediaType: 'application/x-protobuf',
          metadata: {},
        },
      ],
      extensions: [],
      referenceTaskIds: [],
      metadata: {},
    },
    configuration: webhook
      ? {
          acceptedOutputModes: [],
          taskPushNotificationConfig: { url: webhook, token: 'itk-token', id: '', taskId: '', tenant: '', authentication: undefined },
          returnImmediately: false,
        }
      : undefined,
    metadata: {},
  };
  if (call.behavior.case === 'resubscribe') {
    const first = new AbortController();
    let taskId: string | undefined;
    try {
      for await (const event of client.sendMessageStream(request as never, { signal: first.signal })) {
        taskId = taskIdOf1(event);
        if (taskId) break;
      }
    } catch (error) {
      if (!first.signal.aborted) throw error;
    } finally {
      first.abort();
    }
    if (!taskId) throw new Error('Resubscribe: initial send_message did not yield a task_id');
    const answers: string[] = [];
    let finished = false;
    const take = (message: Message1 | undefined) => {
      for (const text of texts1(message)) {
        const answer = text.replaceAll(TASK_FINISHED, '').trim();
        if (answer) answers.push(answer);
        if (text.includes(TASK_FINISHED)) finished = true;
      }
    };
    for await (const event of client.resubscribeTask({ tenant: '', id: taskId } as never)) {
      if (event.payload?.$case === 'task') {
        for (const past of event.payload.value.history ?? []) if (!finished && past.role === Role.ROLE_AGENT) take(past);
        if (!finished) take(event.payload.value.status?.message);
      } else take(messageOf1(event));
      if (finished) break;
    }
    await client.cancelTask({ tenant: '', id: taskId, metadata: undefined } as never).catch(() => undefined);
    return answers;
  }
  if (call.streaming) {
    const answers: string[] = [];
    for await (const event of client.sendMessageStream(request as never)) answers.push(...texts1(messageOf1(event)));
    return answers;
  }
  const response = (await client.sendMessage(request as never)) as unknown as {
    parts?: unknown;
    status?: { message?: Message1 };
    history?: Message1[];
  };
  if ('parts' in response) return texts1(response as unknown as Message1);
  return [...texts1(response.status?.message), ...(response.history ?? []).flatMap(texts1)];
}

class ItkExecutor1 {
  private readonly holds = new Map<string, AbortController>();

  async execute(context: sdk1.RequestContext, bus: sdk1.ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = context;
    const now = () => new Date().toISOString();
    const status = (state: TaskState, message?: Message1) =>
      sdk1.AgentEvent.statusUpdate({ taskId, contextId, status: { state, message, timestamp: now() }, metadata: undefined });
    bus.publish(
      sdk1.AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
        artifacts: [],
        history: [userMessage],
        metadata: {},
      }),
    );
    bus.publish(status(TaskState.TASK_STATE_WORKING));
    const part = userMessage.parts.find((p) => p.mediaType === 'application/x-protobuf' || p.filename === 'instruction.bin');
    if (part?.content?.$case !== 'raw') {
      bus.publish(status(TaskState.TASK_STATE_FAILED, message1(taskId, contextId, 'No valid instruction found in request')));
      return;
    }
    try {
      const instruction = fromBinary(InstructionSchema, part.content.value);
      const answer = (await follow(instruction, call1)).join('\n');
      if (!holds(instruction)) {
        bus.publish(status(TaskState.TASK_STATE_COMPLETED, message1(taskId, contextId, answer, 'done')));
        return;
      }
      const canceller = new AbortController();
      this.holds.set(taskId, canceller);
      bus.publish(status(TaskState.TASK_STATE_WORKING, message1(taskId, contextId, `${answer}\n${TASK_FINISHED}`, TASK_FINISHED)));
      const canceled = await hold(canceller.signal, () => bus.publish(status(TaskState.TASK_STATE_WORKING)));
      this.holds.delete(taskId);
      if (!canceled) bus.publish(status(TaskState.TASK_STATE_COMPLETED, message1(taskId, contextId, answer, 'done')));
    } catch (error) {
      bus.publish(status(TaskState.TASK_STATE_FAILED, message1(taskId, contextId, String(error), 'fail')));
    }
  }

  async cancelTask(taskId: string, bus: sdk1.ExecutionEventBus): Promise<void> {
    this.holds.get(taskId)?.abort();
    this.holds.delete(taskId);
    bus.publish(
      sdk1.AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
  }
}

/** The SDK 1.x ITK agent: A2A 1.0 and 0.3 on JSON-RPC, HTTP+JSON and gRPC. */
export async function serveSdk1ItkAgent(): Promise<SdkItkAgent> {
  const card = {
    name: 'ITK TS Agent (SDK 1.x)',
    description: 'The SDK’s ITK agent.',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    supportedInterfaces: [] as { url: string; protocolBinding: string; tenant: string; protocolVersion: string }[],
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain', 'application/x-protobuf'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const handler = new sdk1.DefaultRequestHandler(card as never, new sdk1.InMemoryTaskStore(), new ItkExecutor1() as never);
  const legacyCompat = { enabled: true };
  const cardHandler = sdk1express.agentCardHandler({ agentCardProvider: handler, legacyCompat });
  const app = express();
  app.use('/.well-known/agent-card.json', cardHandler);
  app.use('/jsonrpc/.well-known/agent-card.json', cardHandler);
  app.use('/rest/.well-known/agent-card.json', cardHandler);
  app.use('/jsonrpc', express.json());
  app.use(
    '/jsonrpc',
    sdk1express.jsonRpcHandler({ requestHandler: handler, userBuilder: sdk1express.UserBuilder.noAuthentication, legacyCompat }),
  );
  app.use(
    '/rest',
    sdk1express.restHandler({ requestHandler: handler, userBuilder: sdk1express.UserBuilder.noAuthentication, legacyCompat }),
  );
  return serve(
    app,
    (server) => {
      server.addService(
        sdk1grpc.A2AService,
        sdk1grpc.grpcService({ requestHandler: handler, userBuilder: sdk1grpc.UserBuilder.noAuthentication }),
      );
      server.addService(
        sdk1legacyGrpc.LegacyA2AService,
        sdk1legacyGrpc.legacyGrpcService({ requestHandler: handler, userBuilder: sdk1grpc.UserBuilder.noAuthentication }),
      );
    },
    (http, grpcPort) => {
      for (const protocolVersion of ['1.0', '0.3'])
        card.supportedInterfaces.push(
          { url: `${http}/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion },
          { url: `127.0.0.1:${grpcPort}`, protocolBinding: 'GRPC', tenant: '', protocolVersion },
          { url: `${http}/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion },
        );
      // The SDK answers a client that asks for no version with 0.3's card, whose fields come from the first interfaces.
      card.supportedInterfaces.sort((a, b) => (a.protocolVersion === b.protocolVersion ? 0 : a.protocolVersion === '1.0' ? -1 : 1));
    },
  );
}

// --- 0.3.14 ----------------------------------------------------------------------------------

type Message03 = import('@a2a-js/sdk').Message;
type Event03 = {
  kind: string;
  id?: string;
  taskId?: string;
  status?: { message?: Message03 };
  history?: Message03[];
  parts?: Message03['parts'];
};

function texts03(message: Message03 | undefined): string[] {
  return (message?.parts ?? []).flatMap((p) => (p.kind === 'text' && p.text ? [p.text] : []));
}

function messageOf03(event: Event03): Message03 | undefined {
  if (event.kind === 'message') return event as unknown as Message03;
  if (event.kind === 'task' || event.kind === 'status-update') return event.status?.message;
  return undefined;
}

async function call03(call: CallAgent): Promise<string[]> {
  const webhook = webhookOf(call);
  const pushNotificationConfig = webhook ? { url: webhook, token: 'itk-token' } : undefined;
  const factory = new sdk03client.ClientFactory(
    sdk03client.ClientFactoryOptions.createFrom(sdk03client.ClientFactoryOptions.default, {
      transports: [new sdk03client.JsonRpcTransportFactory(), new sdk03client.RestTransportFactory(), new GrpcTransportFactory03()],
      preferredTransports: [bindingOf(call.transport)],
      cardResolver: new sdk03client.DefaultAgentCardResolver(),
      ...(pushNotificationConfig && { clientConfig: { pushNotificationConfig } }),
    }),
  );
  const client = await factory.createFromUrl(call.agentCardUri.endsWith('/') ? call.agentCardUri : `${call.agentCardUri}/`);
  if (!call.instruction) throw new Error('Instruction missing in callAgent step');
  const params = {
    message: {
      kind: 'message' as const,
      messageId: randomUUID(),
      role: 'user' as const,
      parts: [
        {
          kind: 'file' as const,
          file: {
            bytes: Buffer.from(toBinary(InstructionSchema, call.instruction)).toString('base64'),
            mimeType: 'application/x-protobuf',
            name: 'instruction.bin',
          },
        },
      ],
    },
    configuration: { blocking: true, acceptedOutputModes: ['text'], ...(pushNotificationConfig && { pushNotificationConfig }) },
  };
  if (call.behavior.case === 'resubscribe') {
    const first = new AbortController();
    let taskId: string | undefined;
    try {
      for await (const event of client.sendMessageStream(params, { signal: first.signal }) as AsyncIterable<Event03>) {
        taskId = event.kind === 'task' ? event.id : event.taskId;
        if (taskId) break;
      }
    } catch (error) {
      if (!first.signal.aborted) throw error;
    } finally {
      first.abort();
    }
    if (!taskId) throw new Error('Resubscribe: initial send_message yielded no task_id');
    const answers: string[] = [];
    let finished = false;
    const take = (message: Message03 | undefined) => {
      for (const text of texts03(message)) {
        const answer = text.replaceAll(TASK_FINISHED, '').trim();
        if (answer) answers.push(answer);
        if (text.includes(TASK_FINISHED)) finished = true;
      }
    };
    for await (const event of client.resubscribeTask({ id: taskId }) as AsyncIterable<Event03>) {
      if (event.kind === 'task') {
        for (const past of event.history ?? []) if (!finished && past.role === 'agent') take(past);
        if (!finished) take(event.status?.message);
      } else take(messageOf03(event));
      if (finished) break;
    }
    await client.cancelTask({ id: taskId }).catch(() => undefined);
    return answers;
  }
  if (call.streaming) {
    const answers: string[] = [];
    for await (const event of client.sendMessageStream(params) as AsyncIterable<Event03>) answers.push(...texts03(messageOf03(event)));
    return answers;
  }
  const result = (await client.sendMessage(params)) as unknown as Event03;
  if (result.kind === 'message') return texts03(result as unknown as Message03);
  return [...texts03(result.status?.message), ...(result.history ?? []).filter((m) => m.role === 'agent').flatMap(texts03)];
}

class ItkExecutor03 {
  private readonly holds = new Map<string, AbortController>();

  async execute(context: sdk03.RequestContext, bus: sdk03.ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = context;
    const now = () => new Date().toISOString();
    const status = (state: string, final: boolean, text?: string, messageId: string = randomUUID()) => ({
      kind: 'status-update',
      taskId,
      contextId,
      final,
      status: {
        state,
        timestamp: now(),
        ...(text !== undefined && {
          message: { kind: 'message', messageId, role: 'agent', taskId, contextId, parts: [{ kind: 'text', text }] },
        }),
      },
    });
    bus.publish({ kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: now() }, history: [userMessage] } as never);
    bus.publish(status('working', false) as never);
    try {
      const part = userMessage.parts.find((p) => p.kind === 'file' && 'bytes' in p.file);
      if (part?.kind !== 'file' || !('bytes' in part.file)) throw new Error('No valid Instruction found in request.');
      const instruction = fromBinary(InstructionSchema, Buffer.from(part.file.bytes, 'base64'));
      const answer = (await follow(instruction, call03)).join('\n');
      if (!holds(instruction)) {
        bus.publish(status('completed', true, answer) as never);
        return;
      }
      const canceller = new AbortController();
      this.holds.set(taskId, canceller);
      const finished = `${answer}\n${TASK_FINISHED}`;
      bus.publish(status('working', false, finished, TASK_FINISHED) as never);
      const canceled = await hold(canceller.signal, () => bus.publish(status('working', false, finished, TASK_FINISHED) as never));
      this.holds.delete(taskId);
      if (!canceled) bus.publish(status('failed', true, answer) as never);
    } catch (error) {
      bus.publish(status('failed', true, String(error)) as never);
    } finally {
      bus.finished();
    }
  }

  async cancelTask(taskId: string, bus: sdk03.ExecutionEventBus): Promise<void> {
    this.holds.get(taskId)?.abort();
    this.holds.delete(taskId);
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId: '',
      final: true,
      status: { state: 'canceled', timestamp: new Date().toISOString() },
    } as never);
    bus.finished();
  }
}

/** The SDK 0.3.14 ITK agent: A2A 0.3 on JSON-RPC, HTTP+JSON and gRPC. */
export async function serveSdk03ItkAgent(): Promise<SdkItkAgent> {
  const card = {
    name: 'ITK TS v0.3 Agent (SDK 0.3.14)',
    description: 'The SDK’s ITK agent.',
    protocolVersion: '0.3.0',
    version: '0.3.0',
    url: '',
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [] as { url: string; transport: string }[],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain', 'application/x-protobuf'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const pushStore = new sdk03.InMemoryPushNotificationStore();
  const handler = new sdk03.DefaultRequestHandler(
    card as never,
    new sdk03.InMemoryTaskStore(),
    new ItkExecutor03() as never,
    undefined,
    pushStore,
    new sdk03.DefaultPushNotificationSender(pushStore),
  );
  const cardHandler = sdk03express.agentCardHandler({ agentCardProvider: handler });
  const app = express();
  app.use('/.well-known/agent-card.json', cardHandler);
  app.use('/jsonrpc/.well-known/agent-card.json', cardHandler);
  app.use('/rest/.well-known/agent-card.json', cardHandler);
  app.use('/jsonrpc', express.json());
  app.use('/jsonrpc', sdk03express.jsonRpcHandler({ requestHandler: handler, userBuilder: sdk03express.UserBuilder.noAuthentication }));
  app.use('/rest', sdk03express.restHandler({ requestHandler: handler, userBuilder: sdk03express.UserBuilder.noAuthentication }));
  return serve(
    app,
    (server) =>
      server.addService(
        sdk03grpc.A2AService,
        sdk03grpc.grpcService({ requestHandler: handler, userBuilder: sdk03grpc.UserBuilder.noAuthentication }),
      ),
    (http, grpcPort) => {
      card.url = `${http}/jsonrpc`;
      card.additionalInterfaces.push(
        { url: `${http}/jsonrpc`, transport: 'JSONRPC' },
        { url: `${http}/rest`, transport: 'HTTP+JSON' },
        { url: `127.0.0.1:${grpcPort}`, transport: 'GRPC' },
      );
    },
  );
}
