import { describe, expect, it } from "vitest";
import { McpProtocolError } from "./errors";
import { fromLegacy, fromModern, terminalOutcome, toolResult } from "./normalize";

const base = { taskId: "t-1", createdAt: "2026-03-01T12:00:00Z", lastUpdatedAt: "2026-03-01T12:00:05Z" };

describe("fromModern (2026-07-28 DetailedTask)", () => {
  it("keeps ttlMs and pollIntervalMs, and the status as the wire said it", () => {
    expect(fromModern({ ...base, status: "working", ttlMs: 60_000, pollIntervalMs: 500 })).toEqual({
      ...base,
      status: "working",
      wireStatus: "working",
      ttlMs: 60_000,
      pollIntervalMs: 500,
      era: "modern",
    });
  });

  it("reads a completed task's result without the envelope's resultType, and an isError result as completed", () => {
    const view = fromModern({
      ...base,
      status: "completed",
      result: { resultType: "complete", content: [{ type: "text", text: "done" }], isError: true },
    });
    expect(view.result).toEqual({ content: [{ type: "text", text: "done" }], isError: true });
    expect(terminalOutcome(view)).toMatchObject({ kind: "completed", isError: true });
  });

  it("gives a failed task its JSON-RPC error, or one from its status message", () => {
    const error = { code: -32603, message: "boom", data: { step: "a" } };
    expect(fromModern({ ...base, status: "failed", error }).error).toEqual(error);
    expect(fromModern({ ...base, status: "failed", statusMessage: "it broke" }).error).toEqual({
      code: -32603,
      message: "it broke",
    });
  });

  it("lists the outstanding input requests of an input_required task", () => {
    const inputRequests = { decision: { method: "elicitation/create", params: { message: "ok?" } } };
    expect(fromModern({ ...base, status: "input_required", inputRequests }).inputRequests).toEqual(inputRequests);
    expect(fromModern({ ...base, status: "input_required" }).inputRequests).toEqual({});
  });

  it("treats missing or non-numeric lifetimes as unlimited / unset, and a missing lastUpdatedAt as createdAt", () => {
    const view = fromModern({
      taskId: "t",
      status: "working",
      createdAt: base.createdAt,
      ttlMs: "soon",
      pollIntervalMs: Number.NaN,
    });
    expect(view.ttlMs).toBeNull();
    expect(view).not.toHaveProperty("pollIntervalMs");
    expect(view.lastUpdatedAt).toBe(base.createdAt);
  });

  it("refuses a malformed task as a protocol error", () => {
    for (const raw of [null, [], "task", { status: "working" }, { taskId: "t" }, { taskId: "t", status: "running" }])
      expect(() => fromModern(raw), JSON.stringify(raw)).toThrow(McpProtocolError);
  });
});

describe("fromLegacy (2025-11-25 Task)", () => {
  it("maps ttl and pollInterval", () => {
    expect(fromLegacy({ ...base, status: "working", ttl: 30_000, pollInterval: 1_000 })).toMatchObject({
      ttlMs: 30_000,
      pollIntervalMs: 1_000,
      era: "legacy",
    });
    expect(fromLegacy({ ...base, status: "working", ttl: null }).ttlMs).toBeNull();
  });

  it("normalizes a failed task that has a tool result to completed with isError, keeping the wire status", () => {
    const view = fromLegacy({ ...base, status: "failed" }, { result: { content: [{ type: "text", text: "rejected" }] } });
    expect(view).toMatchObject({ status: "completed", wireStatus: "failed", result: { isError: true } });
    expect(terminalOutcome(view)).toMatchObject({ kind: "completed", isError: true });
  });

  it("keeps a failed task without a tool result failed, with the error from tasks/result or a default", () => {
    const error = { code: -32603, message: "crashed" };
    expect(fromLegacy({ ...base, status: "failed" }, { error })).toMatchObject({ status: "failed", error });
    expect(fromLegacy({ ...base, status: "failed", statusMessage: "gone" }).error).toEqual({ code: -32603, message: "gone" });
  });

  it("attaches the elicitations seen on the task only while it is input_required", () => {
    const inputRequests = { name: { method: "elicitation/create" } };
    expect(fromLegacy({ ...base, status: "input_required" }, { inputRequests }).inputRequests).toEqual(inputRequests);
    expect(fromLegacy({ ...base, status: "working" }, { inputRequests })).not.toHaveProperty("inputRequests");
  });
});

describe("toolResult and terminalOutcome", () => {
  it("gives a result without content an empty content list", () => {
    expect(toolResult({ structuredContent: { a: 1 } })).toEqual({ structuredContent: { a: 1 }, content: [] });
    expect(toolResult(undefined)).toEqual({ content: [] });
  });

  it("is undefined while a task is active, and names how it ended otherwise", () => {
    expect(terminalOutcome(fromModern({ ...base, status: "working" }))).toBeUndefined();
    expect(terminalOutcome(fromModern({ ...base, status: "input_required" }))).toBeUndefined();
    expect(terminalOutcome(fromModern({ ...base, status: "cancelled" }))).toMatchObject({ kind: "cancelled" });
    expect(terminalOutcome(fromModern({ ...base, status: "completed" }))).toMatchObject({
      kind: "completed",
      result: { content: [] },
      isError: false,
    });
  });
});
