import { createLogger, startTracing } from "@runifold/sdk";
import { readEnv } from "../env";

/**
 * Tracing for the web process, when the standard OTEL_* environment asks for it (docs/observability.md):
 * called once from instrumentation.ts, before the first request. Next's own request spans go to the
 * same provider (Next uses @opentelemetry/api when a provider is registered).
 */
export async function startWebTelemetry(): Promise<void> {
  const logger = createLogger("telemetry", readEnv().RUNIFOLD_LOG_LEVEL);
  await startTracing({ serviceName: "runifold-web", logger });
}
