import type { InputRequest } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { approvalForm } from "../approvals";
import { askMode, inboxQuestionUrl, urlElicitationParams } from "./url-input";

const TASK = "3f1d2c4b-1111-4222-8333-444455556666";
const form = {
  method: "elicitation/create",
  params: { message: "Approve?", requestedSchema: { type: "object", properties: {} } },
} as InputRequest;

describe("URL-mode input", () => {
  it("points at the question's console page, the key encoded", () => {
    expect(inboxQuestionUrl("https://ops.example/", TASK, "decision")).toBe(`https://ops.example/inbox/${TASK}/decision`);
    expect(inboxQuestionUrl("https://ops.example/base", TASK, "a b/c")).toBe(`https://ops.example/base/inbox/${TASK}/a%20b%2Fc`);
  });

  it("asks in URL mode only a client that declared URL mode without form, and only with a public URL", () => {
    expect(askMode({ elicitation: {} }, form, "https://ops.example")).toBe("as-is");
    expect(askMode({ elicitation: { form: {}, url: {} } }, form, "https://ops.example")).toBe("as-is");
    expect(askMode({ elicitation: { url: {} } }, form, "https://ops.example")).toBe("url");
    expect(askMode({ elicitation: { url: {} } }, form, undefined)).toBeUndefined();
    expect(askMode({}, form, "https://ops.example")).toBeUndefined();
    expect(askMode({ sampling: {} }, form, "https://ops.example")).toBeUndefined();
  });

  it("carries the message and the page, never the schema", () => {
    const params = urlElicitationParams(form, { publicUrl: "https://ops.example", taskId: TASK, key: "k", elicitationId: "e1" });
    expect(params).toEqual({
      mode: "url",
      message: expect.stringContaining("Approve?"),
      url: `https://ops.example/inbox/${TASK}/k`,
      elicitationId: "e1",
    });
    expect(urlElicitationParams(form, { publicUrl: "https://ops.example", taskId: TASK, key: "k" })).not.toHaveProperty(
      "elicitationId",
    );
  });

  it("points a URL-only client at the console's Approvals page for an approval, not the inbox", () => {
    const approval = approvalForm({ key: "pay", message: "Pay 300 EUR?", requestedSchema: undefined });
    const params = urlElicitationParams(approval, { publicUrl: "https://rf.example.com/", taskId: "t-1", key: "pay" });
    expect(params).toMatchObject({ mode: "url", url: "https://rf.example.com/approvals" });
    expect(params.message).toContain("Decide this approval");
  });
});
