/**
 * Browser-safe door of lib/engine: the run state table (pure data and predicates, no store).
 * Server code uses lib/engine/index.ts, which re-exports the same names.
 */
export type { RunStatus } from "./states";
export { isTerminal, RUN_STATUSES, TERMINAL_STATUSES, WAITING_STATUSES } from "./states";
