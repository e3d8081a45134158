import { transformSync } from "esbuild";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { normaliseSource } from "./code-fingerprint";

/** A workflow module as a team writes it: comments, single quotes, trailing commas, types. */
const SOURCE = `
export const run = async (ctx: { step(key: string, fn: () => unknown): Promise<unknown> }, input: { id: string }) => {
  // Load first: the charge needs the total.
  const total = await ctx.step('load', () => ({ id: input.id, path: "a/b", re: /\\/+$/.test(input.id) }),);
  /* The charge itself. */
  if (typeof total === 'object') {
    await ctx.step(\`charge-\${input.id}\`, () => 1 / 2);
  }
  return { content: [], structuredContent: { total, done: 'it\\'s done' } };
};
`;

/** The text of `run` after a compiler emitted the module and Node loaded it. */
function runSourceOf(js: string): string {
  const module = { exports: {} as { run?: unknown } };
  new Function("module", "exports", js)(module, module.exports);
  return String(module.exports.run);
}

function viaEsbuild(source: string) {
  return runSourceOf(transformSync(source, { loader: "ts", format: "cjs", target: "node20" }).code);
}

function viaTsc(source: string) {
  return runSourceOf(
    ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } })
      .outputText,
  );
}

describe("the code fingerprint's normal form", () => {
  it("is the same for one source run through tsx (esbuild) and compiled by tsc", () => {
    const esbuilt = viaEsbuild(SOURCE);
    const compiled = viaTsc(SOURCE);
    expect(esbuilt).not.toBe(compiled); // the two emit different text ...
    expect(normaliseSource(esbuilt)).toBe(normaliseSource(compiled)); // ... of the same code
  });

  it("ignores whitespace and comments, and sees any other edit", () => {
    const base = normaliseSource(viaTsc(SOURCE));
    const reformatted = SOURCE.replace("// Load first: the charge needs the total.", "// reworded").replace(
      "if (typeof total === 'object') {",
      "if (typeof total === 'object')   {  /* spacing */",
    );
    expect(normaliseSource(viaTsc(reformatted))).toBe(base);
    expect(normaliseSource(viaEsbuild(reformatted))).toBe(base);
    expect(normaliseSource(viaTsc(SOURCE.replace("'load'", "'load-all'")))).not.toBe(base);
    expect(normaliseSource(viaTsc(SOURCE.replace("1 / 2", "1 / 3")))).not.toBe(base);
  });

  it("keeps what is inside strings, templates and regular expressions, and normalises a template's expressions", () => {
    // JavaScript source as text: the `${ c }` is a template's placeholder in the code under test.
    const source = ["a = 'x  // y' ; b = `t  /* u */ $", "{ c }` ; d = /  \\/ /g"].join("");
    expect(normaliseSource(source)).toBe(['a="x  // y"b=`t  /* u */ $', "{c}`d=/  \\/ /g"].join(""));
    expect(normaliseSource("return  x / 2 / y")).toBe("return x/2/y");
    expect(normaliseSource("f(a, b,\n)")).toBe("f(a,b)");
  });

  it("reads an imported name the same whichever loader rewrote it, and a lone arrow parameter with or without parentheses", () => {
    const plain = normaliseSource("throw new WorkflowFailure(x); list.find((v) => v > 1); go(async (w) => w)");
    expect(normaliseSource("throw new __vite_ssr_import_0__.WorkflowFailure(x); list.find(v => v > 1); go(async w => w)")).toBe(
      plain,
    );
    expect(normaliseSource("throw new (0, import_sdk.WorkflowFailure)(x)\nlist.find(v => v > 1)\ngo(async (w) => w)")).toBe(
      plain,
    );
  });
});
