/** LISTEN/NOTIFY channels. Payloads are short identifiers; readers re-read the store. */
export const CHANNELS = {
  /** payload: workflow key `name@version` of a run that became claimable. */
  wake: "runifold_wake",
  /**
   * payload: id of a run whose visible state changed (status, progress, inputs), or several ids
   * separated by spaces (a batch of terminal writes: ops/finish-run.ts); see taskIdsOf.
   */
  task: "runifold_task",
  /** payload: run id that was cancelled; the worker holding it aborts ctx.signal. */
  cancel: "runifold_cancel",
} as const;

/** The run ids a CHANNELS.task payload names (one, or a batch separated by spaces). */
export function taskIdsOf(payload: string): string[] {
  return payload.includes(" ") ? payload.split(" ").filter((id) => id.length > 0) : [payload];
}
