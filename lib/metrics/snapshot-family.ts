import type { Metric } from "prom-client";
import { webRegistry } from "./registry";

type Labels = Record<string, string | number>;
/** One sample as prom-client's registry formats it; `metricName` for a histogram's _bucket, _sum and _count lines. */
export type SnapshotSample = { labels: Labels; value: number; metricName?: string };

/**
 * A family whose samples are set whole from a store read at scrape time (store-gauges.ts), of any
 * type — a counter or a histogram whose totals live in the store (approval_settle_stats), which
 * prom-client's own Counter and Histogram cannot take as given (they only count what this process
 * observed). Registered in the web registry like any family; the registry calls `get()` when it
 * formats a scrape.
 */
export type SnapshotFamily = { set(samples: SnapshotSample[]): void; reset(): void };

export function snapshotFamily(family: { name: string; help: string; type: "counter" | "histogram" }): SnapshotFamily {
  const registry = webRegistry();
  const existing = registry.getSingleMetric(family.name) as unknown as SnapshotFamily | undefined;
  if (existing) return existing;
  let samples: SnapshotSample[] = [];
  const metric = {
    name: family.name,
    help: family.help,
    type: family.type,
    aggregator: "sum",
    get: async () => ({ name: family.name, help: family.help, type: family.type, aggregator: "sum", values: samples }),
    set(next: SnapshotSample[]) {
      samples = next;
    },
    reset() {
      samples = [];
    },
  };
  registry.registerMetric(metric as unknown as Metric);
  return metric;
}

/**
 * The samples of one histogram series from cumulative bucket counts (one per bound, in order),
 * the count (the +Inf bucket) and the sum — Prometheus's text format for a histogram.
 */
export function histogramSamples(
  name: string,
  labels: Labels,
  bounds: readonly number[],
  series: { buckets: readonly number[]; count: number; sum: number },
): SnapshotSample[] {
  return [
    ...bounds.map((le, i) => ({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: series.buckets[i] ?? 0 })),
    { metricName: `${name}_bucket`, labels: { ...labels, le: "+Inf" }, value: series.count },
    { metricName: `${name}_sum`, labels, value: series.sum },
    { metricName: `${name}_count`, labels, value: series.count },
  ];
}
