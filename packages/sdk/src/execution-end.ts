/**
 * How one attempt of a run ended (executor.ts decides it; telemetry records it): terminal, parked
 * at a durable boundary, or abandoned to the lease. Its own file so telemetry, which the executor's
 * steps call, can name it without importing the executor.
 */
export type ExecutionEnd = "completed" | "failed" | "suspended" | "abandoned";
