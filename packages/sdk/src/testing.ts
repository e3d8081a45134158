/**
 * `@runifold/sdk/testing`: test a team's workflows against a real store — `createTestEnvironment`
 * (a fresh migrated database, a real worker, input answers, signals, timers advanced on demand,
 * results and history), `replayHistory` (a workflow's code against an exported run history, no
 * database) — plus the worker-internal operations integration tests use to drive runs
 * without a worker. Production code never imports this door (lint keeps it to tests/ and bench/).
 */

export { admitConcurrencyWaiters } from "./ops/admit-concurrency-waiters";
export { awaitChildren } from "./ops/await-children";
export { checkpointSteps } from "./ops/checkpoint-step";
export { claimRuns, LEASE_PLAN_SETTINGS } from "./ops/claim-runs";
export { continueRunAsNew } from "./ops/continue-as-new";
export { finishRun, finishRuns } from "./ops/finish-run";
export { LAZY_STEP_BYTES, loadRunState } from "./ops/load-run-state";
export { notifyAfterCommit } from "./ops/notify-after-commit";
export { markExpiredLeases, promoteDueTimers } from "./ops/promote-due-runs";
export { pruneIdempotencyKeys } from "./ops/prune-idempotency-keys";
export { renewLease } from "./ops/renew-lease";
export { reportProgress } from "./ops/report-progress";
export { startChild } from "./ops/start-child";
export type { HistoryOperation, OperationKind, RunHistory } from "./replay/history-format";
export type { ReplayedOperation, ReplayReport } from "./testing/replay-history";
export { ReplayDivergence, replayHistory } from "./testing/replay-history";
export type {
  HistoryEvent,
  RunOutcome,
  RunSnapshot,
  TestEnvironment,
  TestEnvironmentOptions,
} from "./testing/test-environment";
export { createTestEnvironment } from "./testing/test-environment";
