// Prometheus metrics of an agent, with prom-client: the Prometheus project's own client for Node.
// It needs no SDK and no exporter process, writes the text format Prometheus scrapes, and each
// router (or test) gets a registry of its own, so two routers in one process never collide.
// OpenTelemetry metrics with a Prometheus exporter were the other choice: they would have
// brought the metrics SDK into every app that installs the kit, for the same text at the end.
//
// Every label value is from a bounded set: a version, a binding, a method of the version's
// table (anything else is `other`), an error code, a task state, an outcome word. Never a task
// id, a context id, a principal or a URL.
import type { NodeStyleResponse } from './health.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type HistogramSeries, HotCounter, HotHistogram } from './hot-metrics.js';

/** Options of {@link a2aMetrics}. */
export interface A2AMetricsOptions {
  /** Where the metrics are registered. Default: a registry of their own. */
  registry?: Registry;
  /** Put before every metric's name. Default `a2a_`. */
  prefix?: string;
  /**
   * Also collect the process's own metrics (CPU, memory, event loop lag, GC; prom-client's
   * defaults, with the same prefix left off as Prometheus expects: `process_*`, `nodejs_*`).
   * Default false: an app may collect them already.
   */
  processMetrics?: boolean;
}

/** What a call came over: JSON-RPC or HTTP+JSON (REST). */
export type BindingName = 'jsonrpc' | 'rest' | 'grpc';

/** What a front end or a worker reports of the store's turn queue at each scrape. */
export interface TurnQueueWatch {
  /** Turns queued, and milliseconds since the oldest was. */
  figures(): Promise<{ depth: number; oldestAgeMs: number }>;
  /** Workers alive (by their heartbeats in the store). */
  liveWorkers(): Promise<number>;
  /** On a worker: the turns it runs now. */
  running?: () => number;
}

/** What the in-memory store reports at each scrape. */
interface StoreFigures {
  tasks: number;
  bytes: number;
}

// Seconds. Calls and deliveries are mostly fast; streams and turns may last minutes.
const CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const TURN_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

/**
 * What marks an {@link A2AMetrics}, for the options to know one without importing this module
 * (and prom-client, which needs Node) on the fetch handler's path.
 */
export const METRICS_MARK = Symbol.for('a2a-express.metrics');

/**
 * The options with `metrics: true` replaced by new metrics: what Node's entries (`a2aRouter`,
 * `a2aNodeHandler`, `a2aAgent`) do before making the agent. The fetch handler does not (prom-client
 * needs Node): it takes the metrics made with {@link a2aMetrics}.
 */
export function withMetricsMade<T extends { metrics?: boolean | A2AMetrics }>(options: T): T {
  return options?.metrics === true ? { ...options, metrics: new A2AMetrics() } : options;
}

/**
 * The metrics of one agent: `a2aRouter(handler, { metrics: true })` makes them, or give the
 * router one made here (to choose the registry or the prefix, or to share a registry). Serve
 * them with {@link A2AMetrics.handler}.
 */
export class A2AMetrics {
  readonly [METRICS_MARK] = true;
  readonly registry: Registry;
  private readonly calls: HotCounter;
  private readonly callSeconds: HotHistogram;
  private readonly turnSeconds: HotHistogram;
  private readonly streamsOpen: Gauge<'version'>;
  private readonly streamEvents: Counter<'version'>;
  private readonly evictions: Counter<'bound'>;
  private readonly pushDeliveries: Counter<'outcome'>;
  private readonly pushRetries: Counter;
  private readonly pushSeconds: Histogram<'outcome'>;
  private readonly redisSeconds: Histogram<'command'>;
  private readonly redisErrors: Counter<'command'>;
  private readonly postgresSeconds: Histogram<'operation'>;
  private readonly postgresErrors: Counter<'operation'>;
  private readonly drains: Counter;
  private readonly draining: Gauge;
  private readonly interruptedTurns: Counter<'action' | 'reason'>;
  /** The turn queue read at each scrape (a front end's or a worker's); undefined for none. */
  private turnQueue: TurnQueueWatch | undefined;
  /** The scrape's reading of it, shared by its gauges: one read of the store per scrape. */
  private turnQueueReading: Promise<{ depth: number; oldestAgeMs: number; live: number } | undefined> | undefined;
  /** The in-memory stores whose size is read at each scrape. */
  private readonly stores = new Set<() => StoreFigures>();
  /** A call's series, found once per version, binding and method: a call builds no label object. */
  private readonly callSeries = new Map<string, { ok: { value: number }; seconds: HistogramSeries }>();
  /** A turn's series, by the state it ended in. */
  private readonly turnSeries = new Map<string, HistogramSeries>();

  constructor(options: A2AMetricsOptions = {}) {
    const registry = options.registry ?? new Registry();
    const prefix = options.prefix ?? 'a2a_';
    const registers = [registry];
    this.registry = registry;
    // Touched by every call: kept in plain numbers (hot-metrics.ts), read by the registry as its own.
    this.calls = new HotCounter(
      `${prefix}calls_total`,
      'A2A calls answered, by protocol version, binding (jsonrpc or rest), method and outcome (ok, or the error code sent)',
      registry,
    );
    this.callSeconds = new HotHistogram(
      `${prefix}call_duration_seconds`,
      'Time from a call arriving to its answer sent; for a stream, to the stream ending',
      CALL_BUCKETS,
      registry,
    );
    this.turnSeconds = new HotHistogram(
      `${prefix}turn_duration_seconds`,
      "Time the agent's handler took for one turn of a task, by the state the turn ended in",
      TURN_BUCKETS,
      registry,
    );
    this.streamsOpen = new Gauge({
      name: `${prefix}streams_open`,
      help: 'SSE streams open now, by protocol version',
      labelNames: ['version'],
      registers,
    });
    this.streamEvents = new Counter({
      name: `${prefix}stream_events_total`,
      help: 'Events sent on SSE streams, by protocol version (counted when each stream ends)',
      labelNames: ['version'],
      registers,
    });
    const stores = this.stores;
    const storeTotal = (key: keyof StoreFigures) => {
      let total = 0;
      for (const figures of stores) total += figures()[key];
      return total;
    };
    // Read at each scrape, from the stores being watched.
    new Gauge({
      name: `${prefix}store_tasks`,
      help: 'Tasks held by the in-memory task store',
      registers,
      collect() {
        this.set(storeTotal('tasks'));
      },
    });
    new Gauge({
      name: `${prefix}store_bytes`,
      help: 'Bytes the in-memory task store counts for the tasks it holds (their JSON length)',
      registers,
      collect() {
        this.set(storeTotal('bytes'));
      },
    });
    this.evictions = new Counter({
      name: `${prefix}store_evictions_total`,
      help: 'Idle tasks the in-memory store evicted before their retention ended, by the bound that forced it (maxTasks, maxBytes)',
      labelNames: ['bound'],
      registers,
    });
    this.pushDeliveries = new Counter({
      name: `${prefix}push_deliveries_total`,
      help: 'Push notifications, by outcome: delivered (2xx), rejected (4xx), failed (after every retry), refused (the URL guard), dropped (queue full)',
      labelNames: ['outcome'],
      registers,
    });
    this.pushRetries = new Counter({
      name: `${prefix}push_retries_total`,
      help: 'Push notification attempts retried after a 5xx or a network failure',
      registers,
    });
    this.pushSeconds = new Histogram({
      name: `${prefix}push_delivery_duration_seconds`,
      help: 'Time from a push notification being queued to its outcome, retries included',
      labelNames: ['outcome'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.redisSeconds = new Histogram({
      name: `${prefix}redis_command_duration_seconds`,
      help: "Time of the Redis task store's commands, by command",
      labelNames: ['command'],
      buckets: STORE_BUCKETS,
      registers,
    });
    this.redisErrors = new Counter({
      name: `${prefix}redis_errors_total`,
      help: "The Redis task store's commands that failed, by command",
      labelNames: ['command'],
      registers,
    });
    this.postgresSeconds = new Histogram({
      name: `${prefix}postgres_operation_duration_seconds`,
      help: "Time of the PostgreSQL task store's operations (each one or a few statements), by operation",
      labelNames: ['operation'],
      buckets: STORE_BUCKETS,
      registers,
    });
    this.postgresErrors = new Counter({
      name: `${prefix}postgres_errors_total`,
      help: "The PostgreSQL task store's operations that failed, by operation",
      labelNames: ['operation'],
      registers,
    });
    this.drains = new Counter({
      name: `${prefix}drains_total`,
      help: 'Graceful shutdowns begun (the router refusing new calls while its turns finish)',
      registers,
    });
    this.draining = new Gauge({
      name: `${prefix}draining`,
      help: '1 once the router drains (it refuses new calls from then on), else 0',
      registers,
    });
    this.draining.set(0);
    this.interruptedTurns = new Counter({
      name: `${prefix}turns_interrupted_total`,
      help: 'Turns whose process was lost, taken over by this process: by what it did (resumed: its handler runs again here; failed: not resumable, or out of attempts) and why the turn was lost (crash: its lease ran out)',
      labelNames: ['action', 'reason'],
      registers,
    });
    const metrics = this;
    // Read at each scrape from the store, when this agent is a front end or a worker: unset when
    // it is neither, or the store could not be read.
    const fromQueue = (help: string, name: string, pick: (read: { depth: number; oldestAgeMs: number; live: number }) => number) =>
      new Gauge({
        name: `${prefix}${name}`,
        help,
        registers,
        async collect() {
          const read = await metrics.readTurnQueue();
          if (read === undefined) this.reset();
          else this.set(pick(read));
        },
      });
    fromQueue(
      'Turns queued in the task store for a worker and not yet claimed by one (role front-end or worker)',
      'turn_queue_depth',
      (read) => read.depth,
    );
    fromQueue(
      'Seconds since the oldest turn still queued was queued; 0 when none is (role front-end or worker)',
      'turn_queue_oldest_age_seconds',
      (read) => read.oldestAgeMs / 1000,
    );
    fromQueue('Workers alive, by their heartbeats in the task store (role front-end or worker)', 'workers_live', (read) => read.live);
    new Gauge({
      name: `${prefix}worker_turns_running`,
      help: 'Turns whose handlers this worker runs now (role worker), at most its maxConcurrentTurns',
      registers,
      collect() {
        const running = metrics.turnQueue?.running;
        if (running) this.set(running());
        else this.reset();
      },
    });
    if (options.processMetrics) collectDefaultMetrics({ register: registry });
  }

  /** Reports the store's turn queue at each scrape (a front end, a worker); the returned function stops it. */
  watchTurnQueue(watch: TurnQueueWatch): () => void {
    this.turnQueue = watch;
    this.turnQueueReading = undefined;
    return () => {
      if (this.turnQueue === watch) this.turnQueue = undefined;
    };
  }

  private readTurnQueue(): Promise<{ depth: number; oldestAgeMs: number; live: number } | undefined> {
    const watch = this.turnQueue;
    if (!watch) return Promise.resolve(undefined);
    // The gauges of one scrape are collected together: they share the reading in flight.
    if (this.turnQueueReading !== undefined) return this.turnQueueReading;
    const value = Promise.all([watch.figures(), watch.liveWorkers()]).then(
      ([figures, live]) => ({ ...figures, live }),
      () => undefined,
    );
    this.turnQueueReading = value;
    void value.then(() => {
      if (this.turnQueueReading === value) this.turnQueueReading = undefined;
    });
    return value;
  }

  /**
   * Serves the metrics in Prometheus' text format: mount it where Prometheus scrapes
   * (`app.get('/metrics', router.metrics.handler)`).
   */
  readonly handler = (_req: unknown, res: NodeStyleResponse): void => {
    this.registry.metrics().then(
      (text) => {
        res.statusCode = 200;
        res.setHeader('Content-Type', this.registry.contentType);
        res.setHeader('Cache-Control', 'no-store');
        res.end(text);
      },
      () => {
        res.statusCode = 500;
        res.setHeader('Content-Type', 'text/plain');
        res.end('metrics could not be collected\n');
      },
    );
  };

  /** One call answered; `code` is the error code sent, undefined when it went well. */
  callEnded(version: string, binding: BindingName, method: string, code: number | undefined, seconds: number): void {
    const key = `${version}\0${binding}\0${method}`;
    let series = this.callSeries.get(key);
    if (!series) {
      series = {
        ok: this.calls.seriesOf(`${key}\0ok`, { version, binding, method, outcome: 'ok' }),
        seconds: this.callSeconds.seriesOf(key, { version, binding, method }),
      };
      this.callSeries.set(key, series);
    }
    if (code === undefined) series.ok.value++;
    else this.calls.seriesOf(`${key}\0${code}`, { version, binding, method, outcome: String(code) }).value++;
    this.callSeconds.observe(series.seconds, seconds);
  }

  turnEnded(state: string, seconds: number): void {
    let series = this.turnSeries.get(state);
    if (!series) {
      series = this.turnSeconds.seriesOf(state, { state });
      this.turnSeries.set(state, series);
    }
    this.turnSeconds.observe(series, seconds);
  }

  streamOpened(version: string): void {
    this.streamsOpen.inc({ version });
  }

  streamClosed(version: string, events: number): void {
    this.streamsOpen.dec({ version });
    if (events > 0) this.streamEvents.inc({ version }, events);
  }

  /** Reads an in-memory store's size at each scrape; the returned function stops it. */
  watchStore(figures: () => StoreFigures): () => void {
    this.stores.add(figures);
    return () => this.stores.delete(figures);
  }

  storeEvicted(bound: string): void {
    this.evictions.inc({ bound });
  }

  pushEnded(outcome: PushOutcome, seconds: number): void {
    this.pushDeliveries.inc({ outcome });
    if (outcome !== 'dropped') this.pushSeconds.observe({ outcome }, seconds);
  }

  pushRetried(): void {
    this.pushRetries.inc();
  }

  redisCommand(command: string, seconds: number, failed: boolean): void {
    this.redisSeconds.observe({ command }, seconds);
    if (failed) this.redisErrors.inc({ command });
  }

  postgresOperation(operation: string, seconds: number, failed: boolean): void {
    this.postgresSeconds.observe({ operation }, seconds);
    if (failed) this.postgresErrors.inc({ operation });
  }

  /** A turn whose process was lost was taken over here: run again, or failed. */
  turnInterrupted(action: 'resumed' | 'failed', reason: 'crash' | 'hand-over'): void {
    this.interruptedTurns.inc({ action, reason });
  }

  drainStarted(): void {
    this.drains.inc();
    this.draining.set(1);
  }
}

/** What a task store reports (see `TaskStore.useMetrics`). */
export type StoreMetrics = Pick<A2AMetrics, 'watchStore' | 'storeEvicted' | 'redisCommand' | 'postgresOperation'>;

/** How one push notification ended. */
export type PushOutcome = 'delivered' | 'rejected' | 'failed' | 'refused' | 'dropped';

/** Makes the metrics of an agent (see {@link A2AMetrics}). */
export function a2aMetrics(options?: A2AMetricsOptions): A2AMetrics {
  return new A2AMetrics(options);
}
