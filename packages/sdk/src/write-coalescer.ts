/**
 * Coalesces concurrent writes into one statement (graphile-worker's batched completion, without its
 * delay): the first write of an idle moment goes out at the end of the current tick; writes that
 * arrive while a batch is in flight wait for it and then leave together. A worker running 16
 * one-step attempts therefore commits their checkpoints and results in a handful of transactions
 * instead of 32, and a lone write pays no added latency beyond one tick.
 *
 * A batch holds at most one write per key (a run's parallel steps checkpoint separately: one
 * statement joining a run twice would update it once and drop the other step). When the statement
 * fails, every write in that batch rejects with its error, exactly as each would have on its own.
 */
export type Coalescer<I, O> = (item: I) => Promise<O>;

type Pending<I, O> = { item: I; resolve: (value: O) => void; reject: (error: unknown) => void };

export function createCoalescer<I, O>(options: {
  /** Writes all items in one statement; answers one result per item, in order. */
  flush: (items: I[]) => Promise<O[]>;
  keyOf: (item: I) => string;
  maxBatch: number;
}): Coalescer<I, O> {
  const queue: Pending<I, O>[] = [];
  let busy = false;

  function takeBatch(): Pending<I, O>[] {
    const batch: Pending<I, O>[] = [];
    const keys = new Set<string>();
    for (let i = 0; i < queue.length && batch.length < options.maxBatch; ) {
      const entry = queue[i] as Pending<I, O>;
      const key = options.keyOf(entry.item);
      if (keys.has(key)) {
        i++;
        continue;
      }
      keys.add(key);
      batch.push(entry);
      queue.splice(i, 1);
    }
    return batch;
  }

  async function drain() {
    busy = true;
    try {
      while (queue.length > 0) {
        const batch = takeBatch();
        try {
          const results = await options.flush(batch.map((entry) => entry.item));
          for (const [index, entry] of batch.entries()) entry.resolve(results[index] as O);
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      busy = false;
    }
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      // Idle: start at the end of this tick, so writes issued together in it share the statement.
      if (!busy) {
        busy = true;
        queueMicrotask(() => void drain());
      }
    });
}
