/**
 * Coalesces concurrent writes into one statement (graphile-worker's batched completion, without its
 * delay): the first write of an idle moment goes out at the end of the current tick; writes that
 * arrive while a batch is in flight wait for it and then leave together. A worker running 16
 * one-step attempts therefore commits their checkpoints and results in a handful of transactions
 * instead of 32, and a lone write pays no added latency beyond one tick.
 *
 * A batch holds at most one write per key (a run's parallel steps checkpoint separately: one
 * statement joining a run twice would update it once and drop the other step).
 *
 * A batch must not change outcomes. When its statement fails for a reason `retryAlone` accepts (one
 * item's value the store refuses: it would refuse it alone too), each item is written again on its
 * own, so only the guilty item rejects. Any other failure (the connection went) rejects every
 * write in the batch with its error, as each would have failed on its own.
 */
export type Coalescer<I, O> = (item: I) => Promise<O>;

type Pending<I, O> = { item: I; resolve: (value: O) => void; reject: (error: unknown) => void };

export function createCoalescer<I, O>(options: {
  /** Writes all items in one statement; answers one result per item, in order. */
  flush: (items: I[]) => Promise<O[]>;
  keyOf: (item: I) => string;
  maxBatch: number;
  /** Whether a failed batch's items are written again one by one (default: never). */
  retryAlone?: (error: unknown) => boolean;
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
          if (batch.length > 1 && options.retryAlone?.(error)) await flushAlone(batch);
          else for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      busy = false;
    }
  }

  async function flushAlone(batch: Pending<I, O>[]) {
    for (const entry of batch) {
      try {
        const [result] = await options.flush([entry.item]);
        entry.resolve(result as O);
      } catch (error) {
        entry.reject(error);
      }
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
