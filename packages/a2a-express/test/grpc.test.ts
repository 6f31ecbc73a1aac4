// A2A 1.0 over gRPC (a2a-express/grpc): the router's agent served on a port of its own, called with
// @grpc/grpc-js as a client calls it (the proto's messages on the wire), beside the same agent
// over JSON-RPC, HTTP+JSON and 0.3. Health and reflection are called by clients that know nothing
// of A2A's proto: the standard services' own protos, loaded from the packages that serve them.
import { createRequire } from 'node:module';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { deleteKeys, redisUrl, requireRedis, rpc, serverPool, uniquePrefix } from 'a2a-testing';
import { A2A_METHODS, grpcClientDefinition, statusDetailsFromBinary } from 'a2a-types/v1.0/grpc';
import { A2AError, a2aAgent, apiKey, working, type ErrorCode, type TaskHandler } from '../src/index.js';
import { a2aFetchHandler } from '../src/fetch.js';
import { a2aNodeHandler } from '../src/node.js';
import { listedGrpcAddress, serveGrpc, type A2AGrpcServer } from '../src/grpc.js';
import { RedisTaskStore } from '../src/redis.js';
import {
  appWith,
  eventually,
  memoryLogger,
  message03,
  message10,
  SubscriptionCountingStore,
  steppedChunks,
  twoChunkEcho,
  userText,
} from './helpers.js';

const require = createRequire(import.meta.url);
const { serve, closeAll } = serverPool();
const grpcServers: A2AGrpcServer[] = [];
const clients: grpc.Client[] = [];
afterAll(async () => {
  for (const client of clients) client.close();
  await Promise.all(grpcServers.map((server) => server.close({ graceMs: 100 })));
  await closeAll();
});

const A2AClientConstructor = grpc.makeGenericClientConstructor(grpcClientDefinition() as grpc.ServiceDefinition, 'A2AService');
type Json = Record<string, unknown>;

/** A client of A2AService at `address`, messages as their JSON form. */
function a2aClient(address: string): grpc.Client & Record<string, (...args: unknown[]) => unknown> {
  const client = new A2AClientConstructor(address, grpc.credentials.createInsecure()) as grpc.Client &
    Record<string, (...args: unknown[]) => unknown>;
  clients.push(client);
  return client;
}

function metadataOf(entries: Record<string, string>): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return metadata;
}

const V1 = { 'a2a-version': '1.0' };
const REDIS_URL = redisUrl();

/** A unary call: its answer, or the gRPC error it failed with. */
function unary(
  client: grpc.Client & Record<string, (...args: unknown[]) => unknown>,
  method: string,
  request: Json,
  metadata: Record<string, string> = V1,
  options: grpc.CallOptions = {},
): Promise<{ ok: true; value: Json } | { ok: false; error: grpc.ServiceError }> {
  return new Promise((resolve) => {
    client[method]!(request, metadataOf(metadata), options, (error: grpc.ServiceError | null, value: Json) =>
      resolve(error ? { ok: false, error } : { ok: true, value }),
    );
  });
}

/** A server stream's messages until it ends, or the error it ended with. */
function streamed(
  client: grpc.Client & Record<string, (...args: unknown[]) => unknown>,
  method: string,
  request: Json,
  metadata: Record<string, string> = V1,
): Promise<{ messages: Json[]; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const messages: Json[] = [];
    const call = client[method]!(request, metadataOf(metadata)) as grpc.ClientReadableStream<Json>;
    call.on('data', (message: Json) => messages.push(message));
    call.on('error', (error: grpc.ServiceError) => resolve({ messages, error }));
    call.on('end', () => resolve({ messages }));
  });
}

/** The ErrorInfo of a gRPC error's `grpc-status-details-bin` trailer. */
function errorInfoOf(error: grpc.ServiceError): Json | undefined {
  const [bytes] = error.metadata.get('grpc-status-details-bin') as Buffer[];
  if (!bytes) return undefined;
  return statusDetailsFromBinary(bytes).details.find((detail) => detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') as
    | Json
    | undefined;
}

async function agent(handler: TaskHandler = twoChunkEcho(async () => undefined), options: Parameters<typeof appWith>[1] = {}) {
  const { app, router } = appWith(handler, options);
  const http = await serve(app);
  const grpcServer = await serveGrpc(router, { port: 0, agentUrl: http.url });
  grpcServers.push(grpcServer);
  return { http: http.url, router, grpcServer, client: a2aClient(grpcServer.address) };
}

/** A varint's bytes. */
function varint(value: number): number[] {
  const bytes: number[] = [];
  for (; value > 0x7f; value = Math.floor(value / 128)) bytes.push((value & 0x7f) | 0x80);
  bytes.push(value);
  return bytes;
}

/**
 * A SendMessageRequest's bytes whose one data part is a google.protobuf.Value of lists nested
 * `depth` deep, written by hand (a protobuf library would overflow its own stack making it).
 */
function deeplyNestedSend(depth: number): Buffer {
  // Sizes from the inside out: a Value (list_value = 6) around a ListValue (values = 1) around the next Value.
  const valueSizes = [2]; // the innermost Value: null_value = 0 (field 1, varint)
  const listSizes = [0];
  for (let i = 1; i <= depth; i++) {
    listSizes[i] = 1 + varint(valueSizes[i - 1]!).length + valueSizes[i - 1]!;
    valueSizes[i] = 1 + varint(listSizes[i]!).length + listSizes[i]!;
  }
  const value: number[] = [];
  for (let i = depth; i >= 1; i--) value.push(0x32, ...varint(listSizes[i]!), 0x0a, ...varint(valueSizes[i - 1]!));
  value.push(0x08, 0x00);
  const part = [0x22, ...varint(value.length), ...value]; // Part.data = 4
  const id = [...Buffer.from('m-abyss')];
  // Message: message_id = 1, role = 4 (ROLE_USER), parts = 5; the request's message = 2.
  const message = [0x0a, id.length, ...id, 0x20, 0x01, 0x2a, ...varint(part.length), ...part];
  return Buffer.from([0x12, ...varint(message.length), ...message]);
}

describe('A2A 1.0 over gRPC', () => {
  test('served without any HTTP server: an agent of a2aAgent() alone, and the handles of node:http and fetch, each over gRPC', async () => {
    const card = { name: 'gRPC only', version: '1.0.0', url: 'https://agent.example/a2a/' };
    const handles = [
      a2aAgent(
        twoChunkEcho(async () => undefined),
        { card, logger: memoryLogger().logger },
      ),
      a2aNodeHandler(
        twoChunkEcho(async () => undefined),
        { card, logger: memoryLogger().logger },
      ),
      a2aFetchHandler(
        twoChunkEcho(async () => undefined),
        { card, logger: memoryLogger().logger },
      ),
    ];
    for (const handle of handles) {
      const grpcServer = await serveGrpc(handle, { port: 0 });
      grpcServers.push(grpcServer);
      const client = a2aClient(grpcServer.address);
      const sent = await unary(client, 'sendMessage', { message: message10('hello') });
      if (!sent.ok) throw sent.error;
      expect(sent.value.task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
      const id = (sent.value.task as Json).id as string;
      const read = await unary(client, 'getTask', { id });
      expect(read.ok && read.value).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
      await handle.close();
    }
    await expect(serveGrpc({} as never)).rejects.toThrow(/expected an agent made by a2aAgent/);
  });

  test('SendMessage answers with the task, which JSON-RPC, HTTP+JSON and 0.3 read too; the card lists the gRPC interface', async () => {
    const { http, client, grpcServer } = await agent();
    const sent = await unary(client, 'sendMessage', { message: message10('hello') });
    if (!sent.ok) throw sent.error;
    const task = sent.value.task as Json;
    expect(task).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' } });
    const id = task.id as string;

    const overJsonRpc = await rpc<Json>(`${http}/v1`, 'GetTask', { id }, { headers: V1 });
    expect(overJsonRpc.result).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
    const overRest = await fetch(`${http}/v1/tasks/${id}`, { headers: V1 });
    expect(await overRest.json()).toMatchObject({ id });
    const over03 = await rpc<Json>(`${http}/v0.3`, 'tasks/get', { id });
    expect(over03.result).toMatchObject({ id, status: { state: 'completed' } });

    // And the other way: a task started over JSON-RPC is read over gRPC.
    const started = await rpc<{ task: Json }>(`${http}/v1`, 'SendMessage', { message: message10('over json-rpc') }, { headers: V1 });
    const read = await unary(client, 'getTask', { id: started.result!.task.id });
    expect(read.ok && read.value).toMatchObject({ id: started.result!.task.id, artifacts: [expect.anything()] });

    const card = (await (await fetch(`${http}/.well-known/agent-card.json`, { headers: V1 })).json()) as Json;
    expect(card.supportedInterfaces).toContainEqual({ url: grpcServer.address, protocolBinding: 'GRPC', protocolVersion: '1.0' });
  });

  test('on Redis, a task started over gRPC on one replica is continued over JSON-RPC on another, and read back over gRPC', async () => {
    await requireRedis(REDIS_URL);
    const prefix = uniquePrefix('grpc');
    const stores = [new RedisTaskStore({ url: REDIS_URL, prefix }), new RedisTaskStore({ url: REDIS_URL, prefix })];
    try {
      const echo = twoChunkEcho(async () => undefined);
      const first = await agent(echo, { store: stores[0] });
      const second = await agent(echo, { store: stores[1] });
      const asked = await unary(first.client, 'sendMessage', { message: message10('?') });
      if (!asked.ok) throw asked.error;
      const id = (asked.value.task as Json).id as string;
      expect(asked.value.task).toMatchObject({ status: { state: 'TASK_STATE_INPUT_REQUIRED' } });
      const answered = await rpc<{ task: Json }>(
        `${second.http}/v1`,
        'SendMessage',
        { message: message10('now', { taskId: id }) },
        { headers: V1 },
      );
      expect(answered.result?.task).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
      const read = await unary(first.client, 'getTask', { id });
      expect(read.ok && read.value).toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
      await Promise.all([first.router.close(), second.router.close()]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await deleteKeys(REDIS_URL, prefix);
    }
  });

  test('SendStreamingMessage streams the task, then its updates, the final one last', async () => {
    const { client } = await agent();
    const { messages, error } = await streamed(client, 'sendStreamingMessage', { message: message10('stream me') });
    expect(error).toBeUndefined();
    expect(Object.keys(messages[0]!)).toEqual(['task']);
    const last = messages.at(-1) as { statusUpdate?: { status: Json } };
    expect(last.statusUpdate?.status).toMatchObject({ state: 'TASK_STATE_COMPLETED' });
    expect(messages.some((message) => 'artifactUpdate' in message)).toBe(true);
  });

  test('an error is its gRPC status, with the ErrorInfo of its reason in the status details', async () => {
    const { client } = await agent();
    const missing = await unary(client, 'getTask', { id: 'no-such-task' });
    expect(missing.ok).toBe(false);
    if (missing.ok) return;
    expect(missing.error.code).toBe(grpc.status.NOT_FOUND);
    expect(errorInfoOf(missing.error)).toMatchObject({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' });

    const version = await unary(client, 'getTask', { id: 'x' }, { 'a2a-version': '99.0' });
    expect(!version.ok && version.error.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(!version.ok && errorInfoOf(version.error)).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED' });

    // A streaming method refused before its stream starts: the status, at once.
    const unknownTask = await streamed(client, 'subscribeToTask', { id: 'no-such-task' });
    expect(unknownTask.messages).toEqual([]);
    expect(unknownTask.error?.code).toBe(grpc.status.NOT_FOUND);
    expect(errorInfoOf(unknownTask.error!)).toMatchObject({ reason: 'TASK_NOT_FOUND' });

    const invalid = await unary(client, 'sendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } });
    expect(!invalid.ok && invalid.error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(!invalid.ok && errorInfoOf(invalid.error)).toMatchObject({ reason: 'INVALID_PARAMS' });
  });

  test("a handler's authorization refusal is a refusal on every version and binding: HTTP 403 (spec 4.4), gRPC PERMISSION_DENIED", async () => {
    const { http, client } = await agent(async () => {
      throw A2AError.authorizationFailed();
    });
    const over01 = await rpc(http, 'tasks/send', { id: randomUUID(), message: userText('x') });
    expect(over01).toMatchObject({ httpStatus: 403, error: { code: -32008, message: 'Authorization failed' } });
    const over03 = await rpc(`${http}/v0.3`, 'message/send', { message: message03('x') });
    expect(over03).toMatchObject({ httpStatus: 403, error: { code: -32008, message: 'Authorization failed' } });
    // 1.0 has no JSON-RPC code for it (a custom error, spec 1.0 3.3.2): -32000, its ErrorInfo says PERMISSION_DENIED.
    const over10 = await rpc(`${http}/v1`, 'SendMessage', { message: message10('x') }, { headers: V1 });
    expect(over10).toMatchObject({ httpStatus: 403, error: { code: -32000, data: [{ reason: 'PERMISSION_DENIED' }] } });
    const overRest = await fetch(`${http}/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1 },
      body: JSON.stringify({ message: message10('x') }),
    });
    expect(overRest.status).toBe(403);
    expect(await overRest.json()).toMatchObject({
      error: { code: 403, status: 'PERMISSION_DENIED', details: [{ reason: 'PERMISSION_DENIED', domain: 'a2a-protocol.org' }] },
    });
    const overGrpc = await unary(client, 'sendMessage', { message: message10('x') });
    expect(!overGrpc.ok && overGrpc.error.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(!overGrpc.ok && errorInfoOf(overGrpc.error)).toMatchObject({ reason: 'PERMISSION_DENIED', domain: 'a2a-protocol.org' });
  });

  test("a handler's own code, which no version names: kept over JSON-RPC (1.0's ErrorInfo says UNKNOWN), a server's failure to HTTP+JSON and gRPC", async () => {
    const { http, client } = await agent(async () => {
      throw new A2AError(-32050 as ErrorCode, 'Quota of the day used');
    });
    const over03 = await rpc(`${http}/v0.3`, 'message/send', { message: message03('x') });
    expect(over03).toMatchObject({ httpStatus: 200, error: { code: -32050, message: 'Quota of the day used' } });
    const over10 = await rpc(`${http}/v1`, 'SendMessage', { message: message10('x') }, { headers: V1 });
    expect(over10).toMatchObject({ httpStatus: 200, error: { code: -32050, data: [{ reason: 'UNKNOWN' }] } });
    const overRest = await fetch(`${http}/v1/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1 },
      body: JSON.stringify({ message: message10('x') }),
    });
    expect(overRest.status).toBe(500);
    expect(await overRest.json()).toMatchObject({ error: { code: 500, status: 'INTERNAL', details: [{ reason: 'UNKNOWN' }] } });
    const overGrpc = await unary(client, 'sendMessage', { message: message10('x') });
    expect(!overGrpc.ok && overGrpc.error.code).toBe(grpc.status.INTERNAL);
    expect(!overGrpc.ok && overGrpc.error.details).toBe('Quota of the day used');
    expect(!overGrpc.ok && errorInfoOf(overGrpc.error)).toMatchObject({ reason: 'UNKNOWN' });
  });

  test('credentials come from the metadata through the same strategies; a task is its owner’s', async () => {
    const { client } = await agent(undefined, { auth: { strategies: [apiKey({ keys: { 'key-a': 'alice', 'key-b': 'bob' } })] } });
    const anonymous = await unary(client, 'sendMessage', { message: message10('hi') });
    expect(!anonymous.ok && anonymous.error.code).toBe(grpc.status.UNAUTHENTICATED);
    const alices = await unary(client, 'sendMessage', { message: message10('hi') }, { ...V1, 'x-api-key': 'key-a' });
    if (!alices.ok) throw alices.error;
    const id = (alices.value.task as Json).id as string;
    const byBob = await unary(client, 'getTask', { id }, { ...V1, 'x-api-key': 'key-b' });
    expect(!byBob.ok && byBob.error.code).toBe(grpc.status.NOT_FOUND);
    const byAlice = await unary(client, 'getTask', { id }, { ...V1, 'x-api-key': 'key-a' });
    expect(byAlice.ok).toBe(true);
  });

  test('hostile input gets a status, never a crash: bytes that are no request, an unknown enum number, too large a message, deep nesting, a deadline of 0', async () => {
    const { client, grpcServer } = await agent();
    const raw = new grpc.Client(grpcServer.address, grpc.credentials.createInsecure());
    clients.push(raw);
    const sendPath = A2A_METHODS.find((method) => method.name === 'SendMessage')!.path;
    const garbage = await new Promise<grpc.ServiceError | null>((resolve) =>
      raw.makeUnaryRequest(
        sendPath,
        (value: Buffer) => value,
        (value: Buffer) => value,
        Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]),
        metadataOf(V1),
        (error) => resolve(error),
      ),
    );
    expect(garbage?.code).toBe(grpc.status.INVALID_ARGUMENT);

    // role 99 is no Role: the proto's JSON form says it as a number, which 1.0 refuses.
    const unknownEnum = await unary(client, 'sendMessage', { message: { messageId: 'm-enum', role: 99, parts: [{ text: 'x' }] } });
    expect(!unknownEnum.ok && unknownEnum.error.code).toBe(grpc.status.INVALID_ARGUMENT);

    const huge = await unary(client, 'sendMessage', { message: message10('x'.repeat(11 * 1024 * 1024)) });
    expect(!huge.ok && huge.error.code).toBe(grpc.status.RESOURCE_EXHAUSTED);

    // Nested past what protobuf-es reads (100 messages deep), even 50,000 deep: refused, read no further.
    const abysmal = await new Promise<grpc.ServiceError | null>((resolve) =>
      raw.makeUnaryRequest(
        sendPath,
        (value: Buffer) => value,
        (value: Buffer) => value,
        deeplyNestedSend(50_000),
        metadataOf(V1),
        (error) => resolve(error),
      ),
    );
    expect(abysmal?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errorInfoOf(abysmal!)).toMatchObject({
      reason: 'INVALID_REQUEST',
      metadata: { reason: expect.stringMatching(/recursion depth/) },
    });

    const late = await unary(client, 'getTask', { id: 'x' }, V1, { deadline: Date.now() });
    expect(!late.ok && late.error.code).toBe(grpc.status.DEADLINE_EXCEEDED);

    // The server is still there.
    expect((await unary(client, 'sendMessage', { message: message10('still here') })).ok).toBe(true);
  });

  test('a SendMessage past its deadline stops waiting for the task, which goes on until it is canceled', async () => {
    let handlerSawCancel = false;
    let taskId = '';
    const holding: TaskHandler = async function* (ctx) {
      taskId = ctx.task.id;
      yield working('holding');
      await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
      handlerSawCancel = ctx.signal.aborted;
    };
    const { logger, lines } = memoryLogger();
    // A wait far longer than the test: only the deadline can end the call's wait in time.
    const { client } = await agent(holding, { logger, sendWaitMs: 60_000 });
    const late = await unary(client, 'sendMessage', { message: message10('hold') }, V1, { deadline: Date.now() + 300 });
    expect(!late.ok && late.error.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    const abandoned = await eventually(async () =>
      lines().find((line) => line.msg === 'a2a call' && line.method === 'SendMessage' && line.outcome === 'abandoned'),
    );
    expect(abandoned.durationMs).toBeLessThan(10_000);
    // The task is still the agent's to finish: another call reads it, and cancels it.
    const read = await unary(client, 'getTask', { id: taskId });
    expect(read.ok && (read.value.status as Json).state).toBe('TASK_STATE_WORKING');
    const canceled = await unary(client, 'cancelTask', { id: taskId });
    expect(canceled.ok && (canceled.value.status as Json).state).toBe('TASK_STATE_CANCELED');
    await eventually(async () => handlerSawCancel || undefined);
  });

  test("the router's maxJsonDepth holds over gRPC as over HTTP: a request's JSON form nested deeper is refused", async () => {
    const { client } = await agent(undefined, { maxJsonDepth: 10 });
    let nested: unknown = 'bottom';
    for (let i = 0; i < 12; i++) nested = [nested];
    const deep = await unary(client, 'sendMessage', { message: { messageId: 'm-deep', role: 'ROLE_USER', parts: [{ data: nested }] } });
    expect(!deep.ok && deep.error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(!deep.ok && errorInfoOf(deep.error)).toMatchObject({ metadata: { reason: 'the request nests deeper than 10 levels' } });
    nested = 'bottom';
    for (let i = 0; i < 5; i++) nested = [nested];
    const shallow = await unary(client, 'sendMessage', {
      message: { messageId: 'm-shallow', role: 'ROLE_USER', parts: [{ data: nested }] },
    });
    expect(shallow.ok).toBe(true);
  });

  test('a stream the client cancels mid-way lets go of its task: nothing stays subscribed', async () => {
    const store = new SubscriptionCountingStore();
    const { handler, next } = steppedChunks(5);
    const { client } = await agent(handler, { store });
    const call = client.sendStreamingMessage!({ message: message10('slow') }, metadataOf(V1)) as grpc.ClientReadableStream<Json>;
    const first = await new Promise<Json>((resolve) => call.once('data', resolve));
    expect(first).toHaveProperty('task');
    expect(store.open).toBe(1);
    const cancelled = new Promise<grpc.ServiceError>((resolve) => call.on('error', resolve));
    call.cancel();
    expect((await cancelled).code).toBe(grpc.status.CANCELLED);
    for (let i = 0; i < 50 && store.open > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(store.open).toBe(0);
    for (let i = 0; i < 5; i++) next();
  });

  test('a drain refuses new calls (UNAVAILABLE) and ends a stream in flight with a final event', async () => {
    const { handler } = steppedChunks(5);
    const { client, router } = await agent(handler);
    const call = client.sendStreamingMessage!({ message: message10('long') }, metadataOf(V1)) as grpc.ClientReadableStream<Json>;
    const messages: Json[] = [];
    const ended = new Promise<grpc.ServiceError | undefined>((resolve) => {
      call.on('data', (message: Json) => messages.push(message));
      call.on('error', resolve);
      call.on('end', () => resolve(undefined));
    });
    await new Promise((resolve) => call.once('data', resolve));
    const drained = router.drain({ deadlineMs: 200 });
    const refused = await unary(client, 'getTask', { id: 'any' });
    expect(!refused.ok && refused.error.code).toBe(grpc.status.UNAVAILABLE);
    expect(await drained).toEqual({ finished: 0, stopped: 1 });
    expect(await ended).toBeUndefined();
    const last = messages.at(-1) as { statusUpdate?: { status: Json } };
    expect(last.statusUpdate?.status).toMatchObject({ state: 'TASK_STATE_FAILED' });
  });

  test('the address a card lists: the advertised one, else where the server listens, else (every address) the host the card came from', () => {
    expect(listedGrpcAddress('127.0.0.1', 50051, 'agents.example:443', 'http://127.0.0.1:41241/')).toBe('agents.example:443');
    expect(listedGrpcAddress('127.0.0.1', 50051, undefined, 'http://localhost:41241/')).toBe('127.0.0.1:50051');
    expect(listedGrpcAddress('::1', 50051, undefined, 'http://localhost:41241/')).toBe('[::1]:50051');
    // In a container (0.0.0.0 or ::) the card names the host its client reached, with the gRPC port.
    expect(listedGrpcAddress('0.0.0.0', 50051, undefined, 'http://localhost:41241/')).toBe('localhost:50051');
    expect(listedGrpcAddress('::', 50052, undefined, 'https://agent.internal/a2a/')).toBe('agent.internal:50052');
    expect(listedGrpcAddress('0.0.0.0', 50051, undefined, 'http://[fd00::5]:8080/')).toBe('[fd00::5]:50051');
  });

  test('a router that serves neither 1.0 nor 0.3 has nothing to serve over gRPC: a TypeError that says so', async () => {
    const { router } = appWith(
      twoChunkEcho(async () => undefined),
      { protocol10: false, protocol03: false },
    );
    await expect(serveGrpc(router, { port: 0 })).rejects.toThrow(/protocol10 and protocol03 are off/);
    await router.close();
  });

  test('the health service and server reflection answer clients that know nothing of A2A', async () => {
    const { grpcServer } = await agent();
    const healthProto = path.join(path.dirname(require.resolve('grpc-health-check/package.json')), 'proto/health/v1/health.proto');
    const health = grpc.loadPackageDefinition(protoLoader.loadSync(healthProto, { enums: String })) as unknown as {
      grpc: { health: { v1: { Health: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client & Json } } };
    };
    const healthClient = new health.grpc.health.v1.Health(grpcServer.address, grpc.credentials.createInsecure());
    clients.push(healthClient);
    const check = (service: string) =>
      new Promise<Json>((resolve, reject) =>
        (healthClient.check as (request: Json, callback: (error: Error | null, value: Json) => void) => void)(
          { service },
          (error, value) => (error ? reject(error) : resolve(value)),
        ),
      );
    // 1.0's service and 0.3's, both served.
    expect((await check('lf.a2a.v1.A2AService')).status).toBe('SERVING');
    expect((await check('a2a.v1.A2AService')).status).toBe('SERVING');

    const reflectionProto = path.join(
      path.dirname(require.resolve('@grpc/reflection/package.json')),
      'build/proto/grpc/reflection/v1/reflection.proto',
    );
    const reflection = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto)) as unknown as {
      grpc: { reflection: { v1: { ServerReflection: new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client & Json } } };
    };
    const reflectionClient = new reflection.grpc.reflection.v1.ServerReflection(grpcServer.address, grpc.credentials.createInsecure());
    clients.push(reflectionClient);
    const ask = (request: Json) =>
      new Promise<Json>((resolve, reject) => {
        const call = (reflectionClient.serverReflectionInfo as () => grpc.ClientDuplexStream<Json, Json>)();
        call.on('data', (answer: Json) => {
          resolve(answer);
          call.end();
        });
        call.on('error', reject);
        call.write(request);
      });
    const listed = await ask({ listServices: '' });
    const services = (listed.listServicesResponse as { service: { name: string }[] }).service.map((service) => service.name);
    expect(services).toEqual(expect.arrayContaining(['lf.a2a.v1.A2AService', 'a2a.v1.A2AService', 'grpc.health.v1.Health']));
    // 0.3's proto is described too, from its own file: what grpcurl needs to call it.
    const described = await ask({ fileContainingSymbol: 'a2a.v1.A2AService' });
    expect(described.fileDescriptorResponse).toBeDefined();
  });
});
