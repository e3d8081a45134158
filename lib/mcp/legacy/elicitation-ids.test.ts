import { describe, expect, it } from "vitest";
import { elicitationRequestId, parseElicitationRequestId } from "./elicitation-ids";

const TASK = "3f1d2c4b-1111-4222-8333-444455556666";

describe("elicitation request IDs", () => {
  it("are derived from task and key alone, so any instance routes the answer and a re-send reuses the ID", () => {
    expect(elicitationRequestId(TASK, "decision")).toBe(`rf-input:${TASK}:decision`);
    expect(elicitationRequestId(TASK, "decision")).toBe(elicitationRequestId(TASK, "decision"));
  });

  it("parse back to task and key, keys with colons included", () => {
    for (const key of ["decision", "a:b:c", "ünïcode", "x".repeat(200)])
      expect(parseElicitationRequestId(elicitationRequestId(TASK, key)), key).toEqual({ taskId: TASK, key });
  });

  it("refuse anything that is not one of ours", () => {
    const refused: unknown[] = [
      7,
      null,
      undefined,
      { id: TASK },
      "",
      TASK,
      `other:${TASK}:decision`,
      `rf-input:${TASK}`,
      `rf-input:${TASK}:`,
      "rf-input:not-a-uuid:decision",
      `rf-input:${TASK.toUpperCase().replace(/-/g, "")}:decision`,
      `rf-input:${TASK}:${"k".repeat(1_000)}`,
    ];
    for (const id of refused) expect(parseElicitationRequestId(id), String(id).slice(0, 60)).toBeUndefined();
  });
});
