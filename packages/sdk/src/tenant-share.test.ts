import { describe, expect, it } from "vitest";
import { DEFAULT_TENANT_SHARE, tenantCap } from "./tenant-share";

describe("a tenant's default cap", () => {
  it("is a share of the fleet's slots, at least one run, so a slot stays for another tenant", () => {
    expect(tenantCap(16, DEFAULT_TENANT_SHARE)).toBe(12);
    expect(tenantCap(32, DEFAULT_TENANT_SHARE)).toBe(24);
    expect(tenantCap(4, DEFAULT_TENANT_SHARE)).toBe(3);
    expect(tenantCap(2, DEFAULT_TENANT_SHARE)).toBe(1);
    expect(tenantCap(1, DEFAULT_TENANT_SHARE)).toBe(1);
  });

  it("is none at a share of 1, and refuses a share outside (0, 1]", () => {
    expect(tenantCap(16, 1)).toBeUndefined();
    expect(() => tenantCap(16, 0)).toThrow(RangeError);
    expect(() => tenantCap(16, 1.5)).toThrow(RangeError);
    expect(() => tenantCap(16, Number.NaN)).toThrow(RangeError);
  });
});
