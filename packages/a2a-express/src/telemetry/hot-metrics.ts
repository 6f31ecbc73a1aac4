// The two metrics every call touches, kept in plain numbers. prom-client's own histogram checks
// and hashes its labels on every observation: profiled under load, that was three per cent of
// the agent's CPU for a call's duration and its turn's. Here each series is found once per label
// set and an observation is a bucket search and three additions. The registry reads them at
// scrape time through the same `get()` as its own metrics (the shape `getMetricsAsJSON` gives),
// so the text Prometheus scrapes is prom-client's, written by prom-client.
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

/** One label set of a histogram: a count per bucket (not yet cumulative), their sum and count. */
export interface HistogramSeries {
  readonly labels: Labels;
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

interface MetricValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

/** What a prom-client registry reads of a metric. */
interface RegistryMetric {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly aggregator: string;
  get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: string };
  reset(): void;
}

function register(registry: Registry, metric: RegistryMetric): void {
  // prom-client reads any metric through get(); its types only name its own classes.
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}

export class HotHistogram implements RegistryMetric {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    register(registry, this);
  }

  /** The series of these labels, made on first use: hold on to it, and observe into it. */
  seriesOf(key: string, labels: Labels): HistogramSeries {
    let series = this.series.get(key);
    if (!series) {
      series = { labels, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    return series;
  }

  observe(series: HistogramSeries, value: number): void {
    const { buckets } = this;
    let bucket = 0;
    while (bucket < buckets.length && value > buckets[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += value;
    series.count++;
  }

  get() {
    const values: MetricValue[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      for (let bucket = 0; bucket <= this.buckets.length; bucket++) {
        cumulative += counts[bucket]!;
        const le = bucket < this.buckets.length ? String(this.buckets[bucket]) : '+Inf';
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const series of this.series.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}

/** A counter of label sets made once each; `inc` adds to a held series. */
export class HotCounter implements RegistryMetric {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, { labels: Labels; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    register(registry, this);
  }

  seriesOf(key: string, labels: Labels): { value: number } {
    let series = this.series.get(key);
    if (!series) {
      series = { labels, value: 0 };
      this.series.set(key, series);
    }
    return series;
  }

  get() {
    const values = [...this.series.values()].map(({ labels, value }) => ({ labels, value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const series of this.series.values()) series.value = 0;
  }
}
