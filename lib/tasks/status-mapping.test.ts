import { RUN_STATUSES, type RunStatus } from "@runifold/sdk/states";
import { describe, expect, it } from "vitest";
import { isTerminalTaskStatus, type TaskStatus, taskStatus } from "./status-mapping";

type Record = Parameters<typeof taskStatus>[0];
const ASK = {
  method: "elicitation/create",
  params: { message: "Approve?", requestedSchema: { type: "object", properties: {} } },
} as const;
const record = (status: RunStatus, extra: Partial<Record> = {}): Record => ({
  status,
  terminal: undefined,
  pendingInputs: status === "waiting_input" ? { decision: ASK } : undefined,
  ...extra,
});

describe("run status → task status", () => {
  it("maps the active run states to working and waiting for input to input_required, in both eras", () => {
    const expected: Partial<globalThis.Record<RunStatus, TaskStatus>> = {
      queued: "working",
      leased: "working",
      sleeping: "working",
      waiting_signal: "working",
      waiting_input: "input_required",
    };
    for (const era of ["modern", "legacy"] as const)
      for (const [status, task] of Object.entries(expected))
        expect(taskStatus(record(status as RunStatus), era), status).toBe(task);
  });

  it("keeps terminal states word for word", () => {
    for (const status of ["completed", "failed", "cancelled"] as const) {
      expect(taskStatus(record(status), "modern")).toBe(status);
      expect(taskStatus(record(status), "legacy")).toBe(status);
    }
  });

  it("reports a tool result with isError as completed in the extension and failed in 2025-11-25", () => {
    const errored = record("completed", { terminal: { result: { content: [], isError: true } } } as Partial<Record>);
    expect(taskStatus(errored, "modern")).toBe("completed");
    expect(taskStatus(errored, "legacy")).toBe("failed");
    const fine = record("completed", { terminal: { result: { content: [] } } } as Partial<Record>);
    expect(taskStatus(fine, "legacy")).toBe("completed");
  });

  it("reports waiting_input with nothing outstanding as working (it is about to resume)", () => {
    expect(taskStatus(record("waiting_input", { pendingInputs: undefined }), "modern")).toBe("working");
    expect(taskStatus(record("waiting_input", { pendingInputs: undefined }), "legacy")).toBe("working");
  });

  it("calls exactly the terminal run statuses terminal", () => {
    const statuses = new Set(RUN_STATUSES.map((status) => taskStatus(record(status), "modern")));
    expect([...statuses].filter(isTerminalTaskStatus).sort()).toEqual(["cancelled", "completed", "failed"]);
    expect(isTerminalTaskStatus("working")).toBe(false);
    expect(isTerminalTaskStatus("input_required")).toBe(false);
  });
});
