import { PassThrough } from "node:stream";
import type { InputRequest } from "@runifold/client";
import { describe, expect, it } from "vitest";
import { parseInputs, toInputResponse } from "../../cli/input";
import { promptForInput } from "../../cli/prompt";

const expense: InputRequest = {
  method: "elicitation/create",
  params: {
    message: "Approve expense E-1?",
    requestedSchema: {
      type: "object",
      properties: {
        decision: { type: "string", title: "Decision", enum: ["approve", "reject"], enumNames: ["Approve", "Reject"] },
        amount: { type: "integer", title: "Amount", minimum: 1 },
        urgent: { type: "boolean", title: "Urgent", default: false },
        comment: { type: "string", title: "Comment", maxLength: 5 },
      },
      required: ["decision", "amount"],
    },
  },
};

/** Feeds the given lines to the prompt (as a user would type them) and returns its answer and what it printed. */
async function answer(request: InputRequest, lines: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (chunk) => {
    printed += chunk;
  });
  input.end(lines.map((line) => `${line}\n`).join(""));
  const response = await promptForInput("decision", request, { input, output });
  return { response, printed };
}

describe("interactive input prompts (from the requestedSchema)", () => {
  it("picks enum options by number or label, re-asks invalid values, takes defaults", async () => {
    const { response, printed } = await answer(expense, ["2", "zero", "1.5", "7", "", "too long", "ok"]);
    expect(response).toEqual({ action: "accept", content: { decision: "reject", amount: 7, urgent: false, comment: "ok" } });
    expect(printed).toContain("Approve expense E-1?");
    expect(printed).toContain("1) Approve [approve]");
    expect(printed).toContain("Enter a number");
    expect(printed).toContain("Enter a whole number");
    expect(printed).toContain("At most 5 characters");
  });

  it("accepts a label and y/n; :decline and :cancel refuse; closed input leaves the request open", async () => {
    expect((await answer(expense, ["Approve", "3", "y", ""])).response).toEqual({
      action: "accept",
      content: { decision: "approve", amount: 3, urgent: true },
    });
    expect((await answer(expense, [":decline"])).response).toEqual({ action: "decline" });
    expect((await answer(expense, ["approve", ":cancel"])).response).toEqual({ action: "cancel" });
    expect((await answer(expense, ["approve"])).response).toBeUndefined();
    expect((await answer({ method: "sampling/createMessage", params: {} }, [])).response).toBeUndefined();
  });
});

describe("--input KEY=JSON", () => {
  it("parses values and builds ElicitResults", () => {
    const inputs = parseInputs(['decision={"decision":"approve"}', 'other={"action":"decline"}', 'name="Ada"']);
    expect(toInputResponse("decision", inputs.get("decision"))).toEqual({ action: "accept", content: { decision: "approve" } });
    expect(toInputResponse("other", inputs.get("other"))).toEqual({ action: "decline" });
    const oneField: InputRequest = {
      method: "elicitation/create",
      params: { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
    };
    expect(toInputResponse("name", inputs.get("name"), oneField)).toEqual({ action: "accept", content: { name: "Ada" } });
    expect(() => toInputResponse("name", "Ada", expense)).toThrow(/give the content object/);
    expect(() => parseInputs(["novalue"])).toThrow(/KEY=JSON/);
    expect(() => parseInputs(["k=not json"])).toThrow(/not valid JSON/);
  });
});
