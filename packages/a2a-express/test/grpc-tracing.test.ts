// What a gRPC call traces, with the OpenTelemetry SDK registered and its spans kept in memory: a
// server span per call in the caller's trace (its `traceparent` metadata), named after the
// service and method, with the task and the gRPC status code; the turn it starts is its child.
import * as grpc from '@grpc/grpc-js';
import { serverPool } from 'a2a-testing';
import { type ReadableSpan, startInMemoryTracing } from 'a2a-testing/tracing';
import { grpcClientDefinition } from 'a2a-types/v1.0/grpc';
import { serveGrpc, type A2AGrpcServer } from '../src/grpc.js';
import { appWith, eventually, message10, twoChunkEcho } from './helpers.js';

const tracing = startInMemoryTracing();
const { serve, closeAll } = serverPool();
let grpcServer: A2AGrpcServer;
let client: grpc.Client & Record<string, (...args: unknown[]) => unknown>;
beforeAll(async () => {
  const { app, router } = appWith(twoChunkEcho(async () => undefined));
  await serve(app);
  grpcServer = await serveGrpc(router, { port: 0 });
  const Client = grpc.makeGenericClientConstructor(grpcClientDefinition() as grpc.ServiceDefinition, 'A2AService');
  client = new Client(grpcServer.address, grpc.credentials.createInsecure()) as typeof client;
});
afterAll(async () => {
  client.close();
  await grpcServer.close({ graceMs: 100 });
  await closeAll();
  await tracing.stop();
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

function call(method: string, request: Record<string, unknown>): Promise<grpc.ServiceError | null> {
  const metadata = new grpc.Metadata();
  metadata.set('a2a-version', '1.0');
  metadata.set('traceparent', `00-${TRACE_ID}-${CALLER_SPAN}-01`);
  return new Promise((resolve) => client[method]!(request, metadata, (error: grpc.ServiceError | null) => resolve(error)));
}

const serverSpan = (name: string) => async (): Promise<ReadableSpan | undefined> =>
  tracing.spans().find((span) => span.kind === 1 /* SERVER */ && span.name === name && span.spanContext().traceId === TRACE_ID);

test("a gRPC call is a server span in the caller's trace, with its method, task and status; its turn is a child", async () => {
  expect(await call('sendMessage', { message: message10('traced over gRPC') })).toBeNull();
  const span = await eventually(serverSpan('SendMessage'));
  expect(span.parentSpanContext?.spanId).toBe(CALLER_SPAN);
  expect(span.attributes).toMatchObject({ 'rpc.system': 'grpc', 'rpc.method': 'SendMessage', 'rpc.grpc.status_code': 0 });
  const turn = await eventually(async () =>
    tracing
      .spans()
      .find((other) => other.spanContext().traceId === TRACE_ID && other.parentSpanContext?.spanId === span.spanContext().spanId),
  );
  expect(turn.name).not.toBe(span.name);

  tracing.exporter.reset();
  expect((await call('getTask', { id: 'no-such-task' }))?.code).toBe(grpc.status.NOT_FOUND);
  const failed = await eventually(serverSpan('GetTask'));
  expect(failed.attributes).toMatchObject({ 'rpc.grpc.status_code': grpc.status.NOT_FOUND, 'a2a.task.id': 'no-such-task' });
});
