/**
 * The child starts (ctx.child, context/child.ts) of each attempt still on their way to the store.
 * Apart from child.ts so that attempt.ts (a wait about to park) and executor.ts (the terminal write)
 * can wait for them without an import cycle: keyed by the attempt object itself.
 */
const inFlight = new WeakMap<object, Set<Promise<unknown>>>();

/** Registers one start until it settles. */
export function trackChildStart(attempt: object, start: Promise<unknown>): void {
  let starts = inFlight.get(attempt);
  if (!starts) {
    starts = new Set();
    inFlight.set(attempt, starts);
  }
  const tracked = starts;
  tracked.add(start);
  const untrack = () => {
    tracked.delete(start);
  };
  start.then(untrack, untrack);
}

/**
 * Waits until no child start of this attempt is on its way to the store (executor.ts, before the
 * run's terminal write; attempt.ts, before a wait parks the run): a child started and not awaited —
 * fire and forget — is then recorded before the parent ends or parks (or refused with the parent's
 * lease), never left to race the park and be started again by the next attempt.
 */
export async function settleChildStarts(attempt: object): Promise<void> {
  const starts = inFlight.get(attempt);
  while (starts && starts.size > 0) await Promise.allSettled([...starts]);
}
