import { describe, expect, it } from "vitest";
import { isBodyStepKey } from "./read-completed-steps";

describe("isBodyStepKey", () => {
  it("keeps the workflow's step keys and their numbered repeats", () => {
    expect(["charge", "book hotel", "repeat:charge#2", "repeat:book hotel#12"].map(isBodyStepKey)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it("leaves out the engine's bookkeeping and the hook's own history", () => {
    const engine = ["sleep:nap", "retry:charge", "now:1", "uuid:2", "child:invoice", "input:ok", "repeat:sleep:x#2"];
    const hook = ["onfailure", "onfailure:undo:charge", "repeat:onfailure:undo:charge#2"];
    expect([...engine, ...hook].filter(isBodyStepKey)).toEqual([]);
  });
});
