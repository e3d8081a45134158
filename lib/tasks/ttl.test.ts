import { describe, expect, it } from "vitest";
import { DEFAULT_TASK_TTL_MS, grantTtlMs } from "./ttl";

describe("grantTtlMs: the handle lifetime a task gets", () => {
  it("grants the default day without a request or caps", () => {
    expect(grantTtlMs({})).toBe(DEFAULT_TASK_TTL_MS);
    expect(DEFAULT_TASK_TTL_MS).toBe(86_400_000);
  });

  it("grants the request when it is under every cap", () => {
    expect(grantTtlMs({ requested: 60_000, routeMaxMs: 120_000, tenantMaxMs: 600_000 })).toBe(60_000);
  });

  it("caps the request by the smaller of the route's and the tenant's maximum", () => {
    expect(grantTtlMs({ requested: 500_000, routeMaxMs: 120_000, tenantMaxMs: 600_000 })).toBe(120_000);
    expect(grantTtlMs({ requested: 500_000, routeMaxMs: 900_000, tenantMaxMs: 300_000 })).toBe(300_000);
    expect(grantTtlMs({ requested: 10 * DEFAULT_TASK_TTL_MS })).toBe(DEFAULT_TASK_TTL_MS);
  });

  it("grants the cap itself when nothing is requested", () => {
    expect(grantTtlMs({ routeMaxMs: 120_000 })).toBe(120_000);
    expect(grantTtlMs({ tenantMaxMs: 5_000, requested: null })).toBe(5_000);
  });

  it("never grants under one second, and drops fractions", () => {
    expect(grantTtlMs({ requested: 1 })).toBe(1_000);
    expect(grantTtlMs({ requested: 0 })).toBe(1_000);
    expect(grantTtlMs({ requested: -5 })).toBe(1_000);
    expect(grantTtlMs({ tenantMaxMs: 10 })).toBe(1_000);
    expect(grantTtlMs({ requested: 1_500.9 })).toBe(1_500);
  });
});
