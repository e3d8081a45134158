import { describe, expect, it } from "vitest";
import { NonRetryableError, WorkflowFailure } from "../errors";
import { backoffDelayMs, DEFAULT_RETRY_POLICY, isRetryable, resolveRetryPolicy } from "./retry-policy";

class CardDeclined extends Error {}

describe("the retry policy", () => {
  it("merges defaults, the workflow's policy, the step shorthands and the step's policy, in that order", () => {
    expect(resolveRetryPolicy(undefined, undefined)).toEqual(DEFAULT_RETRY_POLICY);
    const merged = resolveRetryPolicy(
      { maxAttempts: 5, maxBackoffMs: 1_000 },
      { retries: 1, backoffMs: 50, retry: { jitter: 0 } },
    );
    expect(merged).toMatchObject({ maxAttempts: 2, initialBackoffMs: 50, maxBackoffMs: 1_000, jitter: 0 });
  });

  it("refuses a policy that cannot work", () => {
    expect(() => resolveRetryPolicy({ maxAttempts: 0 }, undefined)).toThrow(/maxAttempts/);
    expect(() => resolveRetryPolicy(undefined, { retry: { initialBackoffMs: Number.NaN } })).toThrow(/initialBackoffMs/);
    expect(() => resolveRetryPolicy(undefined, { retry: { jitter: 2 } })).toThrow(/jitter/);
  });

  it("grows the backoff by the factor, caps it, and spreads it by the jitter", () => {
    const policy = resolveRetryPolicy({ initialBackoffMs: 100, backoffFactor: 3, maxBackoffMs: 1_000, jitter: 0 }, undefined);
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(policy, n))).toEqual([100, 300, 900, 1_000]);
    const jittered = { ...policy, jitter: 0.5 };
    expect(backoffDelayMs(jittered, 1, () => 0)).toBe(50);
    expect(backoffDelayMs(jittered, 1, () => 1)).toBe(150);
    expect(backoffDelayMs(jittered, 4, () => 1)).toBe(1_000);
  });

  it("never retries WorkflowFailure, NonRetryableError or a class the policy names", () => {
    const policy = resolveRetryPolicy({ nonRetryable: ["CardDeclined"] }, undefined);
    expect(isRetryable(new Error("flaky"), policy)).toBe(true);
    expect(isRetryable(new WorkflowFailure("no"), policy)).toBe(false);
    expect(isRetryable(new NonRetryableError("no"), policy)).toBe(false);
    expect(isRetryable(new CardDeclined("declined"), policy)).toBe(false);
  });
});
