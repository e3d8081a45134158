import type { InputRequest } from "@runifold/sdk";
import { describe, expect, it } from "vitest";
import { answerableInputRequests, canAsk, elicitationModes } from "./input-capabilities";

const form = {
  method: "elicitation/create",
  params: { message: "?", requestedSchema: { type: "object", properties: {} } },
} as InputRequest;
const explicitForm = { ...form, params: { ...form.params, mode: "form" } } as InputRequest;
const url = { method: "elicitation/create", params: { mode: "url", message: "?", url: "https://x" } } as unknown as InputRequest;

describe("client/elicitation.mdx capabilities", () => {
  it("reads the declared modes; an empty object is form only", () => {
    expect(elicitationModes({})).toEqual({ form: false, url: false });
    expect(elicitationModes({ elicitation: {} })).toEqual({ form: true, url: false });
    expect(elicitationModes({ elicitation: { form: {} } })).toEqual({ form: true, url: false });
    expect(elicitationModes({ elicitation: { url: {} } })).toEqual({ form: false, url: true });
    expect(elicitationModes({ elicitation: { form: {}, url: {} } })).toEqual({ form: true, url: true });
    expect(elicitationModes({ elicitation: true })).toEqual({ form: false, url: false });
  });

  it("never asks in a mode the client did not declare", () => {
    expect(canAsk({}, form)).toBe(false);
    expect(canAsk({ elicitation: {} }, form)).toBe(true);
    expect(canAsk({ elicitation: {} }, explicitForm)).toBe(true);
    expect(canAsk({ elicitation: {} }, url)).toBe(false);
    expect(canAsk({ elicitation: { url: {} } }, form)).toBe(false);
    expect(canAsk({ elicitation: { url: {} } }, url)).toBe(true);
    expect(canAsk({ sampling: {} }, { method: "sampling/createMessage", params: {} } as unknown as InputRequest)).toBe(true);
    expect(canAsk({ elicitation: {} }, { method: "sampling/createMessage", params: {} } as unknown as InputRequest)).toBe(false);
  });

  it("keeps only the answerable requests", () => {
    expect(Object.keys(answerableInputRequests({ a: form, b: url }, { elicitation: { form: {} } }))).toEqual(["a"]);
  });
});
