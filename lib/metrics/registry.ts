import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * The web process's one metrics registry: what GET /api/metrics serves. Kept on globalThis so that
 * `next dev` reloads (which re-evaluate modules) reuse it instead of registering every family again.
 */
const holder = globalThis as typeof globalThis & { __runifoldMetrics?: Registry };

export function webRegistry(): Registry {
  if (!holder.__runifoldMetrics) {
    const registry = new Registry();
    // Process metrics (CPU, memory, event-loop lag, GC) under their standard names.
    collectDefaultMetrics({ register: registry });
    holder.__runifoldMetrics = registry;
  }
  return holder.__runifoldMetrics;
}

type Family<L extends string> = { name: string; help: string; labelNames?: readonly L[] };

/**
 * A counter in the web registry, created on first use and the same object afterwards (prom-client
 * refuses a second registration of a name). For families other modules add — OAuth issuance and
 * denials, say: `counter({ name: "runifold_oauth_tokens_issued_total", help: "…", labelNames: ["grant"] })`.
 * Names follow Prometheus conventions (runifold_…_total for counters, _seconds for durations) and
 * labels must stay bounded: never a task, run, key or user ID.
 */
export function counter<L extends string>(family: Family<L>): Counter<L> {
  return existing(family.name) ?? new Counter({ ...family, labelNames: family.labelNames ?? [], registers: [webRegistry()] });
}

export function gauge<L extends string>(family: Family<L>): Gauge<L> {
  return existing(family.name) ?? new Gauge({ ...family, labelNames: family.labelNames ?? [], registers: [webRegistry()] });
}

export function histogram<L extends string>(family: Family<L> & { buckets?: number[] }): Histogram<L> {
  return existing(family.name) ?? new Histogram({ ...family, labelNames: family.labelNames ?? [], registers: [webRegistry()] });
}

function existing<M>(name: string): M | undefined {
  return webRegistry().getSingleMetric(name) as M | undefined;
}
