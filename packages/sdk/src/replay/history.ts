import { WorkflowMisuse } from "../errors";
import type { RunState } from "../ops/load-run-state";

/** Keys the engine writes for its own bookkeeping: never positional, never "work to replay". */
const BOOKKEEPING = /^(retry|deadline):/;

/**
 * The replay's view of the run's history. Every durable operation (step, sleep, signal wait, input
 * request) enters here when the workflow calls it and gets a position in the call order.
 *
 * Non-determinism check: an operation called while no other one is pending (sequential code) must
 * sit where the history recorded it — the same key at the same position. Code that inserts, removes,
 * reorders or changes the kind of an operation under a running version fails the run with a clear
 * "workflow code changed" error instead of replaying the wrong values. Operations called while
 * another is pending (`Promise.all` branches) get no position: the order in which parallel branches
 * reach them is timing, not code (and a replay, whose memoized operations settle at once, reaches
 * them in another order than the first execution did). So the check covers the sequential code up
 * to the first parallel operation of an attempt and stops there, rather than raise a false alarm.
 *
 * `replaying` is true until every recorded operation has been reached again: progress and log lines
 * written during that stretch were already written by an earlier attempt, so ctx skips them. Answers
 * given at creation (preflight) do not count: they record no work of the run, which may never ask.
 */
export class ReplayHistory {
  private position = 0;
  private pending = 0;
  private parallelSeen = false;
  private readonly keyAt = new Map<number, string>();
  private readonly unreached = new Set<string>();

  constructor(private readonly state: RunState) {
    for (const [key, recorded] of state.steps) {
      if (BOOKKEEPING.test(key)) continue;
      this.unreached.add(key);
      if (recorded.seq !== null) this.keyAt.set(recorded.seq, key);
    }
    // An answer given at creation is not work the run did: it may never ask that question (E8).
    for (const key of state.answers.keys()) if (!state.preflight.has(key)) this.unreached.add(`input:${key}`);
  }

  get replaying(): boolean {
    return this.unreached.size > 0;
  }

  /** No durable operation is pending: the code calling one now is sequential, its order is the code's. */
  get idle(): boolean {
    return this.pending === 0;
  }

  /**
   * Enters a durable operation. `keys` are the history keys it reaches (one, or one per input
   * request). Returns its position (null when called alongside a pending one) and `done`, to be
   * called when it settles.
   */
  enter(opKey: string, keys: string[] = [opKey]): { seq: number | null; done(): void } {
    const position = this.position++;
    const sequential = this.pending === 0;
    this.pending += 1;
    if (!sequential || keys.some((key) => this.state.steps.get(key)?.seq === null)) this.parallelSeen = true;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      this.pending -= 1;
    };
    try {
      if (sequential && !this.parallelSeen) this.check(position, opKey);
    } catch (error) {
      done();
      throw error;
    }
    for (const key of keys) this.unreached.delete(key);
    return { seq: sequential ? position : null, done };
  }

  private check(position: number, key: string) {
    const recorded = this.state.steps.get(key);
    if (recorded && recorded.seq !== null && recorded.seq !== position) {
      throw changed(`${describe(key)} ran as operation #${recorded.seq + 1}, and the code now reaches it as #${position + 1}`);
    }
    const there = this.keyAt.get(position);
    if (there !== undefined && there !== key) {
      throw changed(`operation #${position + 1} was ${describe(there)} when it ran, and the code now calls ${describe(key)}`);
    }
  }
}

function changed(detail: string): WorkflowMisuse {
  return new WorkflowMisuse(
    "nondeterminism",
    `workflow code changed under a running version: ${detail}. Deploy changed code as a new workflow version.`,
  );
}

/** A history key in the words of the API that wrote it. */
export function describe(key: string): string {
  const repeated = /^(sleep:)?repeat:(.*)#(\d+)$/.exec(key);
  if (repeated) return `${describe(`${repeated[1] ?? ""}${repeated[2]}`)} (call ${repeated[3]})`;
  const value = /^(now|random|uuid):(\d+)$/.exec(key);
  if (value) return `ctx.${value[1]}() (call ${value[2]})`;
  if (key.startsWith("sleep:")) return `ctx.sleep("${key.slice(6)}")`;
  const signal = /^signal:(.*)#(\d+)$/.exec(key);
  if (signal) return `ctx.waitForSignal("${signal[1]}") (wait ${Number(signal[2]) + 1})`;
  if (key.startsWith("input:")) return `ctx.requestInput("${key.slice(6)}")`;
  if (key.startsWith("approval:")) return `ctx.requestApproval("${key.slice(9)}")`;
  if (key.startsWith("child-result:")) return `${describe(`child:${key.slice(13)}`)}.result()`;
  const child = /^child:(repeat:(.*)#(\d+)|.*)$/.exec(key);
  if (child) return child[2] ? `ctx.child("${child[2]}") (call ${child[3]})` : `ctx.child("${key.slice(6)}")`;
  return `ctx.step("${key}")`;
}
