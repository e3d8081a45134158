import { describe, expect, it } from "vitest";
import { RateBuckets } from "../rate-buckets";
import { CredentialSlots } from "./credential-slots";

describe("CredentialSlots", () => {
  it("refuses past the cap per key, and a release (idempotent) frees exactly one slot", () => {
    const slots = new CredentialSlots(2);
    const a = slots.tryAcquire("k");
    const b = slots.tryAcquire("k");
    expect(a && b).toBeTruthy();
    expect(slots.tryAcquire("k")).toBeUndefined();
    expect(slots.tryAcquire("other")).toBeDefined();
    a?.();
    a?.();
    expect(slots.inUse("k")).toBe(1);
    expect(slots.tryAcquire("k")).toBeDefined();
    expect(slots.tryAcquire("k")).toBeUndefined();
  });
});

describe("RateBuckets", () => {
  it("allows a minute's worth at once, then one per 60/N s, and says when", () => {
    let now = 0;
    const rate = new RateBuckets(6, () => now);
    for (let n = 0; n < 6; n++) expect(rate.take("k")).toEqual({ ok: true });
    expect(rate.take("k")).toEqual({ ok: false, retryAfterSeconds: 10 });
    now += 4_000;
    expect(rate.take("k")).toEqual({ ok: false, retryAfterSeconds: 6 });
    now += 6_000;
    expect(rate.take("k")).toEqual({ ok: true });
    expect(rate.take("other")).toEqual({ ok: true });
    // Never more than the burst, however long a key was idle.
    now += 3_600_000;
    for (let n = 0; n < 6; n++) expect(rate.take("k")).toEqual({ ok: true });
    expect(rate.take("k").ok).toBe(false);
  });
});
