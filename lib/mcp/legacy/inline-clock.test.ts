import { describe, expect, it } from "vitest";
import { INLINE_ANSWER_WAIT_MS, inlineClock } from "./inline-clock";

const T0 = 1_000_000;

describe("the inline-elicitation clock", () => {
  it("ends a wait nobody is asked in at the sync deadline", () => {
    const clock = inlineClock(30_000, T0);
    expect(clock.deadline(false, T0)).toBe(T0 + 30_000);
    expect(clock.deadline(false, T0 + 29_000)).toBe(T0 + 30_000);
  });

  it("gives an outstanding question its own bound, and its time back to the budget when answered", () => {
    const clock = inlineClock(30_000, T0);
    // 10 s of work, then a question that takes 4 minutes to answer, then more work.
    expect(clock.deadline(true, T0 + 10_000)).toBe(T0 + 10_000 + INLINE_ANSWER_WAIT_MS);
    expect(clock.deadline(true, T0 + 100_000)).toBe(T0 + 10_000 + INLINE_ANSWER_WAIT_MS);
    expect(clock.deadline(false, T0 + 250_000)).toBe(T0 + 30_000 + 240_000);
    // A second question starts its own episode.
    expect(clock.deadline(true, T0 + 260_000)).toBe(T0 + 260_000 + INLINE_ANSWER_WAIT_MS);
  });

  it("says why the call stopped waiting", () => {
    const clock = inlineClock(30_000, T0);
    expect(clock.describe(false)).toBe("Still running after 30s");
    expect(clock.describe(true)).toBe("No answer after 10 minutes; the question stays open");
  });
});
