// Baseline (b): the official @a2a-js/sdk (0.3, `message/send`) Express server with an echo
// executor doing the same work: one task created, echoed as an artifact, completed, stored;
// "stream N" streams N chunks of one artifact, as the kit's bench server does.
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AExpressApp } from '@a2a-js/sdk/server/express';
import { echoAsShipped, echoChunks, WORKING_TEXT } from './echo-chunks.mjs';

const card = {
  name: 'Echo',
  description: 'bench',
  url: 'http://127.0.0.1/',
  version: '1.0.0',
  protocolVersion: '0.3.0',
  capabilities: { streaming: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
};
const executor = {
  async execute(ctx, bus) {
    const { taskId, contextId, userMessage } = ctx;
    bus.publish({
      kind: 'task',
      id: taskId,
      contextId,
      status: { state: 'submitted', timestamp: new Date().toISOString() },
      history: [userMessage],
    });
    // "stream N": N chunks of one artifact, as the kit's bench server streams them.
    const text = userMessage.parts.find((p) => p.kind === 'text')?.text ?? '';
    const stream = /^stream (\d+)$/.exec(text);
    if (stream) {
      const n = Number(stream[1]);
      for (let i = 1; i <= n; i++) {
        bus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          artifact: { artifactId: 'echo', parts: [{ kind: 'text', text: `chunk ${i}` }] },
          append: i > 1,
          lastChunk: i === n,
        });
      }
    } else if (echoAsShipped) {
      const working = {
        kind: 'message',
        role: 'agent',
        messageId: `${taskId}-working`,
        taskId,
        contextId,
        parts: [{ kind: 'text', text: WORKING_TEXT }],
      };
      bus.publish({
        kind: 'status-update',
        taskId,
        contextId,
        status: { state: 'working', message: working, timestamp: new Date().toISOString() },
        final: false,
      });
      const pieces = echoChunks(text);
      for (const [i, piece] of pieces.entries()) {
        bus.publish({
          kind: 'artifact-update',
          taskId,
          contextId,
          artifact: { artifactId: 'echo', name: 'echo', parts: [{ kind: 'text', text: piece }] },
          append: i > 0,
          lastChunk: i === pieces.length - 1,
        });
      }
    } else {
      bus.publish({ kind: 'artifact-update', taskId, contextId, artifact: { artifactId: 'echo', parts: userMessage.parts } });
    }
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId,
      status: { state: 'completed', timestamp: new Date().toISOString() },
      final: true,
    });
    bus.finished();
  },
  async cancelTask() {},
};
const app = new A2AExpressApp(new DefaultRequestHandler(card, new InMemoryTaskStore(), executor)).setupRoutes(express());
// Forked by the bench, it reports its port; run by hand (to profile it), it prints it.
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  // The card names where it is served, port included, for a client that reads it (a2a check).
  card.url = `http://127.0.0.1:${port}/`;
  if (process.send) process.send({ port });
  else console.error(`listening on http://127.0.0.1:${port}/`);
});
// Exit normally on SIGTERM so that --cpu-prof can write its profile.
process.on('SIGTERM', () => process.exit(0));
