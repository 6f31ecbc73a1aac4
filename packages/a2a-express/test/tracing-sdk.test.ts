// When serveAgent starts the OpenTelemetry SDK: only when the OTEL_* variables ask for traces,
// and never over an SDK the app registered itself (fetch would be instrumented twice).
import { startInMemoryTracing } from 'a2a-testing/tracing';
import { requestedExporters, startTracingFromEnv } from '../src/index.js';
import { memoryLogger } from './helpers.js';

test.each([
  [{}, []],
  [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, ['otlp']],
  [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, ['otlp']],
  [{ OTEL_TRACES_EXPORTER: 'console' }, ['console']],
  [{ OTEL_TRACES_EXPORTER: 'otlp, console' }, ['otlp', 'console']],
  [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, []],
  [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, []],
])('the environment %j asks for %j', (env, exporters) => {
  expect(requestedExporters(env)).toEqual(exporters);
});

test('nothing asked: nothing started', async () => {
  expect(await startTracingFromEnv('agent', memoryLogger().logger, {})).toBeUndefined();
});

test('an SDK the app registered already is left as it is, and the log says so', async () => {
  const tracing = startInMemoryTracing();
  try {
    const { logger, lines } = memoryLogger();
    expect(await startTracingFromEnv('agent', logger, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toBeUndefined();
    expect(lines().map((line) => line.msg)).toContain('an OpenTelemetry SDK is registered already: serveAgent leaves tracing to it');
  } finally {
    await tracing.stop();
  }
});
