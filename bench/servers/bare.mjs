// Baseline (a): bare Express with express.json(), answering the same Task-shaped JSON an echo
// agent answers, and a bare SSE loop writing the same frames a stream carries.
import { randomUUID } from 'node:crypto';
import express from 'express';
import { cannedAnswer } from './canned-task.mjs';

const app = express();
app.post('/', express.json({ limit: '10mb' }), (req, res) => {
  res.json(cannedAnswer(req.body));
});
// Writes n frames shaped like a2aRouter's artifact events, respecting backpressure.
app.get('/sse', async (req, res) => {
  const n = Number(req.query.n);
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  for (let i = 1; i <= n; i++) {
    const event = {
      jsonrpc: '2.0',
      id: 1,
      result: { id: 'bare', artifact: { parts: [{ type: 'text', text: `chunk ${i}` }], index: 0, append: i > 1 } },
    };
    if (!res.write(`id: ${i}\ndata: ${JSON.stringify(event)}\n\n`)) await new Promise((r) => res.once('drain', r));
  }
  res.end();
});
// The floor under any 0.3 `message/stream` on Express: the body parsed, then the events the SDK's
// server sends for "stream N" (the Task, N artifact-update chunks, the final status), each in its
// JSON-RPC envelope and its own JSON.stringify, all of them in one write. No task kept, nothing
// checked or copied: bench:shipped --streams sets it beside the SDK and the kit.
app.post('/stream-0.3', express.json(), (req, res) => {
  const { id, params } = req.body;
  const chunks = Number(/^stream (\d+)$/.exec(params.message.parts[0].text)?.[1] ?? 1);
  const taskId = randomUUID();
  const contextId = randomUUID();
  const frame = (result) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
  const status = (state) => ({ state, timestamp: new Date().toISOString() });
  let frames = frame({
    kind: 'task',
    id: taskId,
    contextId,
    status: status('submitted'),
    history: [{ ...params.message, taskId, contextId }],
  });
  for (let i = 1; i <= chunks; i++) {
    const artifact = { artifactId: 'echo', parts: [{ kind: 'text', text: `chunk ${i}` }] };
    frames += frame({ kind: 'artifact-update', taskId, contextId, artifact, append: i > 1, lastChunk: i === chunks });
  }
  frames += frame({ kind: 'status-update', taskId, contextId, status: status('completed'), final: true });
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  res.end(frames);
});
// An idle stream: headers sent, then nothing, like a resubscription to a quiet task.
app.get('/idle', (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  res.write(': open\n\n');
});
app.get('/__bench/memory', (_req, res) => {
  globalThis.gc?.();
  globalThis.gc?.();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  res.json({ rss, heapUsed, heapTotal, external, arrayBuffers });
});
// Forked by the bench, it reports its port; run by hand (to profile it), it prints it.
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  if (process.send) process.send({ port });
  else console.error(`listening on http://127.0.0.1:${port}/`);
});
// Exit normally on SIGTERM so that --cpu-prof can write its profile.
process.on('SIGTERM', () => process.exit(0));
