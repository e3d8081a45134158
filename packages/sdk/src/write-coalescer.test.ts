import { describe, expect, it } from "vitest";
import { createCoalescer } from "./write-coalescer";

type Item = { run: string; n: number };

/** A flush that records each batch and resolves when the test lets it. */
function recordingFlush() {
  const batches: Item[][] = [];
  const gates: (() => void)[] = [];
  const flush = (items: Item[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve) => gates.push(() => resolve(items.map((i) => `${i.run}:${i.n}`))));
  };
  const openNext = async () => {
    for (let spins = 0; gates.length === 0 && spins < 100; spins++) await new Promise((r) => setImmediate(r));
    gates.shift()?.();
  };
  return { batches, flush, openNext };
}

describe("createCoalescer", () => {
  it("sends writes issued in one tick together, and writes made while a batch is in flight as the next batch", async () => {
    const { batches, flush, openNext } = recordingFlush();
    const write = createCoalescer({ flush, keyOf: (i: Item) => i.run, maxBatch: 64 });
    const first = [write({ run: "a", n: 1 }), write({ run: "b", n: 1 })];
    await new Promise((r) => setImmediate(r));
    const later = [write({ run: "c", n: 1 }), write({ run: "d", n: 1 }), write({ run: "e", n: 1 })];
    await openNext();
    await openNext();
    expect(await Promise.all([...first, ...later])).toEqual(["a:1", "b:1", "c:1", "d:1", "e:1"]);
    expect(batches.map((b) => b.map((i) => i.run))).toEqual([
      ["a", "b"],
      ["c", "d", "e"],
    ]);
  });

  it("never puts two writes of one key in a batch (a statement joining a run twice would drop one)", async () => {
    const { batches, flush, openNext } = recordingFlush();
    const write = createCoalescer({ flush, keyOf: (i: Item) => i.run, maxBatch: 64 });
    const all = [write({ run: "a", n: 1 }), write({ run: "a", n: 2 }), write({ run: "b", n: 1 })];
    await openNext();
    await openNext();
    expect(await Promise.all(all)).toEqual(["a:1", "a:2", "b:1"]);
    expect(batches).toEqual([
      [
        { run: "a", n: 1 },
        { run: "b", n: 1 },
      ],
      [{ run: "a", n: 2 }],
    ]);
  });

  it("splits at maxBatch", async () => {
    const { batches, flush, openNext } = recordingFlush();
    const write = createCoalescer({ flush, keyOf: (i: Item) => i.run, maxBatch: 2 });
    const all = ["a", "b", "c"].map((run) => write({ run, n: 1 }));
    await openNext();
    await openNext();
    await Promise.all(all);
    expect(batches.map((b) => b.length)).toEqual([2, 1]);
  });

  it("rejects every write of a failed batch with its error, and the next batch still goes", async () => {
    let calls = 0;
    const write = createCoalescer({
      flush: async (items: Item[]) => {
        calls += 1;
        if (calls === 1) throw new Error("connection reset");
        return items.map((i) => i.run);
      },
      keyOf: (i: Item) => i.run,
      maxBatch: 64,
    });
    const failed = [write({ run: "a", n: 1 }), write({ run: "b", n: 1 })];
    await expect(failed[0]).rejects.toThrow("connection reset");
    await expect(failed[1]).rejects.toThrow("connection reset");
    await expect(write({ run: "c", n: 1 })).resolves.toBe("c");
  });

  it("writes a batch again item by item when retryAlone accepts its error: only the guilty write rejects", async () => {
    const batches: string[][] = [];
    const write = createCoalescer({
      flush: async (items: Item[]) => {
        batches.push(items.map((i) => i.run));
        if (items.some((i) => i.run === "poison")) throw new Error("unsupported Unicode escape sequence");
        return items.map((i) => i.run);
      },
      keyOf: (i: Item) => i.run,
      maxBatch: 64,
      retryAlone: (error) => !String(error).includes("connection"),
    });
    const all = ["a", "poison", "b"].map((run) => write({ run, n: 1 }).catch((error: Error) => error.message));
    expect(await Promise.all(all)).toEqual(["a", "unsupported Unicode escape sequence", "b"]);
    expect(batches).toEqual([["a", "poison", "b"], ["a"], ["poison"], ["b"]]);
  });
});
