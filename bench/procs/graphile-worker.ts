// A graphile-worker 0.17 process running no-op jobs. Prints READY once it is polling.
// BENCH_GRAPHILE_BATCHED=1 turns on graphile-worker's own batching (its documented performance levers,
// worker.graphile.org/docs/performance#batching): a local queue that locks and fetches
// BENCH_GRAPHILE_LOCAL_QUEUE jobs per round trip, and completions/failures batched per tick.
import { Logger, run } from "graphile-worker";

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const batched = process.env.BENCH_GRAPHILE_BATCHED === "1";
const quiet = new Logger(() => (level, message) => {
  if (level === "error") process.stderr.write(`${message}\n`);
});
const runner = await run({
  connectionString: process.env.DATABASE_URL,
  concurrency,
  maxPoolSize: Number(process.env.BENCH_POOL ?? concurrency + 2),
  pollInterval: 1_000,
  noHandleSignals: true,
  logger: quiet,
  taskList: { noop: async () => {} },
  ...(batched
    ? {
        preset: {
          worker: {
            // graphile warns below `concurrency`; twice it keeps the next fetch's jobs ready while these run.
            localQueue: { size: Number(process.env.BENCH_GRAPHILE_LOCAL_QUEUE ?? concurrency * 2) },
            // 0: batch every completion issued in the same tick (a delay > 0 only adds latency here).
            completeJobBatchDelay: 0,
            failJobBatchDelay: 0,
          },
        },
      }
    : {}),
});
process.stdout.write("READY\n");
process.on("SIGTERM", () => {
  void runner.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
await runner.promise;
