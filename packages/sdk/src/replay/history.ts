import { WorkflowMisuse } from "../errors";
import type { RunState } from "../ops/load-run-state";

/**
 * Keys that are never positional and never "work to replay": the engine's bookkeeping, and patch
 * markers (context/patched.ts), which a later version of the code may stop asking about.
 */
const BOOKKEEPING = /^(retry|deadline|patched):/;

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
 * them in another order than the first execution did). So the position check covers the sequential
 * code up to the first parallel operation of an attempt and stops there, rather than raise a false alarm.
 *
 * Past that point a second check guards work with side effects (`beforeNewWork`, called by a step
 * before its body first runs): new work while recorded operations are still unreached is allowed
 * only once the code cannot reach them first. It waits until every other pending operation has
 * settled (the replay of memoized branches takes microtasks; one macrotask at least), and if some
 * recorded operation is still unreached then, the code no longer reaches it: a renamed or removed
 * operation, wherever it stands. Normal runs never wait: new work comes after the whole history is
 * reached, where the check is one comparison.
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
  /** Operations waiting in beforeNewWork: pending, but waiting for the others, so not counted as work in flight. */
  private deferred = 0;
  /** Patch markers on their way to the store (context/patched.ts). */
  private markers: Promise<unknown> = Promise.resolve();

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

  /**
   * Where a run stands at the patch point `key` (context/patched.ts): its marker is recorded, the run
   * had passed this point without one (it is replaying work recorded further on), or it reaches it
   * for the first time. A replay test of a finished history decides otherwise (testing/replay-history.ts).
   */
  patchPoint(key: string): "recorded" | "passed" | "first" {
    if (this.state.steps.has(key)) return "recorded";
    return this.replaying ? "passed" : "first";
  }

  /** A patch marker's write: new work waits for it, so nothing is recorded after a marker that is not. */
  markerWritten(write: Promise<void>) {
    const all = Promise.all([this.markers, write]);
    // Handled here: a failed write has ended the attempt already, and no step may be left to await it.
    all.catch(() => {});
    this.markers = all;
  }

  /**
   * Called by an operation with side effects (a step body) right before it runs for the first
   * time: refuses it when the history holds recorded operations the code no longer reaches
   * (see the class comment), and waits for pending patch markers.
   */
  async beforeNewWork(key: string): Promise<void> {
    await this.markers;
    if (this.unreached.size === 0) return;
    this.deferred += 1;
    try {
      do await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.unreached.size > 0 && this.pending > this.deferred);
    } finally {
      this.deferred -= 1;
    }
    if (this.unreached.size === 0) return;
    const missing = [...this.unreached].slice(0, 3).map(describe);
    const more = this.unreached.size > 3 ? ` and ${this.unreached.size - 3} more` : "";
    throw changed(
      `${describe(key)} is new, and the history holds ${missing.join(", ")}${more}, which the code no longer reaches before it`,
    );
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
    `workflow code changed under a running version: ${detail}. Deploy changed code as a new workflow version, or guard the change with ctx.patched (docs/authoring.md, "Versioning").`,
  );
}

/** A history key in the words of the API that wrote it. */
export function describe(key: string): string {
  const repeated = /^(sleep:)?repeat:(.*)#(\d+)$/.exec(key);
  if (repeated) return `${describe(`${repeated[1] ?? ""}${repeated[2]}`)} (call ${repeated[3]})`;
  const value = /^(now|random|uuid):(\d+)$/.exec(key);
  if (value) return `ctx.${value[1]}() (call ${value[2]})`;
  if (key.startsWith("patched:")) return `ctx.patched("${key.slice(8)}")`;
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
