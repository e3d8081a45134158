import { inspect } from "node:util";

/**
 * How tests wait: for a state, never for a length of time. A fixed sleep before an assertion is a
 * guess about how fast a loaded machine is; these poll a probe until its value has the state the
 * assertion needs, and when the time is up they fail with what they saw last, so a failure says
 * which state was missing instead of "timeout".
 */
export type WaitOptions = {
  /** What is awaited, as the failure message's subject: "run abc to be sleeping". */
  describe: string;
  /** How long the state may take to appear. Generous: it bounds a failure, never a passing run. */
  timeoutMs?: number;
  /** Pause between probes. */
  everyMs?: number;
};

const DEFAULT_TIMEOUT_MS = 20_000;
const DEFAULT_EVERY_MS = 50;

/**
 * Probes until `predicate(value)` holds and returns that value. A probe that throws ends the wait
 * with its error (fail fast: a process that died will not come back); a probe that must tolerate
 * "not yet" (a server still starting) catches that itself and returns undefined.
 */
export function waitFor<T, S extends T>(
  probe: () => T | Promise<T>,
  predicate: (value: T) => value is S,
  options: WaitOptions,
): Promise<S>;
export function waitFor<T>(probe: () => T | Promise<T>, predicate: (value: T) => boolean, options: WaitOptions): Promise<T>;
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  predicate: (value: T) => boolean,
  options: WaitOptions,
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const everyMs = options.everyMs ?? DEFAULT_EVERY_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (predicate(value)) return value;
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.describe}; last seen: ${show(value)}`);
    await pause(everyMs);
  }
}

/** waitFor with a truthy test: returns the first truthy value the probe gives. */
export function waitForValue<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: WaitOptions,
): Promise<T> {
  return waitFor(probe, Boolean, options) as Promise<T>;
}

/**
 * The opposite check, for "X stays so": probes for `forMs` and fails at the first value that breaks
 * `predicate`, with that value. Use it only where no later state marks "it would have happened by
 * now"; where one exists, wait for that state instead.
 */
export async function holdsFor<T>(
  probe: () => T | Promise<T>,
  predicate: (value: T) => boolean,
  options: { describe: string; forMs: number; everyMs?: number },
): Promise<T> {
  const until = Date.now() + options.forMs;
  for (;;) {
    const value = await probe();
    if (!predicate(value)) throw new Error(`expected ${options.describe} to hold, but saw ${show(value)}`);
    if (Date.now() >= until) return value;
    await pause(options.everyMs ?? DEFAULT_EVERY_MS);
  }
}

function show(value: unknown): string {
  return inspect(value, { depth: 6, breakLength: Number.POSITIVE_INFINITY, maxStringLength: 2_000, maxArrayLength: 50 });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
