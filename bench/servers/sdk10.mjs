// Baseline for A2A 1.0: the official @a2a-js/sdk 1.x Express server (JSON-RPC `SendMessage`,
// HTTP+JSON at /a2a/rest, and its 0.3 compatibility layer on the JSON-RPC endpoint),
// with an executor doing the same work as the subject's echo handler: one task created, the
// message echoed as an artifact, completed, stored; "stream N" streams N chunks of one artifact.
import express from 'express';
import { Role, TaskState } from 'a2a-sdk-1';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from 'a2a-sdk-1/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a-sdk-1/server/express';
import { echoAsShipped, echoChunks, WORKING_TEXT } from './echo-chunks.mjs';

const card = {
  name: 'Echo',
  description: 'bench',
  version: '1.0.0',
  // 1.0 over JSON-RPC and HTTP+JSON, and 0.3 over JSON-RPC through the SDK's compatibility layer
  // (which needs the card to name it).
  supportedInterfaces: [
    { url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    { url: 'http://127.0.0.1/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
    { url: 'http://127.0.0.1/a2a/jsonrpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    // Served with BENCH_GRPC=1: the SDK serves a version over gRPC only where its card lists it.
    ...(process.env.BENCH_GRPC === '1' ? [{ url: '127.0.0.1:0', protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: '' }] : []),
  ],
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
};
const textPart = (value) => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });
const status = (state) => ({ state, message: undefined, timestamp: new Date().toISOString() });
const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    const text = userMessage.parts.find((p) => p.content?.$case === 'text')?.content.value ?? '';
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_WORKING),
        artifacts: [],
        history: [userMessage],
        metadata: undefined,
      }),
    );
    const stream = /^stream (\d+)$/.exec(text);
    const artifact = (parts) => ({ artifactId: 'echo', name: '', description: '', parts, metadata: undefined, extensions: [] });
    if (stream) {
      const n = Number(stream[1]);
      for (let i = 1; i <= n; i++) {
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: artifact([textPart(`chunk ${i}`)]),
            append: i > 1,
            lastChunk: i === n,
            metadata: undefined,
          }),
        );
      }
    } else if (echoAsShipped) {
      const working = {
        messageId: `${taskId}-working`,
        contextId,
        taskId,
        role: Role.ROLE_AGENT,
        parts: [textPart(WORKING_TEXT)],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_WORKING, message: working, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
      const pieces = echoChunks(text);
      for (const [i, piece] of pieces.entries()) {
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: artifact([textPart(piece)]),
            append: i > 0,
            lastChunk: i === pieces.length - 1,
            metadata: undefined,
          }),
        );
      }
    } else {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: artifact(userMessage.parts),
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
    }
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
    bus.finished();
  },
  async cancelTask() {},
};
const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
// Forked by the bench, it reports its port; run by hand (to profile it), it prints it.
// BENCH_GRPC=1 serves the same handler over gRPC too, as the SDK's README shows (its grpc-js service).
const grpcPort = process.env.BENCH_GRPC === '1' ? await serveSdkGrpc() : undefined;
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  // The card names where it is served, port included, for a client that reads it (a2a check).
  for (const entry of card.supportedInterfaces) {
    entry.url = entry.url.replace('http://127.0.0.1/', `http://127.0.0.1:${port}/`);
    if (entry.protocolBinding === 'GRPC') entry.url = `127.0.0.1:${grpcPort}`;
  }
  if (process.send) process.send({ port, grpcPort });
  else console.error(`listening on http://127.0.0.1:${port}/${grpcPort ? ` and gRPC 127.0.0.1:${grpcPort}` : ''}`);
});

async function serveSdkGrpc() {
  const grpc = await import('@grpc/grpc-js');
  const { A2AService, grpcService, UserBuilder: GrpcUserBuilder } = await import('a2a-sdk-1/server/grpc');
  const grpcServer = new grpc.Server();
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
  return new Promise((resolve, reject) =>
    grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))),
  );
}
// Exit normally on SIGTERM so that --cpu-prof can write its profile.
process.on('SIGTERM', () => process.exit(0));
