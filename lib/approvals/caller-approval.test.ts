import { describe, expect, it } from "vitest";
import { validateInputResponse } from "../tasks";
import { approvalForm } from "./caller-approval";

const form = approvalForm({
  key: "pay",
  message: "Pay 300 EUR?",
  requestedSchema: {
    type: "object",
    properties: { costCentre: { type: "string" }, decision: { type: "number" } },
    required: ["costCentre", "decision"],
  },
});

describe("an approval's decision form", () => {
  it("asks decision and comment beside the approval's own fields, which never override them", () => {
    expect(form.params.requestedSchema).toMatchObject({
      properties: {
        decision: { type: "string", enum: ["approve", "reject"] },
        comment: { type: "string", maxLength: 2000 },
        costCentre: { type: "string" },
      },
      required: ["decision", "costCentre"],
    });
    const answer = (content: Record<string, string>) => validateInputResponse("pay", form, { action: "accept", content });
    expect(answer({ decision: "approve", costCentre: "42" }).ok).toBe(true);
    expect(answer({ decision: "maybe", costCentre: "42" }).ok).toBe(false);
    expect(answer({ decision: "approve" }).ok).toBe(false);
  });
});
