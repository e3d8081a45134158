/**
 * Test-only door: worker-internal operations that integration tests and benchmarks drive directly
 * (claiming and finishing runs without a worker, one purge batch). Production code uses the worker
 * and the retention cleaner through lib/engine/index.ts; lint keeps this door to tests/ and bench/.
 */
export { claimRuns } from "./ops/claim-runs";
export { finishRun } from "./ops/finish-run";
export { purgeBatch } from "./retention/purge-batch";
