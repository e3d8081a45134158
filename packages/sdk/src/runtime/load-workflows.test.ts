import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type AnyWorkflow, defineWorkflow } from "../workflow";
import { definitionsOf, WorkflowsModuleError } from "./load-workflows";

function definition(name: string, version = 1): AnyWorkflow {
  return defineWorkflow({
    name,
    version,
    input: z.object({}),
    async run() {
      return { content: [] };
    },
  });
}

const keys = (defs: AnyWorkflow[]) => defs.map((d) => `${d.name}@${d.version}`).sort();

describe("definitionsOf", () => {
  it("takes the default export's array", () => {
    expect(keys(definitionsOf({ default: [definition("a"), definition("b")] }, "m.js"))).toEqual(["a@1", "b@1"]);
  });

  it("takes a single default-exported definition", () => {
    expect(keys(definitionsOf({ default: definition("solo") }, "m.js"))).toEqual(["solo@1"]);
  });

  it("counts named exports of definitions and ignores other named exports", () => {
    const found = definitionsOf({ default: [definition("a")], b: definition("b"), helper: () => 1, config: { x: 1 } }, "m.js");
    expect(keys(found)).toEqual(["a@1", "b@1"]);
  });

  it("counts a definition exported both by default and by name once", () => {
    const a = definition("a");
    expect(definitionsOf({ default: [a], a }, "m.js")).toEqual([a]);
  });

  it("serves two versions of one name side by side", () => {
    expect(keys(definitionsOf({ default: [definition("a", 1), definition("a", 2)] }, "m.js"))).toEqual(["a@1", "a@2"]);
  });

  it("refuses a module without definitions, saying what to export", () => {
    for (const exports of [{}, { default: [] }, { helper: () => 1 }]) {
      expect(() => definitionsOf(exports, "m.js")).toThrow(WorkflowsModuleError);
      expect(() => definitionsOf(exports, "m.js")).toThrow(/m\.js exports no workflow definitions: export default \[/);
    }
  });

  it("refuses two different definitions under one name@version, naming it", () => {
    expect(() => definitionsOf({ default: [definition("a")], other: definition("a") }, "m.js")).toThrow(
      /m\.js: two different definitions of a@1/,
    );
  });

  it("refuses an entry of the default array that is not a definition, naming its position", () => {
    expect(() => definitionsOf({ default: [definition("a"), undefined] }, "m.js")).toThrow(
      /m\.js: default export entry 1 is not a workflow definition \(got undefined\)/,
    );
    expect(() => definitionsOf({ default: [{ name: "half" }] }, "m.js")).toThrow(/entry 0 is not a workflow definition/);
  });

  it("refuses an invalid name and a version that is not an integer ≥ 1", () => {
    const shaped = (name: string, version: unknown) => ({
      name,
      version,
      input: z.object({}),
      run: async () => ({ content: [] }),
    });
    expect(() => definitionsOf({ default: [shaped("Bad Name", 1)] }, "m.js")).toThrow(/invalid workflow name "Bad Name"/);
    expect(() => definitionsOf({ default: [shaped("zero", 0)] }, "m.js")).toThrow(/zero has version 0; use an integer ≥ 1/);
    expect(() => definitionsOf({ default: [shaped("frac", 1.5)] }, "m.js")).toThrow(/frac has version 1\.5/);
    expect(() => definitionsOf({ default: [shaped("text", "1")] }, "m.js")).toThrow(/text has version "1"/);
  });
});
