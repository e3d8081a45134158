import { randomUUID } from "node:crypto";
import { LeaseLost } from "../errors";
import { encodeJson } from "../json-value";
import type { Attempt } from "./attempt";

/** The values ctx records for code between steps: the n-th call of each is `<kind>:<n>` in the history. */
export type DeterministicKind = "now" | "random" | "uuid";

const MAKERS: Record<DeterministicKind, (attempt: Attempt) => number | string> = {
  // The database's clock as this attempt estimates it (db-clock.ts): the clock timers and deadlines use.
  now: (attempt) => Math.round(attempt.deps.clock.now()),
  random: () => Math.random(),
  uuid: () => randomUUID(),
};

/**
 * ctx.now(), ctx.random(), ctx.uuid(): a value made once and recorded like a step's output
 * (history key `now:1`, `uuid:2`, … — a reserved prefix, so no user key collides), then replayed.
 *
 * Cost: each call is one `run_steps` row written through the worker's coalesced checkpoint writes
 * (leased-writes.ts), so it shares its statement with the other runs' checkpoints of the same
 * moment instead of paying a transaction of its own. The promise resolves only once the row is
 * committed: a value handed to a step body (an idempotency key, a timestamp sent to a partner) is
 * always the value a replay returns, even if the worker dies in the body. Deferring the write to
 * the next checkpoint would save a write only where nothing used the value yet, and would lose that
 * guarantee the moment a body used it — so the engine does not defer.
 *
 * Calls are numbered in call order, so they are refused in parallel branches (attempt.occurrence):
 * take the value before the `Promise.all` and pass it in.
 */
export async function recordValue<K extends DeterministicKind>(
  attempt: Attempt,
  kind: K,
): Promise<K extends "uuid" ? string : number> {
  type Value = K extends "uuid" ? string : number;
  const what = `ctx.${kind}()`;
  attempt.ensureOutsideStep(what);
  attempt.ensureLive();
  // The family ends in ":", as no step key can (a reserved prefix): ctx.now() never shares a count with ctx.step("now").
  const key = `${kind}:${attempt.occurrence(`${kind}:`, what, { parallelFirst: false })}`;
  const { deps } = attempt;
  const op = deps.history.enter(key);
  try {
    const recorded = deps.state.steps.get(key);
    if (recorded) return recorded.value as Value;
    const value = MAKERS[kind](attempt);
    const encoded = encodeJson(value, `${what} value`, 1024);
    const held = await attempt.store(() => deps.writes.checkpoint(deps.lease, { key, outputJson: encoded.text, seq: op.seq }));
    if (!held) throw new LeaseLost("lease lost");
    deps.state.steps.set(key, { value, seq: op.seq });
    return value as Value;
  } finally {
    op.done();
  }
}
