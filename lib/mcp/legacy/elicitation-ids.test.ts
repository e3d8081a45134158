import { describe, expect, it } from "vitest";
import { answerAddress, elicitationRequestId, newStreamTag, parseElicitationRequestId } from "./elicitation-ids";

const TASK = "3f1d2c4b-1111-4222-8333-444455556666";

describe("elicitation request IDs", () => {
  it("differ per stream (a re-sent question never reuses an ID in its session) and name task and key", () => {
    const [a, b] = [newStreamTag(), newStreamTag()];
    expect(a).not.toBe(b);
    expect(elicitationRequestId(TASK, "decision", a)).toBe(`rf-ask:${TASK}:${a}:decision`);
    expect(elicitationRequestId(TASK, "decision", a)).not.toBe(elicitationRequestId(TASK, "decision", b));
  });

  it("parse back to task and key, keys with colons included; so does the stable answer address", () => {
    for (const key of ["decision", "a:b:c", "ünïcode", "x".repeat(200)]) {
      expect(parseElicitationRequestId(elicitationRequestId(TASK, key, newStreamTag())), key).toEqual({ taskId: TASK, key });
      expect(parseElicitationRequestId(answerAddress(TASK, key)), key).toEqual({ taskId: TASK, key });
    }
    expect(answerAddress(TASK, "decision")).toBe(`rf-input:${TASK}:decision`);
  });

  it("mark a URL-mode request's ID, whose response is consent only", () => {
    const tag = newStreamTag();
    expect(elicitationRequestId(TASK, "a:b", tag, "url")).toBe(`rf-url:${TASK}:${tag}:a:b`);
    expect(parseElicitationRequestId(elicitationRequestId(TASK, "a:b", tag, "url"))).toEqual({
      taskId: TASK,
      key: "a:b",
      url: true,
    });
    expect(parseElicitationRequestId(`rf-url:${TASK}:decision`)).toBeUndefined();
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
      `rf-ask:${TASK}:decision`,
      `rf-ask:${TASK}:bad tag:decision`,
      `rf-ask:${TASK}:tag:`,
      "rf-ask:not-a-uuid:tag:decision",
    ];
    for (const id of refused) expect(parseElicitationRequestId(id), String(id).slice(0, 60)).toBeUndefined();
  });
});
