// The subject: an echo agent on a2aRouter, with schema validation, the in-memory task store
// (default bounds) and pino logging at info all on (to stdout, which the bench discards).
// With BENCH_REDIS_URL set, a replica on a RedisTaskStore under BENCH_REDIS_PREFIX instead; with
// BENCH_POSTGRES_URL, on a PostgresTaskStore in schema BENCH_POSTGRES_SCHEMA. BENCH_ON_INTERRUPTED=resume
// runs it with `onInterrupted: 'resume'`, and BENCH_CHECKPOINTS=1 gives every chunk of a stream a
// checkpoint (what resume costs a turn: docs/replicas.md).
// BENCH_METRICS=1 turns the router's Prometheus metrics on (served at /metrics); BENCH_OTLP_URL
// starts the OpenTelemetry SDK as serveAgent does, exporting every call's spans there.
// Extra routes for the bench only: a handler that streams N chunks, one that holds until
// canceled, and the process's memory after a full GC.
import express from 'express';
import { pino } from 'pino';
import { a2aRouter, artifact, completed, startTracingFromEnv, textOf, withCheckpoint } from 'a2a-express';
import { PostgresTaskStore } from 'a2a-express/postgres';
import { RedisTaskStore } from 'a2a-express/redis';

const checkpoints = process.env.BENCH_CHECKPOINTS === '1';
const handler = async function* (ctx) {
  const text = textOf(ctx.message);
  const stream = /^stream (\d+)$/.exec(text);
  if (stream) {
    const n = Number(stream[1]);
    for (let i = 1; i <= n; i++) {
      const chunk = artifact(`chunk ${i}`, { index: 0, append: i > 1, lastChunk: i === n });
      yield checkpoints ? withCheckpoint(chunk, { chunksSent: i }) : chunk;
    }
  } else if (text === 'hold') {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return;
  } else {
    yield artifact(ctx.message.parts);
  }
  yield completed();
};
const app = express();
app.get('/__bench/memory', (_req, res) => {
  globalThis.gc?.();
  globalThis.gc?.();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  res.json({ rss, heapUsed, heapTotal, external, arrayBuffers });
});
const store = process.env.BENCH_REDIS_URL
  ? new RedisTaskStore({ url: process.env.BENCH_REDIS_URL, prefix: process.env.BENCH_REDIS_PREFIX })
  : process.env.BENCH_POSTGRES_URL
    ? new PostgresTaskStore({ connectionString: process.env.BENCH_POSTGRES_URL, schema: process.env.BENCH_POSTGRES_SCHEMA })
    : undefined;
if (process.env.BENCH_OTLP_URL) {
  const tracing = await startTracingFromEnv('bench-agent', pino({ level: 'warn' }), {
    OTEL_EXPORTER_OTLP_ENDPOINT: process.env.BENCH_OTLP_URL,
  });
  if (!tracing) throw new Error('tracing did not start');
}
const metrics = process.env.BENCH_METRICS === '1';
const onInterrupted = process.env.BENCH_ON_INTERRUPTED === 'resume' ? { onInterrupted: 'resume' } : {};
const router = a2aRouter(handler, {
  card: { name: 'Echo', version: '1.0.0' },
  logger: pino({ level: 'info' }),
  store,
  metrics,
  ...onInterrupted,
});
if (metrics) app.get('/metrics', router.metrics.handler);
app.use(router);
// Forked by the bench, it reports its port; run by hand (to profile it), it prints it.
// BENCH_GRPC=1 serves the router's agent over gRPC too, on a port of its own (reported as grpcPort).
const grpc = process.env.BENCH_GRPC === '1' ? await (await import('a2a-express/grpc')).serveGrpc(router, { port: 0 }) : undefined;
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address();
  if (process.send) process.send({ port, grpcPort: grpc?.port });
  else console.error(`listening on http://127.0.0.1:${port}/${grpc ? ` and gRPC ${grpc.address}` : ''}`);
});
// Exit normally on SIGTERM so that --cpu-prof can write its profile.
process.on('SIGTERM', () => process.exit(0));
