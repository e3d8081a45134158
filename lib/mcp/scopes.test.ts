import { describe, expect, it } from "vitest";
import type { Principal, Scope } from "../auth";
import { InsufficientScope, requireMethodScopes } from "./scopes";

const as = (scopes: Scope[]): Principal => ({ tenantId: "t", tenantSlug: "t", keyId: "k", actor: "key:k", scopes, maxTtlMs: 1 });
const refused = (scopes: Scope[], method: string) => {
  try {
    requireMethodScopes(as(scopes), method);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InsufficientScope);
    return (error as InsufficientScope).scope;
  }
};

describe("the MCP scope table (both eras)", () => {
  it("requires mcp for every request, and each task method's own scope on top", () => {
    expect(refused(["tasks:read", "tasks:write"], "tools/list")).toBe("mcp");
    expect(refused(["tasks:read", "tasks:write"], "server/discover")).toBe("mcp");
    expect(refused(["mcp"], "tools/call")).toBeUndefined();
    for (const method of ["tasks/get", "tasks/result", "tasks/list"]) {
      expect(refused(["mcp", "tasks:write"], method), method).toBe("tasks:read");
      expect(refused(["mcp", "tasks:read"], method), method).toBeUndefined();
    }
    for (const method of ["tasks/cancel", "tasks/update"]) {
      expect(refused(["mcp", "tasks:read"], method), method).toBe("tasks:write");
      expect(refused(["tasks:write"], method), method).toBe("mcp");
    }
  });
});
