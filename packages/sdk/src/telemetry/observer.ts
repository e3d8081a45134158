/**
 * What a worker reports about its own work, for metrics (worker-metrics.ts binds it to prom-client;
 * an embedding program may bind it to anything). Plain callbacks, so the engine stays free of any
 * metrics library; a throwing observer is ignored (notify), never the run's problem.
 */
export type WorkerObserver = {
  /** A run was claimed: how long it had been claimable, and whether the claim took over an expired lease. */
  runClaimed?(event: { workflow: string; claimableForSeconds: number; recoveredExpiredLease: boolean }): void;
  /** An attempt ended, with its outcome (AttemptOutcome). */
  attemptEnded?(event: { workflow: string; outcome: AttemptOutcome; seconds: number }): void;
  /** One execution of a step body ended (replayed steps do not execute, so they are not reported). */
  stepExecuted?(event: { workflow: string; outcome: "completed" | "failed"; seconds: number }): void;
};

/**
 * completed / failed: the run ended so; suspended: it parked (sleep, signal, input, retry backoff);
 * cancelled: a cancel request stopped it; released: this worker stopped and handed it back;
 * abandoned: the attempt lost the run (lease lost or expired, store outage) and another takes over.
 */
export type AttemptOutcome = "completed" | "failed" | "suspended" | "cancelled" | "released" | "abandoned";

type EventOf<K extends keyof WorkerObserver> = Parameters<NonNullable<WorkerObserver[K]>>[0];

export function notify<K extends keyof WorkerObserver>(observer: WorkerObserver | undefined, name: K, event: EventOf<K>): void {
  const callback = observer?.[name] as ((event: EventOf<K>) => void) | undefined;
  if (!callback) return;
  try {
    callback.call(observer, event);
  } catch {
    // An observer's bug must not fail a run or stop a worker.
  }
}
