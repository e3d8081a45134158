import { describe, expect, it } from "vitest";
import {
  intOption,
  type OptionSpec,
  option,
  options,
  parseArgs,
  parseJsonOption,
  positionals,
  requiredOption,
  UsageError,
} from "./args";

const SPECS: OptionSpec[] = [
  { name: "tenant", value: "slug", description: "tenant", required: true },
  { name: "input", value: "key=JSON", description: "answers", multiple: true },
  { name: "json", description: "JSON output" },
  { name: "limit", value: "n", description: "page size" },
];

const usage = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("expected a usage error");
};

describe("parseArgs", () => {
  it("reads --name value, --name=value, flags, repeats and positionals", () => {
    const parsed = parseArgs(["get", "--tenant", "acme", "--input=a=1", "--input", "b=2", "--json", "id-1"], SPECS);
    expect(parsed.positionals).toEqual(["get", "id-1"]);
    expect(option(parsed, "tenant")).toBe("acme");
    expect(options(parsed, "input")).toEqual(["a=1", "b=2"]);
    expect(parsed.flags.has("json")).toBe(true);
    expect(parsed.help).toBe(false);
  });

  it("takes everything after -- as positional, dashes included", () => {
    const parsed = parseArgs(["--tenant", "t", "--", "--json", "-x"], SPECS);
    expect(parsed.positionals).toEqual(["--json", "-x"]);
    expect(parsed.flags.size).toBe(0);
  });

  it("keeps a lone - as a positional (stdin)", () => {
    expect(parseArgs(["--tenant", "t", "-"], SPECS).positionals).toEqual(["-"]);
  });

  it("skips the required check when help is asked for", () => {
    expect(parseArgs(["-h"], SPECS).help).toBe(true);
    expect(parseArgs(["--help"], SPECS).help).toBe(true);
  });

  it("refuses unknown options, values on flags, missing values, repeats and missing required options", () => {
    expect(usage(() => parseArgs(["--tenant", "t", "--colour", "red"], SPECS))).toBe("Unknown option --colour");
    expect(usage(() => parseArgs(["--tenant", "t", "-x"], SPECS))).toBe("Unknown option -x");
    expect(usage(() => parseArgs(["--tenant", "t", "--json=yes"], SPECS))).toBe("--json takes no value");
    expect(usage(() => parseArgs(["--tenant"], SPECS))).toBe("--tenant needs a value (slug)");
    expect(usage(() => parseArgs(["--tenant", "a", "--tenant", "b"], SPECS))).toBe("--tenant given more than once");
    expect(usage(() => parseArgs([], SPECS))).toBe("--tenant is required");
  });

  it("takes an empty value given with =", () => {
    expect(option(parseArgs(["--tenant="], SPECS), "tenant")).toBe("");
  });
});

describe("option readers", () => {
  const parsed = (argv: string[]) => parseArgs(["--tenant", "t", ...argv], SPECS);

  it("intOption parses integers within bounds and names the option otherwise", () => {
    expect(intOption(parsed(["--limit", "25"]), "limit", { min: 1, max: 100 })).toBe(25);
    expect(intOption(parsed(["--limit", "-3"]), "limit")).toBe(-3);
    expect(intOption(parsed([]), "limit")).toBeUndefined();
    expect(usage(() => intOption(parsed(["--limit", "0"]), "limit", { min: 1, max: 100 }))).toBe(
      '--limit must be an integer from 1 to 100 (got "0")',
    );
    expect(usage(() => intOption(parsed(["--limit", "2.5"]), "limit", { min: 1 }))).toBe(
      '--limit must be an integer >= 1 (got "2.5")',
    );
    for (const bad of ["abc", "1e3", "", "99999999999999999999"])
      expect(() => intOption(parsed(["--limit", bad]), "limit"), bad).toThrow(UsageError);
  });

  it("requiredOption narrows or refuses", () => {
    expect(requiredOption(parsed([]), "tenant")).toBe("t");
    expect(usage(() => requiredOption(parsed([]), "limit"))).toBe("--limit is required");
  });

  it("positionals names the first missing one and refuses extras unless a rest is allowed", () => {
    const args = parseArgs(["a", "b", "--tenant", "t"], SPECS);
    expect(positionals(args, ["first", "second"])).toEqual(["a", "b"]);
    expect(usage(() => positionals(args, ["first", "second", "third"]))).toBe("Missing <third>");
    expect(usage(() => positionals(args, ["first"]))).toBe('Unexpected argument "b"');
    expect(positionals(args, ["first"], "more")).toEqual(["a", "b"]);
  });

  it("parseJsonOption parses JSON or names what was wrong, shortened", () => {
    expect(parseJsonOption('{"a":1}', "--args")).toEqual({ a: 1 });
    expect(usage(() => parseJsonOption("{a:", "--args"))).toBe("--args is not valid JSON: {a:");
    expect(usage(() => parseJsonOption(`{${"x".repeat(100)}`, "--args"))).toMatch(/^--args is not valid JSON: \{x{59}…$/);
  });
});
