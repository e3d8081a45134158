import type { Sampler, SpanProcessor } from "@opentelemetry/sdk-trace-node";
import type { Logger } from "../logger";

export type Tracing = {
  /** False when tracing stayed off: nothing was loaded or registered. */
  readonly enabled: boolean;
  /** Flushes what is buffered and unregisters: call it before the process exits. */
  shutdown(): Promise<void>;
};

export type TracingOptions = {
  /** service.name unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
  serviceName: string;
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Instead of the exporters the environment names (tests: an InMemorySpanExporter in a SimpleSpanProcessor). */
  spanProcessors?: SpanProcessor[];
};

const OFF: Tracing = { enabled: false, shutdown: async () => {} };

/**
 * Whether the standard OpenTelemetry environment asks for traces: an OTLP endpoint, or
 * OTEL_TRACES_EXPORTER naming an exporter; OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none win.
 */
export function tracingRequested(env: Record<string, string | undefined>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = tracesExporters(env);
  if (exporters.length > 0) return !exporters.includes("none");
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * Turns tracing on for this process when the environment asks for it (tracingRequested), or when
 * span processors are passed in: registers a Node tracer provider (AsyncLocalStorage context, W3C
 * trace context propagation) exporting with OTLP over HTTP/protobuf — the OTLP default — to
 * OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, or to the console for OTEL_TRACES_EXPORTER=console. Off,
 * it loads nothing: the engine's spans stay the API's no-ops.
 */
export async function startTracing(options: TracingOptions): Promise<Tracing> {
  const env = options.env ?? process.env;
  if (!options.spanProcessors && !tracingRequested(env)) return OFF;
  if (await providerAlreadyRegistered()) {
    // The embedding program set up OpenTelemetry itself (its own SDK, an auto-instrumentation
    // --import): the engine's spans already go there, and a second registration would be refused.
    options.logger?.info("tracing: using the tracer provider this process registered already");
    return OFF;
  }
  const node = await import("@opentelemetry/sdk-trace-node");
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = await import("@opentelemetry/resources");
  const processors = options.spanProcessors ?? (await processorsFromEnv(env, options.logger));
  if (processors.length === 0) return OFF;
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": options.serviceName }))
    // envDetector reads process.env itself: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the default name.
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new node.NodeTracerProvider({ resource, spanProcessors: processors, sampler: samplerFromEnv(env, node) });
  provider.register();
  options.logger?.info("tracing on", { exporters: options.spanProcessors ? ["custom"] : tracesExportersOrDefault(env) });
  return {
    enabled: true,
    async shutdown() {
      await provider
        .shutdown()
        .catch((error: unknown) => options.logger?.warn("tracing shutdown failed", { error: String(error) }));
      // Unregistered, so a later startTracing in the same process (tests, a restarted embedder) takes effect.
      const api = await import("@opentelemetry/api");
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
}

/**
 * Whether a tracer provider is registered already: the API's no-op tracer hands out spans with the
 * invalid (all-zero) context, any SDK's tracer valid IDs, recording or not. (Not by class name:
 * bundlers rename classes.) The probe span is never ended, so it is never exported.
 */
async function providerAlreadyRegistered(): Promise<boolean> {
  const { isSpanContextValid, ROOT_CONTEXT, trace } = await import("@opentelemetry/api");
  const probe = trace.getTracer("@runifold/sdk/probe").startSpan("probe", {}, ROOT_CONTEXT);
  return isSpanContextValid(probe.spanContext());
}

async function processorsFromEnv(env: Record<string, string | undefined>, logger?: Logger): Promise<SpanProcessor[]> {
  const node = await import("@opentelemetry/sdk-trace-node");
  const processors: SpanProcessor[] = [];
  for (const name of tracesExportersOrDefault(env)) {
    if (name === "otlp") {
      const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf";
      if (protocol !== "http/protobuf")
        logger?.warn("only OTLP over HTTP/protobuf is built in; exporting with it", { requested: protocol });
      const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
      // The exporter reads the endpoint, headers, timeout and compression from OTEL_EXPORTER_OTLP_* itself.
      processors.push(new node.BatchSpanProcessor(new OTLPTraceExporter()));
    } else if (name === "console") processors.push(new node.SimpleSpanProcessor(new node.ConsoleSpanExporter()));
    else logger?.warn("unknown OTEL_TRACES_EXPORTER entry ignored", { exporter: name });
  }
  return processors;
}

function tracesExporters(env: Record<string, string | undefined>): string[] {
  return (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
}

function tracesExportersOrDefault(env: Record<string, string | undefined>): string[] {
  const named = tracesExporters(env);
  return named.length > 0 ? named : ["otlp"];
}

/** OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG as the specification defines them; default parentbased_always_on. */
function samplerFromEnv(env: Record<string, string | undefined>, node: typeof import("@opentelemetry/sdk-trace-node")): Sampler {
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG ?? "1");
  const ratioSampler = () => new node.TraceIdRatioBasedSampler(Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : 1);
  switch ((env.OTEL_TRACES_SAMPLER ?? "").trim().toLowerCase()) {
    case "always_on":
      return new node.AlwaysOnSampler();
    case "always_off":
      return new node.AlwaysOffSampler();
    case "traceidratio":
      return ratioSampler();
    case "parentbased_always_off":
      return new node.ParentBasedSampler({ root: new node.AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new node.ParentBasedSampler({ root: ratioSampler() });
    default:
      return new node.ParentBasedSampler({ root: new node.AlwaysOnSampler() });
  }
}
