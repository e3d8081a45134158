import { describe, expect, it } from "vitest";
import { AFTER_SIGN_IN, callbackPathFromQuery, safeCallbackPath } from "./safe-callback";

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

describe("callbackPathFromQuery (the login page's server-side callback)", () => {
  it("keeps the path of next-auth's absolute URL after a failed sign-in, and of a relative one", () => {
    expect(callbackPathFromQuery("http://127.0.0.1:4160/oauth/authorize?client_id=x")).toBe("/oauth/authorize?client_id=x");
    expect(callbackPathFromQuery("/tasks?status=working")).toBe("/tasks?status=working");
  });

  it("never leaves the origin: another origin's URL names only a path here; tricks fall back", () => {
    expect(callbackPathFromQuery("https://evil.example/phish")).toBe("/phish");
    for (const value of [
      "https://evil.example//evil.example/x",
      "//evil.example",
      "/\\evil.example",
      "javascript:alert(1)",
      undefined,
    ])
      expect(callbackPathFromQuery(value)).toBe(AFTER_SIGN_IN);
    expect(callbackPathFromQuery(["/a", "/b"])).toBe("/a");
  });
});
