// Starting the OpenTelemetry SDK for an agent run by `serveAgent`, when the standard OTEL_*
// variables ask for traces. The kit itself depends on the API only: the SDK's packages are
// optional peer dependencies, loaded here only when asked for, so an app that never traces
// installs none of them (the sample agents install them).
import { context, diag, propagation, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';

/** The SDK's packages, by what each gives; an app that asks for traces installs them. */
export const TRACING_PACKAGES = [
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
  '@opentelemetry/resources',
  '@opentelemetry/instrumentation',
  '@opentelemetry/instrumentation-undici',
] as const;

type Env = Record<string, string | undefined>;

/**
 * Which exporters the environment asks for, the OpenTelemetry way: `OTEL_TRACES_EXPORTER`
 * (`otlp`, `console`, `none`; a list), else `otlp` when an OTLP endpoint is set; none when
 * `OTEL_SDK_DISABLED=true` or nothing is set.
 */
export function requestedExporters(env: Env = process.env): ('otlp' | 'console')[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return [];
  const named = env.OTEL_TRACES_EXPORTER?.split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (named && named.length > 0) return named.filter((name): name is 'otlp' | 'console' => name === 'otlp' || name === 'console');
  return env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? ['otlp'] : [];
}

/** A started SDK: flush and stop it on shutdown, so the last spans are sent. */
export interface TracingSdk {
  readonly exporters: readonly string[];
  shutdown(): Promise<void>;
}

/**
 * Starts tracing when the environment asks for it: a tracer provider with a batch span processor
 * and the exporters asked for (OTLP over HTTP reads its own `OTEL_EXPORTER_OTLP_*` variables),
 * the W3C trace context and baggage propagators, the async-hooks context manager, and the
 * instrumentation of `fetch` (undici), so that a handler's own HTTP calls are spans of its turn.
 * `service.name` is `OTEL_SERVICE_NAME`, else `serviceName`. Resolves undefined when tracing is
 * not asked for, and when its packages are missing (logged, with the command that installs them).
 */
export async function startTracingFromEnv(serviceName: string, logger: Logger, env: Env = process.env): Promise<TracingSdk | undefined> {
  const exporters = requestedExporters(env);
  if (exporters.length === 0) return undefined;
  let modules: Awaited<ReturnType<typeof loadModules>>;
  try {
    modules = await loadModules();
  } catch (error) {
    logger.warn(
      { err: error, install: `npm install ${TRACING_PACKAGES.join(' ')}` },
      'tracing was asked for (OTEL_*) but the OpenTelemetry SDK is not installed: running without traces',
    );
    return undefined;
  }
  const { sdk, otlp, hooks, core, resources, instrumentation, undici } = modules;
  // The exporter reads the process's OTEL_EXPORTER_OTLP_* itself; the endpoint is taken from
  // `env` here so that a caller's own variables are the ones used.
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  const processors = exporters.map((name) =>
    name === 'otlp'
      ? new sdk.BatchSpanProcessor({ exporter: new otlp.OTLPTraceExporter(url ? { url } : {}) })
      : new sdk.SimpleSpanProcessor({ exporter: new sdk.ConsoleSpanExporter() }),
  );
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.TracerProvider({ resource, spanProcessors: processors, sampler: samplerOf(sdk, env, logger) });
  // An app that set up OpenTelemetry itself (NodeSDK, say) keeps its own: a second SDK would
  // instrument fetch twice.
  if (!trace.setGlobalTracerProvider(provider)) {
    await provider.shutdown();
    logger.info('an OpenTelemetry SDK is registered already: serveAgent leaves tracing to it');
    return undefined;
  }
  // The SDK's own troubles (an exporter that cannot reach its collector) go to our log, once each.
  diag.setLogger(diagnostics(logger), { logLevel: 50 /* WARN */, suppressOverrideMessage: true });
  context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new core.CompositePropagator({ propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()] }),
  );
  const disable = instrumentation.registerInstrumentations({ instrumentations: [new undici.UndiciInstrumentation()] });
  return {
    exporters,
    async shutdown() {
      disable();
      await provider.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'traces could not all be sent at shutdown'));
    },
  };
}

async function loadModules() {
  const [sdk, otlp, hooks, core, resources, instrumentation, undici] = await Promise.all([
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
  return { sdk, otlp, hooks, core, resources, instrumentation, undici };
}

/**
 * The sampler of `OTEL_TRACES_SAMPLER` (and its `_ARG`): `always_on`, `always_off`,
 * `traceidratio`, and each `parentbased_` one. Default `parentbased_always_on`.
 */
function samplerOf(sdk: typeof import('@opentelemetry/sdk-trace'), env: Env, logger: Logger) {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
  const root = (base: string) => {
    if (base === 'always_on') return new sdk.AlwaysOnSampler();
    if (base === 'always_off') return new sdk.AlwaysOffSampler();
    if (base === 'traceidratio') return new sdk.TraceIdRatioBasedSampler(Number.isFinite(ratio) ? Math.min(Math.max(ratio, 0), 1) : 1);
    return undefined;
  };
  const parentBased = name.startsWith('parentbased_');
  const sampler = root(parentBased ? name.slice('parentbased_'.length) : name);
  if (!sampler) {
    logger.warn({ OTEL_TRACES_SAMPLER: name }, 'unknown OTEL_TRACES_SAMPLER: sampling every trace (parentbased_always_on)');
    return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
  }
  return parentBased ? new sdk.ParentBasedSampler({ root: sampler }) : sampler;
}

/** The SDK's diagnostics as our log lines, each distinct message once. */
function diagnostics(logger: Logger) {
  const said = new Set<string>();
  const once = (level: 'warn' | 'error') => (message: string) => {
    if (said.has(message) || said.size > 100) return;
    said.add(message);
    logger[level]({ source: 'opentelemetry' }, message);
  };
  const quiet = () => undefined;
  return { error: once('error'), warn: once('warn'), info: quiet, debug: quiet, verbose: quiet };
}
