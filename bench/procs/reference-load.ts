// The sequential half of bench/reference-server.ts: task creation one request at a time against each
// server in turn, in blocks (reference, Runifold, reference, …), so a slow minute of a shared machine
// lands on both. BENCH_TARGETS: JSON LegacyTarget[] with their sessions open; BENCH_CREATES per target.
// Writes { [name]: { times, ids } } to BENCH_RESULT_FILE.

import { createdTaskId, createTaskRequest, type LegacyTarget, send } from "../lib/legacy-session";
import { writeFailure, writeResult } from "../lib/result-file";

const targets = JSON.parse(process.env.BENCH_TARGETS ?? "[]") as LegacyTarget[];
const creates = Number(process.env.BENCH_CREATES ?? 200);
const BLOCK = 20;
const WARM_UP = 30;

async function createOnce(target: LegacyTarget): Promise<{ ms: number; id: string }> {
  const t0 = performance.now();
  const id = createdTaskId(await send(target, createTaskRequest(target)));
  return { ms: performance.now() - t0, id };
}

try {
  for (const target of targets) for (let i = 0; i < WARM_UP; i++) await createOnce(target);
  const samples = Object.fromEntries(targets.map((target) => [target.name, { times: [] as number[], ids: [] as string[] }]));
  for (let done = 0; done < creates; done += BLOCK)
    for (const target of targets)
      for (let i = 0; i < Math.min(BLOCK, creates - done); i++) {
        const { ms, id } = await createOnce(target);
        samples[target.name]?.times.push(ms);
        samples[target.name]?.ids.push(id);
      }
  writeResult(samples);
} catch (error) {
  writeFailure(error);
  process.exitCode = 1;
}
