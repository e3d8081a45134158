// A DBOS Transact process with a one-step workflow. Modes:
//   queue  — dequeues `bench` (enqueued by a DBOSClient in the bench process); prints READY.
//   direct — on SIGUSR2 runs BENCH_COUNT workflows itself, BENCH_CONCURRENCY at a time; writes { ms } to
//            BENCH_RESULT_FILE (bench/lib/result-file.ts).
import { DBOS } from "@dbos-inc/dbos-sdk";
import { writeFailure, writeResult } from "../lib/result-file";

const mode = process.env.BENCH_MODE ?? "queue";
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

async function only() {
  return Date.now();
}
async function benchNoop() {
  await DBOS.runStep(only, { name: "only" });
  return 1;
}
const workflow = DBOS.registerWorkflow(benchNoop, { name: "benchNoop" });

DBOS.setConfig({
  name: "runifold-bench",
  systemDatabaseUrl: process.env.DATABASE_URL,
  systemDatabasePoolSize: Number(process.env.BENCH_POOL ?? concurrency + 2),
  executorID: `bench-${process.pid}`,
  logLevel: "error",
});
await DBOS.launch();
if (mode === "queue") {
  // Unbounded per-worker concurrency and a 50 ms poll (DBOS default: 1000 ms): the queue settings most
  // favourable to DBOS throughput; every poll takes everything startable.
  await DBOS.registerQueue("bench", {
    minPollingIntervalMs: Number(process.env.BENCH_DBOS_POLL_MS ?? 50),
    onConflict: "always_update",
  });
}
process.stdout.write("READY\n");

process.on("SIGUSR2", () => {
  const count = Number(process.env.BENCH_COUNT ?? 0);
  const started = performance.now();
  let next = 0;
  const loop = async () => {
    for (let i = next++; i < count; i = next++) await workflow();
  };
  void Promise.all(Array.from({ length: Math.min(concurrency, count) }, loop)).then(
    () => writeResult({ ms: performance.now() - started }),
    (error: unknown) => writeFailure(error),
  );
});
process.on("SIGTERM", () => {
  void DBOS.shutdown().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
