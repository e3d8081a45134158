/**
 * Test-only door: worker-internal operations that integration tests and benchmarks drive directly
 * (claiming and finishing runs without a worker). Production code uses the worker
 * through lib/engine/index.ts; lint keeps this door to tests/ and bench/.
 */
export { claimRuns } from "./ops/claim-runs";
export { finishRun } from "./ops/finish-run";
