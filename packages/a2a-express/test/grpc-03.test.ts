// A2A 0.3's gRPC binding (`a2a.v1.A2AService`), served by serveGrpc beside 1.0's: driven by the
// official SDK's 0.3.14 gRPC client, which finds it through the 0.3 card, and by a bare grpc-js
// client for what the SDK would not send. One agent for the file, its tasks each test's own.
import * as grpc from '@grpc/grpc-js';
import { ClientFactory, TaskNotCancelableError, TaskNotFoundError, type Client } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { collectEvents } from 'a2a-testing';
import { grpcClientDefinition03, reasonOfStatusDetails03 } from 'a2a-types/v0.3/grpc';
import { artifact, completed, textOf, working, type TaskHandler } from '../src/index.js';
import { expectValid03, message03 } from './helpers.js';
import { grpcAgents } from './grpc-agents.js';

type StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

/** Echoes in two chunks; `wait` holds its turn until the task is canceled. */
const handler: TaskHandler = async function* (ctx) {
  const text = textOf(ctx.message);
  yield working('echoing');
  if (text === 'wait') {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    return;
  }
  yield artifact(text.slice(0, 2), { name: 'echo', lastChunk: false });
  yield artifact(text.slice(2), { append: true, lastChunk: true });
  yield completed('done');
};

const agents = grpcAgents();
let url: string;
let address: string;
let sdk: Client;
/** A bare client of the 0.3 service: messages in 0.3's JSON-RPC objects, translated by a2a-types/v0.3/grpc. */
let raw: grpc.Client & Record<string, (...args: unknown[]) => unknown>;

beforeAll(async () => {
  const served = await agents.agent(handler, { pushNotifications: { allowlist: ['127.0.0.1'] } });
  ({ url, address } = served);
  sdk = await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(url);
  const Constructor = grpc.makeGenericClientConstructor(grpcClientDefinition03() as unknown as grpc.ServiceDefinition, 'A2AService03');
  raw = new Constructor(address, grpc.credentials.createInsecure()) as typeof raw;
});

afterAll(async () => {
  raw.close();
  await agents.close();
});

/** A bare unary call by the 0.3 JSON-RPC method's name: the result, or the gRPC error. */
function call03(method: string, params: unknown): Promise<{ value?: unknown; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    raw.makeUnaryRequest(
      grpcClientDefinition03()[method]!.path,
      grpcClientDefinition03()[method]!.requestSerialize,
      grpcClientDefinition03()[method]!.responseDeserialize,
      params,
      (error, value) => resolve(error ? { error } : { value }),
    );
  });
}

/** A unary call whose request is `bytes` as they are. */
function rawBytes(path: string, bytes: Buffer): Promise<grpc.ServiceError | undefined> {
  return new Promise((resolve) => {
    raw.makeUnaryRequest(
      path,
      (value: Buffer) => value,
      (value: Buffer) => value,
      bytes,
      (error) => resolve(error ?? undefined),
    );
  });
}

describe('the 0.3 card', () => {
  test('lists the gRPC server as a GRPC interface, and still passes the published 0.3 schema', async () => {
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as { additionalInterfaces: unknown[] };
    expect(card.additionalInterfaces).toContainEqual({ url: address, transport: 'GRPC' });
    expectValid03('AgentCard', card);
    const card10 = (await (await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json()) as {
      supportedInterfaces: unknown[];
    };
    // The 1.0 card lists it too, after 1.0's own: a 1.0 client takes the first gRPC interface it sees.
    const grpcListed = card10.supportedInterfaces.filter((entry) => (entry as { protocolBinding: string }).protocolBinding === 'GRPC');
    expect(grpcListed).toEqual([
      { url: address, protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: address, protocolBinding: 'GRPC', protocolVersion: '0.3' },
    ]);
  });
});

describe('the SDK 0.3.14 gRPC client', () => {
  test('sends a message and gets the completed task, with its artifact and history', async () => {
    const task = (await sdk.sendMessage({ message: message03('hello') as Message })) as Task;
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts?.[0]?.parts.map((part) => (part.kind === 'text' ? part.text : '')).join('')).toBe('hello');
    expect(task.history?.[0]?.parts).toEqual([{ kind: 'text', text: 'hello' }]);

    const got = await sdk.getTask({ id: task.id, historyLength: 1 });
    expect(got.id).toBe(task.id);
    expect(got.status.state).toBe('completed');
  });

  test('streams a turn: the task, then its updates to the final one', async () => {
    const events = (await collectEvents(sdk.sendMessageStream({ message: message03('hello') as Message }))) as StreamEvent[];
    expect(events[0]!.kind).toBe('task');
    const chunks = events.filter((event): event is TaskArtifactUpdateEvent => event.kind === 'artifact-update');
    expect(chunks.map((chunk) => chunk.artifact.parts)).toEqual([[{ kind: 'text', text: 'he' }], [{ kind: 'text', text: 'llo' }]]);
    expect(chunks[1]!.lastChunk).toBe(true);
    const last = events.at(-1) as TaskStatusUpdateEvent;
    expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
  });

  test('resubscribes to a running task and sees it canceled', async () => {
    const task = (await sdk.sendMessage({ message: message03('wait') as Message, configuration: { blocking: false } })) as Task;
    expect(task.status.state).toBe('working');
    const events: StreamEvent[] = [];
    const resubscribed = (async () => {
      for await (const event of sdk.resubscribeTask({ id: task.id })) {
        events.push(event as StreamEvent);
        if (events.length === 1) void sdk.cancelTask({ id: task.id });
      }
    })();
    await resubscribed;
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'canceled' } });
    expect((await sdk.getTask({ id: task.id })).status.state).toBe('canceled');
  });

  test('resubscribing to a finished task gets its final status, as over 0.3 JSON-RPC, and the stream ends', async () => {
    const task = (await sdk.sendMessage({ message: message03('hello') as Message })) as Task;
    const events = (await collectEvents(sdk.resubscribeTask({ id: task.id }))) as StreamEvent[];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'status-update', taskId: task.id, final: true, status: { state: 'completed' } });
  });

  test('sets, gets, lists and deletes push configs', async () => {
    const task = (await sdk.sendMessage({ message: message03('hello') as Message })) as Task;
    const config = { id: 'hook-1', url: 'http://127.0.0.1:9/hook', token: 'tok' };
    const set = await sdk.setTaskPushNotificationConfig({ taskId: task.id, pushNotificationConfig: config });
    expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: 'hook-1', url: config.url } });
    // The SDK's types take only the task's id here; its gRPC transport sends the config's id too.
    const byId = { id: task.id, pushNotificationConfigId: 'hook-1' } as Parameters<Client['getTaskPushNotificationConfig']>[0];
    const got = await sdk.getTaskPushNotificationConfig(byId);
    expect(got.pushNotificationConfig.url).toBe(config.url);
    const listed = await sdk.listTaskPushNotificationConfig({ id: task.id });
    expect(listed.map((entry) => entry.pushNotificationConfig.id)).toEqual(['hook-1']);
    await sdk.deleteTaskPushNotificationConfig({ id: task.id, pushNotificationConfigId: 'hook-1' });
    expect(await sdk.listTaskPushNotificationConfig({ id: task.id })).toEqual([]);
  });

  test('reads our errors as the SDK names them: an unknown task, a task that cannot be canceled', async () => {
    await expect(sdk.getTask({ id: 'no-such-task' })).rejects.toBeInstanceOf(TaskNotFoundError);
    const task = (await sdk.sendMessage({ message: message03('hello') as Message })) as Task;
    await expect(sdk.cancelTask({ id: task.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
  });
});

describe('errors and hostile input, as gRPC statuses', () => {
  test('an unknown task is NOT_FOUND with an ErrorInfo naming its reason', async () => {
    const { error } = await call03('tasks/get', { id: 'missing' });
    expect(error?.code).toBe(grpc.status.NOT_FOUND);
    const [details] = error!.metadata.get('grpc-status-details-bin') as Buffer[];
    expect(reasonOfStatusDetails03(details!).reason).toBe('TASK_NOT_FOUND');
  });

  test('a resource name that is not tasks/{id} is INVALID_ARGUMENT that says what it should be', async () => {
    const path = grpcClientDefinition03()['tasks/get']!.path;
    // GetTaskRequest { name: "jobs/1" }: field 1, length-delimited.
    const error = await rawBytes(path, Buffer.from([0x0a, 6, ...Buffer.from('jobs/1')]));
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/tasks\/\{id\}/);
  });

  test('bytes that are not the request message are INVALID_ARGUMENT, and the server goes on', async () => {
    const path = grpcClientDefinition03()['message/send']!.path;
    const error = await rawBytes(path, Buffer.from([0xff, 0xff, 0xff, 0xff]));
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/a2a\.v1\.SendMessageRequest/);
    expect((await call03('tasks/get', { id: 'still-here' })).error?.code).toBe(grpc.status.NOT_FOUND);
  });

  test('a send without a message, or with a message without a role, is INVALID_ARGUMENT naming the field', async () => {
    const path = grpcClientDefinition03()['message/send']!.path;
    const empty = await rawBytes(path, Buffer.alloc(0));
    expect(empty?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(empty?.details).toMatch(/message/);
    const { role: _role, ...roleless } = message03('hi');
    const { error } = await call03('message/send', { message: roleless });
    expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error?.details).toMatch(/role/);
  });

  test('GetAgentCard answers as 0.3 JSON-RPC does without an extended card: FAILED_PRECONDITION', async () => {
    const { error } = await call03('agent/getAuthenticatedExtendedCard', {});
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
  });
});
