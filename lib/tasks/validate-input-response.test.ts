import type { InputRequest } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { validateInputResponse } from "./validate-input-response";

const decision: InputRequest = {
  method: "elicitation/create",
  params: {
    mode: "form",
    message: "Approve?",
    requestedSchema: {
      type: "object",
      properties: {
        decision: { type: "string", enum: ["approve", "reject"], default: "approve" },
        comment: { type: "string", maxLength: 5 },
        count: { type: "integer" },
      },
      required: ["decision"],
    },
  },
} as InputRequest;

describe("answers checked against the request's requestedSchema", () => {
  it("accepts a matching answer, and any decline or cancel", () => {
    expect(validateInputResponse("d", decision, { action: "accept", content: { decision: "approve" } })).toEqual({ ok: true });
    expect(validateInputResponse("d", decision, { action: "decline" })).toEqual({ ok: true });
    expect(validateInputResponse("d", decision, { action: "cancel" })).toEqual({ ok: true });
  });

  it("refuses an unknown enum value, a wrong type, a missing required field (even one with a default)", () => {
    const cases: [Record<string, unknown> | undefined, string][] = [
      [{ decision: "maybe" }, 'decision: must be one of "approve", "reject"'],
      [{ decision: "approve", count: "3" }, "count: must be integer"],
      [{ decision: "approve", comment: "too long" }, "comment: must NOT have more than 5 characters"],
      [{ comment: "ok" }, "decision: required"],
      [undefined, "decision: required"],
    ];
    for (const [content, message] of cases) {
      const check = validateInputResponse("d", decision, { action: "accept", content } as never);
      expect(check, JSON.stringify(content)).toEqual({ ok: false, message: `Invalid answer to input request "d": ${message}` });
    }
  });

  it("lets a request without a schema (URL mode) take any content", () => {
    const url = {
      method: "elicitation/create",
      params: { mode: "url", message: "Open", url: "https://x" },
    } as unknown as InputRequest;
    expect(validateInputResponse("u", url, { action: "accept", content: { anything: 1 } })).toEqual({ ok: true });
  });
});
