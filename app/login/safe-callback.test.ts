import { describe, expect, it } from "vitest";
import { AFTER_SIGN_IN, safeCallbackPath } from "./safe-callback";

const ORIGIN = "https://console.example";

describe("callbackUrl after sign-in (M6)", () => {
  it.each([
    "/\\evil.example",
    "/\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "//evil.example",
    "https://evil.example/x",
    "javascript:alert(1)",
    "evil.example",
    "/%5Cevil.example\\",
    "",
  ])("refuses %j", (value) => {
    expect(safeCallbackPath(value, ORIGIN)).toBe(AFTER_SIGN_IN);
  });

  it("keeps a same-origin path with its query", () => {
    expect(safeCallbackPath("/tasks?status=working#top", ORIGIN)).toBe("/tasks?status=working#top");
    expect(safeCallbackPath("/tenants/acme", ORIGIN)).toBe("/tenants/acme");
  });

  it("the old check let these through (each parses to another host)", () => {
    for (const value of ["/\\evil.example", "/\t/evil.example"]) {
      const old = value.startsWith("/") && !value.startsWith("//");
      expect(old).toBe(true);
      expect(new URL(value, ORIGIN).host).toBe("evil.example");
    }
  });
});
