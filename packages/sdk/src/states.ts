/**
 * The one state table of a run. Every transition in lib/engine/ops is a guarded
 * `UPDATE … WHERE status = <expected>`; this table documents which moves exist, and the
 * SQL trigger `runs_terminal_immutable` makes terminal states final even for hand-written SQL.
 */
export const RUN_STATUSES = [
  "queued",
  "leased",
  "sleeping",
  "waiting_signal",
  "waiting_input",
  "completed",
  "failed",
  "cancelled",
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

export const TERMINAL_STATUSES: readonly RunStatus[] = Object.freeze(["completed", "failed", "cancelled"]);

const TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = Object.freeze({
  // → failed without a lease: the run passed its own timeout (ops/expire-runs.ts).
  queued: ["leased", "failed", "cancelled"],
  // leased → leased: an expired lease is claimed again by another worker.
  leased: ["leased", "queued", "sleeping", "waiting_signal", "waiting_input", "completed", "failed", "cancelled"],
  // → queued: a timer no claim took within a second of coming due joins the backlog (ops/promote-due-runs.ts).
  sleeping: ["queued", "leased", "failed", "cancelled"],
  waiting_signal: ["queued", "leased", "failed", "cancelled"],
  // → leased: claimed at an input request's deadline, to apply its timeout (ops/suspend-for-input.ts).
  waiting_input: ["queued", "leased", "failed", "cancelled"],
  completed: [],
  failed: [],
  cancelled: [],
});

/** The terminal set as a SQL list, for `status IN ${TERMINAL_STATUSES_SQL}` (same words as TERMINAL_STATUSES). */
export const TERMINAL_STATUSES_SQL = `(${TERMINAL_STATUSES.map((status) => `'${status}'`).join(", ")})`;

export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isRunStatus(value: string): value is RunStatus {
  return (RUN_STATUSES as readonly string[]).includes(value);
}

/** Statuses in which a run is waiting on something other than a worker. */
export const WAITING_STATUSES: readonly RunStatus[] = Object.freeze(["sleeping", "waiting_signal", "waiting_input"]);
