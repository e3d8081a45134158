import { collectDefaultMetrics, Registry } from "prom-client";
import type { Logger } from "../logger";
import { type MetricsServer, serveMetrics } from "../telemetry/metrics-server";
import type { WorkerObserver } from "../telemetry/observer";
import { startTracing } from "../telemetry/tracing";
import { createWorkerMetrics } from "../telemetry/worker-metrics";
import type { WorkerEnv } from "./worker-env";

export type WorkerTelemetry = { observer?: WorkerObserver; metricsPort?: number; stop(): Promise<void> };

/**
 * What a worker process exports besides its logs: traces when the OTEL_* environment asks for them,
 * and, with RUNIFOLD_METRICS_PORT set, its metric families (worker-metrics.ts) plus the standard
 * process metrics on GET /metrics. A port already taken (two workers started with one environment)
 * is a warning, not a failed start: the worker's job is the runs.
 */
export async function startWorkerTelemetry(
  env: WorkerEnv,
  rawEnv: Record<string, string | undefined>,
  logger: Logger,
): Promise<WorkerTelemetry> {
  const tracing = await startTracing({ serviceName: "runifold-worker", env: rawEnv, logger });
  if (env.RUNIFOLD_METRICS_PORT === undefined) return { stop: () => tracing.shutdown() };
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const observer = createWorkerMetrics(registry);
  let server: MetricsServer | undefined;
  try {
    server = await serveMetrics({
      registry,
      port: env.RUNIFOLD_METRICS_PORT,
      host: env.HOST,
      token: env.RUNIFOLD_METRICS_TOKEN,
      logger,
    });
    logger.info("metrics served", {
      url: `http://${env.HOST.includes(":") ? `[${env.HOST}]` : env.HOST}:${server.port}/metrics`,
    });
  } catch (error) {
    logger.warn("metrics not served: could not listen", {
      port: env.RUNIFOLD_METRICS_PORT,
      host: env.HOST,
      error: String(error),
    });
  }
  return {
    observer,
    metricsPort: server?.port,
    async stop() {
      await server?.close();
      await tracing.shutdown();
    },
  };
}
