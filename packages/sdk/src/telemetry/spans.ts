import {
  type Attributes,
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { redactString } from "../log-redaction";

/**
 * The engine's spans, through @opentelemetry/api only: with no tracer provider registered (tracing
 * off, the default) every call here is the API's no-op, so the engine pays nothing for them. A
 * process turns tracing on with startTracing (tracing.ts), which registers the provider, the
 * AsyncLocalStorage context manager and the W3C propagator.
 */
export const SDK_TRACER = "@runifold/sdk";

export function tracer() {
  return trace.getTracer(SDK_TRACER);
}

/** A run's stored trace context: the propagation fields (W3C `traceparent`, `tracestate`) as they were injected. */
export type TraceCarrier = Record<string, string>;

/**
 * The active trace context as propagation fields, to store on a run at creation; null when there
 * is none (tracing off, or no span active), so a run row only carries one when it means something.
 */
export function captureTraceContext(active: Context = context.active()): TraceCarrier | null {
  if (!trace.getSpan(active)) return null;
  const carrier: TraceCarrier = {};
  propagation.inject(active, carrier);
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** The context a stored carrier names (its span becomes the parent), or the root context. */
export function contextFromCarrier(carrier: unknown): Context {
  if (typeof carrier !== "object" || carrier === null) return ROOT_CONTEXT;
  const fields: TraceCarrier = {};
  for (const [key, value] of Object.entries(carrier)) if (typeof value === "string") fields[key] = value;
  return propagation.extract(ROOT_CONTEXT, fields);
}

/**
 * Runs `fn` inside a new active span and ends it when `fn` settles; a thrown error marks the span
 * failed (with the exception recorded) and is rethrown unchanged.
 */
export async function inSpan<T>(
  name: string,
  options: { attributes?: Attributes; parent?: Context; kind?: SpanKind },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { attributes: options.attributes, kind: options.kind }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export function markFailed(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  const e = error instanceof Error ? error : new Error(String(error));
  // The same rule as the logs: a secret in an error message must not reach the trace backend either.
  const message = redactString(e.message);
  span.recordException({ name: e.name, message });
  span.setStatus({ code: SpanStatusCode.ERROR, message: message.slice(0, 200) });
}

/** An event on the active span (a durable wait began, …); nothing when no span records. */
export function spanEvent(name: string, attributes?: Attributes): void {
  const span = trace.getSpan(context.active());
  if (span?.isRecording()) span.addEvent(name, attributes);
}
