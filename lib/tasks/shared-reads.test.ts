import { describe, expect, it } from "vitest";
import { SharedReads } from "./shared-reads";

// What may be shared (lib/tasks/shared-reads.ts): never a read older than the task's last NOTIFY,
// the last reconnect, the caller's previous read, or maxAgeMs; never across keys; never a failure.
const counting = () => {
  let calls = 0;
  return {
    run: () => Promise.resolve(++calls),
    get calls() {
      return calls;
    },
  };
};
const fresh = { notBefore: 0, maxAgeMs: 60_000 };

describe("SharedReads", () => {
  it("shares a fresh read of one task and key, and not across keys or tasks", async () => {
    const reads = new SharedReads();
    const source = counting();
    expect(await Promise.all([1, 2, 3].map(() => reads.read("t", "k", fresh, source.run)))).toEqual([1, 1, 1]);
    expect(await reads.read("t", "other key", fresh, source.run)).toBe(2);
    expect(await reads.read("other task", "k", fresh, source.run)).toBe(3);
  });

  it("reads again after the task's notification or a reconnect, not after another task's", async () => {
    const reads = new SharedReads();
    const source = counting();
    await reads.read("t", "k", fresh, source.run);
    reads.changed("other task");
    expect(await reads.read("t", "k", fresh, source.run)).toBe(1);
    reads.changed("t");
    expect(await reads.read("t", "k", fresh, source.run)).toBe(2);
    expect(await reads.read("t", "k", fresh, source.run)).toBe(2);
    reads.changedAll();
    expect(await reads.read("t", "k", fresh, source.run)).toBe(3);
  });

  it("never hands a caller a read that started before its previous one ended, or one too old", async () => {
    const reads = new SharedReads();
    const source = counting();
    await reads.read("t", "k", fresh, source.run);
    const ended = performance.now();
    expect(await reads.read("t", "k", { notBefore: ended, maxAgeMs: 60_000 }, source.run)).toBe(2);
    await new Promise((r) => setTimeout(r, 20));
    expect(await reads.read("t", "k", { notBefore: 0, maxAgeMs: 10 }, source.run)).toBe(3);
  });

  it("does not share a failed read, and forgets a task", async () => {
    const reads = new SharedReads();
    await expect(reads.read("t", "k", fresh, () => Promise.reject(new Error("store down")))).rejects.toThrow("store down");
    await new Promise((r) => setTimeout(r, 0));
    const source = counting();
    expect(await reads.read("t", "k", fresh, source.run)).toBe(1);
    reads.forget("t");
    expect(await reads.read("t", "k", fresh, source.run)).toBe(2);
  });
});
