import { randomBytes } from "node:crypto";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { createLogger, startTracing, type Tracing } from "@runifold/sdk";
import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webRegistry } from "../../lib/metrics";
import { observeMcpRequests } from "../../lib/server/mcp-route";
import { seedDemo } from "../../workflows/demo/seed";
import { freshDatabase } from "../helpers/db";
import { modernRequest } from "../helpers/mcp-envelope";
import { startMcpTestServer } from "../helpers/mcp-server";
import { modernClient } from "../helpers/modern-client";
import { sampleValue } from "../helpers/prometheus";
import { waitForRunStatus } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";

/**
 * One trace from the caller to the worker: tracing on in this process with an in-memory exporter,
 * the MCP handler wrapped as the web route wraps it (lib/server observeMcpRequests), the in-process
 * worker of the test server executing the run. The caller's trace context travels in the request
 * (`params._meta.traceparent`, or the HTTP `traceparent` header), is stored on the run, and every
 * attempt and step span of the worker joins it.
 */
const exporter = new InMemorySpanExporter();
const logLines: Record<string, unknown>[] = [];

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let server: Awaited<ReturnType<typeof startMcpTestServer>>;
let tracing: Tracing;
let token: string;

beforeAll(async () => {
  tracing = await startTracing({ serviceName: "runifold-test", spanProcessors: [new SimpleSpanProcessor(exporter)] });
  db = await freshDatabase();
  sql = db.sql;
  token = (await seedDemo(sql)).apiKey as string;
  const workerLogger = createLogger("worker", "debug", {
    destination: { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  server = await startMcpTestServer(sql, { wrap: observeMcpRequests, workerLogger });
});
afterAll(async () => {
  await server?.close();
  await tracing?.shutdown();
  await db?.drop();
});

function newTraceparent() {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** A modern tools/call with its own _meta (and optionally extra headers), as a client that traces would send it. */
async function callTool(name: string, args: Record<string, unknown>, meta: Record<string, unknown>, headers = {}) {
  const response = await fetch(
    server.url,
    modernRequest(
      "tools/call",
      { name, arguments: args },
      { token, id: 1, clientInfo: { name: "tracing-test", version: "1" }, meta, headers },
    ),
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { taskId: string } };
  return body.result.taskId;
}

const inTrace = (traceId: string) => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
const parentId = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;

describe("tracing across the MCP request and the worker", () => {
  it("params._meta.traceparent: the MCP span, run creation and every attempt and step span share the caller's trace", async () => {
    const caller = newTraceparent();
    const taskId = await callTool("approve_expense", { expense_id: "E-T", amount: 5 }, { traceparent: caller.traceparent });
    expect((await sql`SELECT trace_context FROM runs WHERE id = ${taskId}`)[0]?.trace_context).toMatchObject({
      traceparent: expect.stringMatching(new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`)),
    });
    await waitForRunStatus(sql, taskId, "waiting_input");
    await modernClient(server.url, { token }).result("tasks/update", {
      taskId,
      inputResponses: { decision: { action: "accept", content: { decision: "approve", comment: "traced" } } },
    });
    await waitForRunStatus(sql, taskId, "completed");

    const spans = await waitFor(
      () => inTrace(caller.traceId),
      (seen) => seen.some((span) => span.name === "runifold.step"),
      { describe: `a worker step span in trace ${caller.traceId}` },
    );
    const mcp = spans.find((span) => span.name === "tools/call approve_expense");
    expect(parentId(mcp)).toBe(caller.spanId);
    expect(mcp?.attributes).toMatchObject({ "mcp.method.name": "tools/call", "runifold.mcp.era": "modern" });
    const created = spans.find((span) => span.name === "runifold.run.create");
    expect(parentId(created)).toBe(mcp?.spanContext().spanId);
    expect(created?.attributes["runifold.run_id"]).toBe(taskId);

    // Two attempts (parked for input, then resumed by the answer), both children of the creation span.
    const attempts = spans.filter((span) => span.name === "runifold.attempt" && span.attributes["runifold.run_id"] === taskId);
    expect(attempts.map((span) => span.attributes["runifold.attempt.outcome"]).sort()).toEqual(["completed", "suspended"]);
    for (const attempt of attempts) expect(parentId(attempt)).toBe(created?.spanContext().spanId);
    const parked = attempts.find((span) => span.attributes["runifold.attempt.outcome"] === "suspended");
    expect(parked?.events.map((event) => event.name)).toContain("runifold.wait.input");
    const resumed = attempts.find((span) => span.attributes["runifold.attempt.outcome"] === "completed");
    // The answer queued the run again; the attempt that picks it up marks where the wait ended.
    expect(resumed?.attributes["runifold.resumed_from"]).toBe("queued");
    expect(resumed?.events.map((event) => event.name)).toContain("runifold.input.answered");

    const step = spans.find((span) => span.name === "runifold.step");
    expect(step?.attributes["runifold.step.key"]).toBe("record-decision");
    expect(parentId(step)).toBe(resumed?.spanContext().spanId);

    // The worker's log lines of those attempts carry the run and the same trace.
    const attemptLines = logLines.filter((line) => line.message === "attempt ended" && line.runId === taskId);
    expect(attemptLines).toHaveLength(2);
    for (const line of attemptLines)
      expect(line).toMatchObject({ workflow: "approve-expense@1", tenant: expect.any(String), trace_id: caller.traceId });
  });

  it("the HTTP traceparent header when the message carries none", async () => {
    const caller = newTraceparent();
    const taskId = await callTool(
      "durable_report",
      { report_id: "traced", settle_ms: 10 },
      {},
      { traceparent: caller.traceparent },
    );
    await waitForRunStatus(sql, taskId, "completed");
    const spans = await waitFor(
      () => inTrace(caller.traceId),
      (seen) => seen.filter((span) => span.name === "runifold.step").length >= 2,
      { describe: `the report's step spans in trace ${caller.traceId}` },
    );
    expect(parentId(spans.find((span) => span.name === "tools/call durable_report"))).toBe(caller.spanId);
    expect(spans.filter((span) => span.name === "runifold.attempt").length).toBeGreaterThanOrEqual(1);
  });

  it("counts the requests by era, method and outcome", async () => {
    const text = await webRegistry().metrics();
    const calls = sampleValue(text, "runifold_mcp_requests_total", { era: "modern", method: "tools/call", outcome: "ok" });
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(sampleValue(text, "runifold_mcp_requests_total", { era: "modern", method: "tasks/update", outcome: "ok" })).toBe(1);
    expect(sampleValue(text, "runifold_mcp_request_duration_seconds_count", { era: "modern", method: "tools/call" })).toBe(calls);
    // A method nobody defined is labelled "other" (answered 404 with a JSON-RPC error).
    const response = await modernClient(server.url, { token }).request("made/up", {});
    expect(response.body.error).toBeDefined();
    const after = await waitFor(
      () => webRegistry().metrics(),
      (seen) =>
        sampleValue(seen, "runifold_mcp_requests_total", { era: "modern", method: "other", outcome: "client_error" }) === 1,
      { describe: "the unknown method to be counted as other/client_error" },
    );
    expect(after).not.toContain("made/up");
  });
});
