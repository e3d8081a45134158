/**
 * Browser-safe door of lib/tasks: pure functions client components may import (no store, no
 * postgres). Server code uses lib/tasks/index.ts.
 */
export type { Diagnosis, DiagnosisTone } from "./diagnose-task";
export { diagnoseTask } from "./diagnose-task";
