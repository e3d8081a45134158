import { WorkflowMisuse } from "../errors";
import type { Limits } from "../limits";
import { appendLog } from "../ops/append-log";
import type { HistoryUsage } from "../ops/read-history-usage";
import type { Attempt } from "./attempt";

/** The share of a limit at which the run's timeline and the worker's log get a warning, once per generation. */
export const HISTORY_WARNING_SHARE = 0.8;

/**
 * The history limits of a run (docs/authoring.md "History limits"), per generation: events on the
 * timeline and bytes of the history a resume loads. Measured at the start of each attempt
 * (ops/read-history-usage.ts) and charged before each step's checkpoint, so a loop that never parks
 * stops at the limit too. Kept beside the attempt (keyed by it) rather than on it.
 */
const budgets = new WeakMap<Attempt, HistoryUsage>();

/** The cause of a run over its limits, or undefined; warns once past 80 %. */
export function startHistoryBudget(attempt: Attempt, usage: HistoryUsage): WorkflowMisuse | undefined {
  budgets.set(attempt, { ...usage });
  return check(attempt, 0, 0);
}

/**
 * Before a checkpoint of `bytes` (one step row and one event): refused — the run fails with
 * `history_too_large`, whatever the workflow does with the error — if it would pass a limit.
 */
export function chargeHistory(attempt: Attempt, bytes: number): void {
  const refused = check(attempt, 1, bytes);
  if (!refused) return;
  attempt.misuse ??= refused;
  throw attempt.misuse;
}

function check(attempt: Attempt, events: number, bytes: number): WorkflowMisuse | undefined {
  const usage = budgets.get(attempt);
  if (!usage) return undefined;
  const { limits } = attempt.deps;
  const next = { events: usage.events + events, bytes: usage.bytes + bytes };
  if (next.events > limits.historyEvents || next.bytes > limits.historyBytes) {
    const over = next.events > limits.historyEvents ? "events" : "bytes";
    return new WorkflowMisuse(
      "history_too_large",
      `the run's history would hold ${describe(next, limits)}, over its limit of ${over === "events" ? `${limits.historyEvents} events` : `${limits.historyBytes} bytes`}: ` +
        "a long-lived loop should call ctx.continueAsNew every few hundred iterations (docs/authoring.md)",
    );
  }
  usage.events = next.events;
  usage.bytes = next.bytes;
  const share = Math.max(next.events / limits.historyEvents, next.bytes / limits.historyBytes);
  if (share >= HISTORY_WARNING_SHARE && !usage.warned) {
    usage.warned = true;
    warn(attempt, share, next);
  }
  return undefined;
}

function describe(usage: { events: number; bytes: number }, limits: Limits): string {
  return `${usage.events} of ${limits.historyEvents} events and ${usage.bytes} of ${limits.historyBytes} bytes`;
}

/** Best effort, like ctx.log: a line in the worker's log and on the run's timeline (the console shows it). */
function warn(attempt: Attempt, share: number, usage: { events: number; bytes: number }): void {
  const { deps } = attempt;
  const percent = Math.floor(share * 100);
  const message = `history at ${percent} % of its limit (${describe(usage, deps.limits)}): continue as new before it fails`;
  deps.logger.warn(message, { runId: deps.lease.runId, workflow: deps.workflowKey });
  const entry = JSON.stringify({ message, data: { historyWarning: { percent, ...usage } } });
  appendLog(deps.sql, deps.lease, entry).catch(() => {});
}
