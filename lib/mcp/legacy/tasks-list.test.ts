import { describe, expect, it } from "vitest";
import type { Principal } from "../../auth";
import { McpError } from "../json-rpc";
import { decodeCursor, encodeCursor } from "./tasks-list";

const principal = (keyId: string): Principal => ({
  tenantId: "7c0e3f9a-0000-4000-8000-000000000001",
  tenantSlug: "acme",
  keyId,
  actor: `key:${keyId}`,
  scopes: ["mcp", "tasks:read"],
  maxTtlMs: 86_400_000,
});
const mine = principal("0123456789abcdef");
const position = { createdAt: new Date("2026-03-01T12:34:56.789Z"), id: "3f1d2c4b-1111-4222-8333-444455556666" };

/** -32602 "Invalid cursor" (tasks.mdx "Protocol Errors"), the only way a cursor is refused. */
function refused(cursor: unknown, as = mine) {
  try {
    decodeCursor(cursor, as);
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32602, message: "Invalid cursor" });
    return true;
  }
  return false;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("tasks/list cursors", () => {
  it("round-trip the keyset position for the key they were issued to", () => {
    const cursor = encodeCursor(position, mine);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, mine)).toEqual(position);
  });

  it("are refused for another key, even of the same tenant", () => {
    expect(refused(encodeCursor(position, mine), principal("fedcba9876543210"))).toBe(true);
  });

  it("refuse anything malformed", () => {
    const claims = { v: 1, k: mine.keyId, t: position.createdAt.toISOString(), i: position.id };
    const bad: unknown[] = [
      "",
      42,
      null,
      "not base64!",
      "x".repeat(401),
      Buffer.from("not json").toString("base64url"),
      b64({ ...claims, v: 2 }),
      b64({ ...claims, i: "not-a-uuid" }),
      b64({ ...claims, t: 12 }),
      b64({ ...claims, t: "yesterday" }),
      b64({ ...claims, t: "2026-03-01T12:34:56Z" }), // a valid date, but not the form we issue
      b64([claims]),
    ];
    for (const cursor of bad) expect(refused(cursor), String(cursor).slice(0, 40)).toBe(true);
    expect(refused(b64(claims))).toBe(false);
  });
});
