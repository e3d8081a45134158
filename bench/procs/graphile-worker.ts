// A graphile-worker 0.17 process running no-op jobs. Prints READY once it is polling.
import { Logger, run } from "graphile-worker";

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
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
});
process.stdout.write("READY\n");
process.on("SIGTERM", () => {
  void runner.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
await runner.promise;
