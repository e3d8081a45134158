import { describe, expect, it } from "vitest";
import { WorkflowMisuse } from "./errors";
import { encodeJson, storableText, unstorableTextPath } from "./json-value";

describe("encodeJson", () => {
  it.each([
    ["U+0000 in a string", { a: "x\u0000y" }, "a"],
    ["an unpaired high surrogate", { list: ["ok", "\ud83d"] }, "list.1"],
    ["an unpaired low surrogate", "\udc00", ""],
    ["U+0000 in a key", { "k\u0000": 1 }, "k\uFFFD"],
    ["U+0000 after an escaped backslash", { a: "\\\u0000" }, "a"],
  ])("refuses %s as not_serialisable, naming where", (_, value, path) => {
    let refused: unknown;
    try {
      encodeJson(value, "step output", 1024);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(WorkflowMisuse);
    expect((refused as WorkflowMisuse).causeCode).toBe("not_serialisable");
    expect(unstorableTextPath(value)).toBe(path);
  });

  it.each([
    ["a paired surrogate (an emoji)", { a: "😀" }],
    ["a backslash followed by the text u0000", { a: "\\u0000" }],
    ["two backslashes then u0000", { a: "\\\\u0000 and \\ud800" }],
    ["other control characters", { a: "\u0001\t\n" }],
  ])("keeps %s", (_, value) => {
    expect(encodeJson(value, "step output", 1024).value).toEqual(value);
  });
});

describe("storableText", () => {
  it("cuts by code point, so an emoji at the limit is kept whole or dropped", () => {
    expect(storableText(`${"x".repeat(1999)}😀 tail`, 2000)).toBe(`${"x".repeat(1999)}😀`);
    expect(storableText(`${"x".repeat(1998)}😀😀`, 1999)).toBe(`${"x".repeat(1998)}😀`);
  });

  it("replaces U+0000 and unpaired surrogates with U+FFFD and leaves the rest", () => {
    expect(storableText("a\u0000b\ud800c😀", 100)).toBe("a\uFFFDb\uFFFDc😀");
  });
});
