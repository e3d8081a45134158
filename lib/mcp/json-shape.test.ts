import { describe, expect, it } from "vitest";
import { inspectJson, MAX_JSON_DEPTH } from "./json-shape";

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value };
  return value;
}

describe("inspectJson", () => {
  it("accepts ordinary messages and nesting up to the limit", () => {
    expect(inspectJson({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: { a: [1, "x"] } } })).toEqual({
      tooDeep: false,
      hasNul: false,
    });
    expect(inspectJson(nested(MAX_JSON_DEPTH, "leaf")).tooDeep).toBe(false);
  });

  it("flags nesting past the limit, however deep (no recursion to overflow)", () => {
    expect(inspectJson(nested(MAX_JSON_DEPTH + 1, "leaf")).tooDeep).toBe(true);
    expect(inspectJson(JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)).tooDeep).toBe(true);
  });

  it("finds U+0000 in strings and keys at any depth within the limit", () => {
    expect(inspectJson(nested(MAX_JSON_DEPTH - 1, "a\u0000b")).hasNul).toBe(true);
    expect(inspectJson({ params: { "k\u0000": 1 } }).hasNul).toBe(true);
    expect(inspectJson({ params: { k: "plain" } }).hasNul).toBe(false);
  });
});
