/** LISTEN/NOTIFY channels. Payloads are short identifiers; readers re-read the store. */
export const CHANNELS = {
  /** payload: workflow key `name@version` of a run that became claimable. */
  wake: "runifold_wake",
  /** payload: run id whose visible state changed (status, progress, inputs). */
  task: "runifold_task",
  /** payload: run id that was cancelled; the worker holding it aborts ctx.signal. */
  cancel: "runifold_cancel",
} as const;
