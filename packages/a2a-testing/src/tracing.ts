// The OpenTelemetry SDK as a test registers it: spans kept in memory, the async-hooks context
// manager, W3C trace context and baggage (as serveAgent's SDK propagates them), and (if asked) the instrumentation of fetch that serveAgent
// registers, so a handler's own HTTP calls are spans too.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

export type { ReadableSpan };

export interface InMemoryTracing {
  readonly exporter: InMemorySpanExporter;
  /** The spans ended so far. */
  spans(): ReadableSpan[];
  /** The span's parent among `spans`, if it is there. */
  parentOf(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan | undefined;
  /** Every span above this one among `spans`, nearest first. */
  ancestors(span: ReadableSpan, spans: ReadableSpan[]): ReadableSpan[];
  /** Registers the instrumentation of fetch (from now on); returns what unregisters it. */
  instrumentFetch(): () => void;
  /**
   * Unregisters everything (in afterAll). Tracers obtained before stay no-ops after it, even under
   * a provider registered later: one registration per test file.
   */
  stop(): Promise<void>;
}

/** Registers the SDK globally, for this test file. */
export function startInMemoryTracing({ instrumentFetch = false } = {}): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  const register = () => registerInstrumentations({ instrumentations: [new UndiciInstrumentation()] });
  const stopInstrumentation = instrumentFetch ? register() : () => {};
  const parentOf = (span: ReadableSpan, spans: ReadableSpan[]) =>
    span.parentSpanContext && spans.find((s) => s.spanContext().spanId === span.parentSpanContext!.spanId);
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    parentOf,
    ancestors(span, spans) {
      const chain: ReadableSpan[] = [];
      for (let at = parentOf(span, spans); at; at = parentOf(at, spans)) chain.push(at);
      return chain;
    },
    instrumentFetch: register,
    async stop() {
      stopInstrumentation();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
