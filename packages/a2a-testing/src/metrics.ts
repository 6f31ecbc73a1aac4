// Reading an agent's /metrics as Prometheus would: the whole text format parsed by a parser made
// for it (prom2json's output), then one figure looked up by name and labels.
import parsePrometheusTextFormat, { type PromFamily, type PromSample } from 'parse-prometheus-text-format';

export interface Scrape {
  readonly families: PromFamily[];
  /** A counter's or gauge's value: the sum of its samples that have these labels (among others); 0 when none. */
  value(name: string, labels?: Record<string, string>): number;
  /** A histogram's count, summed over its samples that have these labels; 0 when none. */
  count(name: string, labels?: Record<string, string>): number;
  /** The family's type as the text declares it. */
  type(name: string): string | undefined;
}

/** GETs `url` (a /metrics endpoint) and parses it; fails on a non-200 or a wrong content type. */
export async function scrape(url: string, init: { headers?: Record<string, string> } = {}): Promise<Scrape> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  const type = response.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain')) throw new Error(`${url} answered ${type}, not the text format`);
  return parseScrape(await response.text());
}

export function parseScrape(text: string): Scrape {
  const families = parsePrometheusTextFormat(text);
  // The parser folds a histogram's series into one sample and loses their labels when they have
  // any; read with the histograms' TYPE lines left out, each series (`_bucket`, `_count`, `_sum`)
  // is a family of its own, every sample with its labels.
  const series = parsePrometheusTextFormat(text.replace(/^# TYPE \S+ histogram$/gm, ''));
  // A histogram's series alternate (each label set's buckets, sum and count in turn), so one
  // name may head several families: every one is read.
  const samples = (name: string, labels: Record<string, string>): PromSample[] =>
    series
      .filter((family) => family.name === name)
      .flatMap((family) => family.metrics)
      .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value));
  const sum = (values: (string | undefined)[]) => values.reduce((total, value) => total + Number(value ?? 0), 0);
  return {
    families,
    value: (name, labels = {}) => sum(samples(name, labels).map((sample) => sample.value)),
    count: (name, labels = {}) => sum(samples(`${name}_count`, labels).map((sample) => sample.value)),
    type: (name) => families.find((family) => family.name === name)?.type,
  };
}
