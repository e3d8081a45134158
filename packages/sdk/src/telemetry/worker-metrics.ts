import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { WorkerObserver } from "./observer";

/** Seconds: from a few milliseconds (an in-memory step, an idle queue) to many minutes (a slow call, a backlog). */
const STEP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];
const CLAIM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];

/**
 * The worker's in-process metric families on `registry`, and the observer that feeds them. Labels
 * are bounded: `workflow` is a served `name@version` and `outcome` a fixed set — never a run ID.
 * Calling it twice on one registry reuses the families (prom-client refuses duplicate names).
 */
export function createWorkerMetrics(registry: Registry): WorkerObserver {
  const recovered = metric(
    registry,
    "runifold_lease_expiries_recovered_total",
    () =>
      new Counter({
        name: "runifold_lease_expiries_recovered_total",
        help: "Claims that took over a run whose lease had expired (its worker crashed or was cut off)",
        labelNames: ["workflow"],
        registers: [registry],
      }),
  );
  const attempts = metric(
    registry,
    "runifold_attempts_total",
    () =>
      new Counter({
        name: "runifold_attempts_total",
        help: "Attempts that ended, by outcome: completed, failed, suspended (parked), cancelled, released (worker stopping), abandoned (run lost)",
        labelNames: ["workflow", "outcome"],
        registers: [registry],
      }),
  );
  const failed = metric(
    registry,
    "runifold_attempts_failed_total",
    () =>
      new Counter({
        name: "runifold_attempts_failed_total",
        help: "Attempts that failed their run or lost it (outcome failed or abandoned: lease lost, store outage)",
        labelNames: ["workflow"],
        registers: [registry],
      }),
  );
  const inProgress = metric(
    registry,
    "runifold_attempts_in_progress",
    () =>
      new Gauge({
        name: "runifold_attempts_in_progress",
        help: "Attempts this process is executing now (compare with RUNIFOLD_WORKER_CONCURRENCY)",
        registers: [registry],
      }),
  );
  const steps = metric(
    registry,
    "runifold_step_duration_seconds",
    () =>
      new Histogram({
        name: "runifold_step_duration_seconds",
        help: "Duration of one execution of a step body (replayed steps do not execute and are not counted)",
        labelNames: ["workflow", "outcome"],
        buckets: STEP_BUCKETS,
        registers: [registry],
      }),
  );
  const claimToStart = metric(
    registry,
    "runifold_claim_to_start_seconds",
    () =>
      new Histogram({
        name: "runifold_claim_to_start_seconds",
        help: "From the moment a run became claimable (created, woken, answered, lease expired) to a worker starting its attempt",
        labelNames: ["workflow"],
        buckets: CLAIM_BUCKETS,
        registers: [registry],
      }),
  );
  return {
    runClaimed({ workflow, claimableForSeconds, recoveredExpiredLease }) {
      inProgress.inc();
      claimToStart.observe({ workflow }, Math.max(0, claimableForSeconds));
      if (recoveredExpiredLease) recovered.inc({ workflow });
    },
    attemptEnded({ workflow, outcome }) {
      inProgress.dec();
      attempts.inc({ workflow, outcome });
      if (outcome === "failed" || outcome === "abandoned") failed.inc({ workflow });
    },
    stepExecuted({ workflow, outcome, seconds }) {
      steps.observe({ workflow, outcome }, seconds);
    },
  };
}

function metric<M>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}
