// The integration test kit's traversal (send, stream, push, resubscribe) through chains of our
// ITK agent and the official JS SDK's ITK agents (0.3.14 and 1.x), both ways round: our agent
// first (ours → SDK → ours) and the SDK's first (SDK → ours → SDK), each over JSON-RPC, HTTP+JSON
// and gRPC. All in this process, on loopback (itk-runner.ts runs the traversal as the kit does).
import express from 'express';
import { pino } from 'pino';
import { create, toBinary } from '@bufbuild/protobuf';
import { A2AClient10 } from 'a2a-client';
import { grpcTransport } from 'a2a-client/grpc';
import { a2aMetrics } from 'a2a-express';
import { serveGrpc } from 'a2a-express/grpc';
import { listen, type RunningServer } from 'a2a-testing';
import { parseScrape } from 'a2a-testing/metrics';
import { itkRouter, withKitEndpoint } from '../src/agent.js';
import { InstructionSchema } from '../src/gen/instruction_pb.js';
import {
  type Behaviour,
  type ItkNode,
  type NotificationReceiver,
  runTraversal,
  startNotificationReceiver,
  type Transport,
} from './itk-runner.js';
import { serveSdk03ItkAgent, serveSdk1ItkAgent, type SdkItkAgent } from './sdk-itk-agents.js';

const ALL_BINDINGS: Transport[] = ['jsonrpc', 'http_json', 'grpc'];

let ours: ItkNode;
let sdk1: ItkNode;
let sdk03: ItkNode;
/** The SDK's agents, by their node's name: what reached them over each binding. */
const sdkAgents = new Map<string, SdkItkAgent>();
let receiver: NotificationReceiver;
const closers: (() => Promise<void>)[] = [];
/** Our agent's calls answered so far: how the test sees which bindings and methods reached it. */
const metrics = a2aMetrics();
const callsOk = async (binding: string, method: string) =>
  parseScrape(await metrics.registry.metrics()).value('a2a_calls_total', { binding, method, outcome: 'ok' });

// The SDK's servers tell the console of every push they send: quiet, so the test's output is read.
const consoleInfo = console.info;
beforeAll(() => {
  console.info = () => undefined;
});
afterAll(() => {
  console.info = consoleInfo;
});

beforeAll(async () => {
  const router = itkRouter({
    logger: pino({ level: 'silent' }),
    grpc: grpcTransport(),
    pushNotifications: { allowlist: ['127.0.0.1'] },
    metrics,
  });
  const http: RunningServer = await listen(withKitEndpoint(express()).use(router));
  const grpcServer = await serveGrpc(router, { port: 0 });
  closers.push(async () => {
    await router.close();
    await grpcServer.close();
    await http.close();
  });
  const agents: SdkItkAgent[] = await Promise.all([serveSdk1ItkAgent(), serveSdk03ItkAgent()]);
  closers.push(...agents.map((a) => () => a.close()));
  receiver = await startNotificationReceiver();
  closers.push(() => receiver.close());
  ours = { name: 'ours', url: http.url, entry: '1.0' };
  sdk1 = { name: 'sdk_1x', url: agents[0]!.url, entry: '1.0' };
  sdk03 = { name: 'sdk_v03', url: agents[1]!.url, entry: '0.3' };
  sdkAgents.set(sdk1.name, agents[0]!).set(sdk03.name, agents[1]!);
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** The kit's four behaviours: send, send streamed, push, resubscribe (which streams). */
const BEHAVIOURS: [string, Behaviour, boolean][] = [
  ['send', 'send_message', false],
  ['stream', 'send_message', true],
  ['push', 'push_notification', false],
  ['resubscribe', 'resubscribe', true],
];

/** Our binding's name in the metrics, for each of the kit's transports. */
const BINDING_OF: Record<Transport, string> = { jsonrpc: 'jsonrpc', http_json: 'rest', grpc: 'grpc' };

/** The methods the SDK's agent calls ours with, for a behaviour (its 1.0 names; 0.3's over 0.3). */
function methodsFor(behaviour: Behaviour, streaming: boolean, version: '1.0' | '0.3'): string[] {
  const names =
    version === '1.0'
      ? { send: 'SendMessage', stream: 'SendStreamingMessage', subscribe: 'SubscribeToTask', cancel: 'CancelTask' }
      : { send: 'message/send', stream: 'message/stream', subscribe: 'tasks/resubscribe', cancel: 'tasks/cancel' };
  if (behaviour === 'resubscribe') return [names.stream, names.subscribe, names.cancel];
  return [streaming ? names.stream : names.send];
}

async function expectTraversal(
  nodes: ItkNode[],
  transports: Transport[],
  behaviour: Behaviour,
  streaming: boolean,
  sdkVersion?: '1.0' | '0.3',
) {
  const methods = sdkVersion ? methodsFor(behaviour, streaming, sdkVersion) : [];
  const before = await Promise.all(transports.flatMap((t) => methods.map((m) => callsOk(BINDING_OF[t], m))));
  const sdkCallsBefore = nodes.map((node) => ({ ...sdkAgents.get(node.name)?.calls }));
  const outcome = await runTraversal({ nodes, transports, behaviour, streaming }, receiver);
  expect(outcome.tokens.filter((t) => !outcome.text.includes(t))).toEqual([]);
  expect(outcome.statesNotPushed).toEqual([]);
  // Every hop is there: one token per ordered pair of agents and transport, and each circuit's end.
  expect(outcome.tokens).toHaveLength(transports.length * (nodes.length * (nodes.length - 1) + 1));
  // And the SDK's agent reached ours over each binding, with each method of the behaviour.
  const after = await Promise.all(transports.flatMap((t) => methods.map((m) => callsOk(BINDING_OF[t], m))));
  const reached = transports.flatMap((t) => methods.map((m) => `${t} ${m}`));
  expect(reached.filter((_, i) => after[i]! <= before[i]!)).toEqual([]);
  // And ours reached each SDK agent over each binding (the runner itself speaks JSON-RPC only).
  const notReached = nodes.flatMap((node, i) => {
    const calls = sdkAgents.get(node.name)?.calls;
    return calls ? transports.filter((t) => calls[t] <= sdkCallsBefore[i]![t]!).map((t) => `${node.name} over ${t}`) : [];
  });
  expect(notReached).toEqual([]);
}

describe.each([
  ['1.x', () => sdk1, ALL_BINDINGS, '1.0'],
  // The SDK 0.3.14 agent speaks 0.3 only: over each binding, both ends speak 0.3.
  ['0.3.14', () => sdk03, ALL_BINDINGS, '0.3'],
] as const)('with the SDK %s ITK agent', (_version, sdk, transports, version) => {
  describe.each(BEHAVIOURS)('%s', (_name, behaviour, streaming) => {
    test(`ours first: ours → SDK → ours over ${transports.join(', ')}`, async () => {
      await expectTraversal([ours, sdk()], [...transports], behaviour, streaming, version);
    });
    test(`the SDK's first: SDK → ours → SDK over ${transports.join(', ')}`, async () => {
      await expectTraversal([sdk(), ours], [...transports], behaviour, streaming, version);
    });
  });
});

test.each(BEHAVIOURS)('%s through all three agents, every ordered pair, over JSON-RPC', async (_name, behaviour, streaming) => {
  await expectTraversal([ours, sdk1, sdk03], ['jsonrpc'], behaviour, streaming);
});

describe('what our agent answers when the instruction cannot be followed', () => {
  const sendRaw = async (parts: unknown[]) => {
    const client = new A2AClient10(ours.url);
    const answer = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts } as never });
    return 'task' in answer ? answer.task.status : undefined;
  };
  const instruction = (call: { transport: string; agentCardUri: string }) =>
    Buffer.from(
      toBinary(
        InstructionSchema,
        create(InstructionSchema, {
          step: {
            case: 'callAgent',
            value: {
              ...call,
              instruction: { step: { case: 'returnResponse', value: { response: 'unreached' } } },
              behavior: { case: 'sendMessage', value: {} },
            },
          },
        }),
      ),
    ).toString('base64');

  test('no instruction part: the task fails, saying how to send one', async () => {
    const status = await sendRaw([{ text: 'hello' }]);
    expect(status).toMatchObject({ state: 'TASK_STATE_FAILED' });
    expect(JSON.stringify(status?.message)).toContain('No ITK instruction in the message');
  });

  test('bytes that are no instruction: the task fails, saying so', async () => {
    const status = await sendRaw([
      { raw: Buffer.from([0xff, 0xff, 0xff]).toString('base64'), mediaType: 'application/x-protobuf', filename: 'instruction.bin' },
    ]);
    expect(status).toMatchObject({ state: 'TASK_STATE_FAILED' });
    expect(JSON.stringify(status?.message)).toContain('is not an ITK Instruction');
  });

  test('an unknown transport: the task fails, naming it', async () => {
    const status = await sendRaw([
      {
        raw: instruction({ transport: 'carrier_pigeon', agentCardUri: sdk1.url }),
        mediaType: 'application/x-protobuf',
        filename: 'instruction.bin',
      },
    ]);
    expect(status).toMatchObject({ state: 'TASK_STATE_FAILED' });
    expect(JSON.stringify(status?.message)).toContain('unknown transport \\"carrier_pigeon\\"');
  });

  test('an agent that is not there: the task fails, naming it and the binding', async () => {
    const status = await sendRaw([
      {
        raw: instruction({ transport: 'http_json', agentCardUri: 'http://127.0.0.1:1' }),
        mediaType: 'application/x-protobuf',
        filename: 'instruction.bin',
      },
    ]);
    expect(status).toMatchObject({ state: 'TASK_STATE_FAILED' });
    expect(JSON.stringify(status?.message)).toContain('the call of http://127.0.0.1:1 over HTTP+JSON failed');
  });
});
