// Baseline (a): bare Express with express.json(), answering the same Task-shaped JSON an echo
// agent answers, and a bare SSE loop writing the same frames a stream carries.
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
