import { context, ROOT_CONTEXT, type Span, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { REDACTED, redactValue } from "./log-redaction";
import { bindLogger, createLogger } from "./logger";

/** A logger writing into an array, one parsed JSON object per line. */
function capture(level: Parameters<typeof createLogger>[1] = "debug") {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger("test", level, {
    destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

const KEY = `rf_0123456789abcdef_${"s".repeat(43)}`;

describe("createLogger (pino)", () => {
  it("writes one JSON line per entry with level, time, component, message and the fields", () => {
    const { logger, lines } = capture();
    logger.info("worker started", { concurrency: 4 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: "info", component: "test", message: "worker started", concurrency: 4 });
    expect(Date.parse(lines[0]?.time as string)).not.toBeNaN();
  });

  it("drops entries below its level", () => {
    const { logger, lines } = capture("warn");
    logger.info("quiet");
    logger.warn("loud");
    expect(lines.map((line) => line.message)).toEqual(["loud"]);
  });

  it("bound loggers carry runId, workflow, attempt and tenant on every line, a field of the same name winning", () => {
    const { logger, lines } = capture();
    const run = bindLogger(logger, { runId: "r-1", workflow: "greet@1", attempt: 2, tenant: "t-1" });
    run.info("step done", { step: "a" });
    bindLogger(run, { step: "b" }).warn("retrying", { runId: "r-1" });
    expect(lines[0]).toMatchObject({ runId: "r-1", workflow: "greet@1", attempt: 2, tenant: "t-1", step: "a" });
    expect(lines[1]).toMatchObject({ runId: "r-1", workflow: "greet@1", step: "b", message: "retrying" });
  });

  it("redacts tokens, passwords and authorization headers in fields, bindings and the message", () => {
    const { logger, lines } = capture();
    const headers = { authorization: `Bearer ${KEY}`, accept: "application/json" };
    bindLogger(logger, { apiKey: "k-secret" }).error(`rejected ${KEY} from postgres://app:pw-123@db/x`, {
      request: { headers },
      nested: { deeper: { password: "hunter2", refresh_token: "rt-1", note: `key ${KEY} here` } },
      list: [`Bearer abc.def`],
    });
    const line = JSON.stringify(lines[0]);
    for (const secret of ["s".repeat(43), "hunter2", "rt-1", "pw-123", "k-secret", "abc.def"]) expect(line).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      apiKey: REDACTED,
      message: `rejected rf_0123456789abcdef_${REDACTED} from postgres://app:${REDACTED}@db/x`,
      request: { headers: { authorization: REDACTED, accept: "application/json" } },
      nested: { deeper: { password: REDACTED, refresh_token: REDACTED, note: `key rf_0123456789abcdef_${REDACTED} here` } },
      list: [`Bearer ${REDACTED}`],
    });
    // The caller's object is left as it was.
    expect(headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("adds trace_id and span_id while a span is active", () => {
    const { logger, lines } = capture();
    const spanContext = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 };
    const span = trace.wrapSpanContext(spanContext) as Span;
    // Without a registered context manager context.with does not propagate, so the span is read from the given context.
    const active = trace.setSpan(ROOT_CONTEXT, span);
    const original = context.active;
    context.active = () => active;
    try {
      logger.info("inside");
    } finally {
      context.active = original;
    }
    logger.info("outside");
    expect(lines[0]).toMatchObject({ trace_id: spanContext.traceId, span_id: spanContext.spanId, trace_flags: "01" });
    expect(lines[1]?.trace_id).toBeUndefined();
  });
});

describe("redactValue", () => {
  it("survives cycles and deep objects, and turns errors into name and message", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(redactValue(cyclic)).toEqual({ a: 1, self: "[Circular]" });
    const error = new Error(`bad key ${KEY}`);
    expect(redactValue({ error })).toEqual({ error: { name: "Error", message: `bad key rf_0123456789abcdef_${REDACTED}` } });
  });
});
