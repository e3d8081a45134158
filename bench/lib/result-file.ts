// The child side of bench/lib/procs.ts spawnWithResult: a child writes `{ result }` or `{ failed }` to
// BENCH_RESULT_FILE. Written to a temporary name and renamed, so a parent that polls for the file
// (DBOS direct) never reads half of it.
import { renameSync, writeFileSync } from "node:fs";

function write(body: unknown) {
  const file = process.env.BENCH_RESULT_FILE;
  if (!file) throw new Error("BENCH_RESULT_FILE is not set (spawn this child with spawnWithResult)");
  writeFileSync(`${file}.tmp`, JSON.stringify(body));
  renameSync(`${file}.tmp`, file);
}

export const writeResult = (result: unknown) => write({ result });
export const writeFailure = (error: unknown) => write({ failed: error instanceof Error ? error.message : String(error) });
