import { afterEach, describe, expect, it, vi } from "vitest";
import { SHARED_RECHECK_MS, sharedRecheck } from "./shared-recheck";

afterEach(() => vi.useRealTimers());

describe("sharedRecheck", () => {
  it("one check answers every stream of a credential within the window, and a new one after it", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const verify = vi.fn(async (token: string) => ({ token, at: performance.now() }));
    const streamA = sharedRecheck("rf_shared_a", verify);
    const streamB = sharedRecheck("rf_shared_a", verify);
    const first = await streamA();
    expect(await streamB()).toBe(first);
    expect(verify).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(SHARED_RECHECK_MS);
    expect(await streamB()).not.toBe(first);
    expect(verify).toHaveBeenCalledTimes(2);
  });

  it("never shares across credentials, nor a failed check", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const verify = vi.fn(async (token: string) => {
      if (token === "rf_shared_down") throw new Error("store unavailable");
      return token;
    });
    expect(await sharedRecheck("rf_shared_b", verify)()).toBe("rf_shared_b");
    expect(await sharedRecheck("rf_shared_c", verify)()).toBe("rf_shared_c");
    const down = sharedRecheck("rf_shared_down", verify);
    await expect(down()).rejects.toThrow("store unavailable");
    await expect(down()).rejects.toThrow("store unavailable");
    expect(verify).toHaveBeenCalledTimes(4);
  });
});
