import { type FailureCause, type OperationKind, operationKind, type RunStatus } from "@runifold/sdk";
import { isTerminal } from "@runifold/sdk/states";
import type { StepRetryRow, TaskStepRow } from "../../tasks";

/** Characters of a step's pretty-printed output the page gets with each poll; "Show all" fetches the rest. */
export const STEP_PREVIEW_CHARS = 2_000;
/** Durable operations listed per task page (a loop of thousands of steps is summarised, not shipped). */
export const STEP_LIMIT = 200;

export type TaskStepItem = {
  /**
   * The key as stored: a step's own key (`repeat:<key>#<n>` for a key called again), `sleep:<key>` for
   * a timer, `signal:<name>#<n>` for a delivery, `now:`/`random:`/`uuid:<n>` for a recorded value,
   * `approval:<key>` for a settled approval.
   */
  key: string;
  /** As `runifold tasks history` names it (one list: the export and the page never disagree). */
  kind: OperationKind;
  status: "completed" | "retrying" | "failed";
  /** Executions of the step body so far, failed ones included (null for timers and signals). */
  attempts: number | null;
  /** When the output was recorded (completed) or the last failure stored (retrying, failed). */
  at: string | null;
  /** The start of the pretty-printed output and whether there is more (null: nothing recorded). */
  output: { preview: string; truncated: boolean; bytes: number } | null;
  lastError: { name?: string; message: string } | null;
  /** When a retrying step runs next (the database's clock). */
  retryAt: string | null;
};

const iso = (value: Date | string | null | undefined) => (value ? new Date(value).toISOString() : null);

/**
 * The run's steps as the task page lists them: each memoized step with its output and how many
 * executions it took (its retry state `retry:<key>` counts the failed ones), then the steps that
 * have not succeeded — retrying while the run is live, failed once it is over — and finally the step
 * the stored failure cause names, if it failed before any retry state was written (a non-retryable
 * error on its first execution).
 */
export function presentSteps(rows: TaskStepRow[], run: { status: RunStatus; failure: FailureCause | null }): TaskStepItem[] {
  const retries = new Map<string, { row: TaskStepRow; state: StepRetryRow }>();
  for (const row of rows) {
    if (row.key.startsWith("retry:") && row.retry_state)
      retries.set(row.key.slice("retry:".length), { row, state: row.retry_state });
  }
  const items: TaskStepItem[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    if (row.key.startsWith("retry:")) continue;
    const kind = operationKind(row.key);
    seen.add(row.key);
    items.push({
      key: row.key,
      kind,
      status: "completed",
      attempts: kind === "step" ? (retries.get(row.key)?.state.failures ?? 0) + 1 : null,
      at: iso(row.completed_at),
      output: {
        preview: row.preview ?? "null",
        truncated: (row.pretty_chars ?? 0) > (row.preview?.length ?? 0),
        bytes: row.output_bytes ?? 0,
      },
      lastError: null,
      retryAt: null,
    });
  }
  const failure = run.failure;
  const over = isTerminal(run.status);
  for (const [key, { row, state }] of retries) {
    if (seen.has(key)) continue;
    seen.add(key);
    const named = failure?.step === key;
    items.push({
      key,
      kind: "step",
      status: over ? "failed" : "retrying",
      attempts: Math.max(state.failures, named ? (failure?.stepAttempt ?? 0) : 0),
      at: iso(row.completed_at),
      output: null,
      lastError: named && failure ? { name: failure.name, message: failure.message } : (state.lastError ?? null),
      retryAt: over ? null : iso(state.retryAt),
    });
  }
  if (failure?.step && !seen.has(failure.step)) {
    items.push({
      key: failure.step,
      kind: "step",
      status: "failed",
      attempts: failure.stepAttempt ?? 1,
      at: null,
      output: null,
      lastError: { name: failure.name, message: failure.message },
      retryAt: null,
    });
  }
  return items;
}
