import type { Report } from "./report";

/** What every benchmark receives from bench/run.ts. */
export type BenchContext = {
  /** The bench server's admin URL (database `postgres`); each benchmark makes its own databases. */
  adminUrl: string;
  report: Report;
  quick: boolean;
  /** Worker concurrency per process (RUNIFOLD_WORKER_CONCURRENCY / graphile concurrency / DBOS in-flight). */
  concurrency: number;
  /** Parallel producer loops (and their pool size) that create runs / add jobs / enqueue. */
  producers: number;
  log: (line: string) => void;
};

export const TENANT = "00000000-0000-4000-8000-00000000b001";
