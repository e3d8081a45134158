import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { print, sanitizeTerminalText, terminalSafe } from "./output";

describe("CLI output is terminal-safe (L4)", () => {
  it("makes escape sequences, C1 controls and bidi overrides visible; keeps newlines and tabs", () => {
    const evil = "ok\u001b]52;c;ZXZpbA==\u0007 \u009b2J amount \u202e001\u202c\tdone\n";
    const clean = sanitizeTerminalText(evil);
    for (const char of ["\u001b", "\u0007", "\u009b", "\u202e", "\u202c"]) expect(clean).not.toContain(char);
    expect(clean).toContain("\\u001b]52;c;");
    expect(clean.endsWith("\tdone\n")).toBe(true);
  });

  it("print and a wrapped stream write sanitised text (before: written raw)", () => {
    const out = new PassThrough();
    let text = "";
    out.on("data", (chunk) => {
      text += chunk;
    });
    print(out, "status \u001b[2Kerased");
    terminalSafe(out).write("message \u001b[31mred\n");
    expect(text).not.toContain("\u001b");
  });
});
