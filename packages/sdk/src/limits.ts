/**
 * The largest values the engine stores. Everything a workflow or a caller hands the store is
 * measured as its JSON text before any statement runs, so an oversized value fails with a clear
 * error instead of bloating every replay, `tasks/get` and listen stream (docs/architecture.md).
 */
export type Limits = {
  /** One step's output (it is reloaded on every resume of the run). */
  stepOutputBytes: number;
  /** The run's result (stored in the terminal event and sent on every read). */
  resultBytes: number;
  /** One signal's payload. */
  signalPayloadBytes: number;
  /** One answer to an input request. */
  inputAnswerBytes: number;
  /** A progress update's message, in characters. */
  progressMessageChars: number;
  /** One ctx.log entry (message and data). */
  logEntryBytes: number;
  /** Timeline events of one generation of a run (docs/authoring.md "History limits"); warned at 80 %. */
  historyEvents: number;
  /** Stored bytes of one generation's history (step outputs and answers: what a resume loads); warned at 80 %. */
  historyBytes: number;
};

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  stepOutputBytes: 1024 * 1024,
  resultBytes: 4 * 1024 * 1024,
  signalPayloadBytes: 256 * 1024,
  inputAnswerBytes: 64 * 1024,
  progressMessageChars: 1_000,
  logEntryBytes: 16 * 1024,
  // Temporal's limits (docs.temporal.io/workflow-execution/limits): a long-lived run continues as new first.
  historyEvents: 51_200,
  historyBytes: 50 * 1024 * 1024,
});

export function resolveLimits(overrides?: Partial<Limits>): Limits {
  return { ...DEFAULT_LIMITS, ...overrides };
}
