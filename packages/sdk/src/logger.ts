import { context, trace } from "@opentelemetry/api";
import pino from "pino";
import { redactString, redactValue } from "./log-redaction";

export type LogFields = Record<string, unknown>;

export type Logger = {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger whose every line also carries `bindings` (runId, workflow, …). Optional: bindLogger covers its absence. */
  child?(bindings: LogFields): Logger;
};

const LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LEVELS)[number];

export type LoggerOptions = {
  /**
   * Where the JSON lines go. Default: process.stderr, written on the caller's turn (synchronous for
   * files and pipes on Linux), so a line logged just before process.exit is not lost.
   */
  destination?: { write(line: string): unknown };
};

/**
 * One JSON line per entry (pino): `level` (a name), `time` (ISO 8601), `component`, `message`,
 * the fields, and `trace_id`/`span_id` while an OpenTelemetry span is active (the names the
 * OpenTelemetry pino instrumentation uses, so log backends link lines to traces). Secrets are
 * removed from the message, the fields and the bindings (log-redaction.ts) before anything is written.
 */
export function createLogger(component: string, level: LogLevel = "info", options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? process.stderr;
  const base = pino(
    {
      level,
      messageKey: "message",
      base: { pid: process.pid, component },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => redactValue(fields) as LogFields,
      },
      mixin: traceFields,
    },
    destination as pino.DestinationStream,
  );
  return wrap(base);
}

/**
 * Bindings are merged into each line's fields (a field of the same name wins) rather than kept as
 * pino child bindings, which would write a key twice when a caller also passes it (`runId`).
 */
function wrap(target: pino.Logger, bindings: LogFields = {}): Logger {
  const write = (lvl: Exclude<LogLevel, "silent">) => (message: string, fields?: LogFields) => {
    if (!target.isLevelEnabled(lvl)) return;
    target[lvl]({ ...bindings, ...fields }, redactString(message));
  };
  return {
    debug: write("debug"),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
    child: (more) => wrap(target, { ...bindings, ...more }),
  };
}

/** The active span's ids, when there is one (with tracing off there never is: no context manager). */
function traceFields(): LogFields {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { trace_id: traceId, span_id: spanId, trace_flags: `0${traceFlags.toString(16)}`.slice(-2) };
}

/** `logger` with `bindings` on every line: its own child when it has one, else a wrapper that merges them in. */
export function bindLogger(logger: Logger, bindings: LogFields): Logger {
  if (logger.child) return logger.child(bindings);
  const merged = (write: (message: string, fields?: LogFields) => void) => (message: string, fields?: LogFields) =>
    write(message, { ...bindings, ...fields });
  return {
    debug: merged(logger.debug.bind(logger)),
    info: merged(logger.info.bind(logger)),
    warn: merged(logger.warn.bind(logger)),
    error: merged(logger.error.bind(logger)),
    child: (more) => bindLogger(logger, { ...bindings, ...more }),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => silentLogger };
