import { describe, expect, it } from "vitest";
import { holdsFor, waitFor, waitForValue } from "./wait-for";

describe("waitFor", () => {
  it("returns the first value the predicate accepts", async () => {
    let n = 0;
    expect(
      await waitFor(
        () => ++n,
        (v) => v >= 3,
        { describe: "n to reach 3", everyMs: 1 },
      ),
    ).toBe(3);
    expect(await waitForValue(() => (n++ > 5 ? "ready" : undefined), { describe: "ready", everyMs: 1 })).toBe("ready");
  });

  it("fails with what was awaited and the value seen last", async () => {
    await expect(
      waitFor(
        () => ({ status: "leased" }),
        (v) => v.status === "sleeping",
        { describe: "the run to sleep", timeoutMs: 30, everyMs: 5 },
      ),
    ).rejects.toThrow(/timed out after 30 ms waiting for the run to sleep; last seen: \{ status: 'leased' \}/);
  });

  it("ends at once with the probe's own error", async () => {
    // A probe swallowed and retried would end with "timed out …" instead.
    await expect(
      waitFor(
        () => {
          throw new Error("the process exited");
        },
        () => true,
        { describe: "never", timeoutMs: 10_000 },
      ),
    ).rejects.toThrow(/^the process exited$/);
  });
});

describe("holdsFor", () => {
  it("passes when the state holds throughout, and fails at the first value that breaks it", async () => {
    expect(
      await holdsFor(
        () => "cancelled",
        (s) => s === "cancelled",
        { describe: "cancelled", forMs: 20, everyMs: 2 },
      ),
    ).toBe("cancelled");
    let n = 0;
    await expect(
      holdsFor(
        () => (++n < 3 ? "cancelled" : "working"),
        (s) => s === "cancelled",
        { describe: "the task to stay cancelled", forMs: 5_000, everyMs: 1 },
      ),
    ).rejects.toThrow("expected the task to stay cancelled to hold, but saw 'working'");
  });
});
