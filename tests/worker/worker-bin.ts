import path from "node:path";
import type postgres from "postgres";
import { ROOT, spawnTs, waitForExit } from "../helpers/processes";
import { waitForValue } from "../helpers/wait-for";

/**
 * The SDK's bin as a team runs it, for the worker tests: one real `node --import tsx` process,
 * with tsx pointed at the project's tsconfig so the fixture modules' `@runifold/*` imports resolve.
 */
export const WORKER_BIN = "packages/sdk/src/bin/runifold-worker.ts";
export const WORKER_MODULES = "tests/fixtures/worker-modules";

export type WorkerProcess = ReturnType<typeof startWorker>;

export function startWorker(args: string[], env: Record<string, string>) {
  // These tests are about the module a team serves: the built-in webhook delivery workflow (on by
  // default) would be one more definition in every list they check. tests/webhooks/worker.test.ts
  // covers it (a test may still pass RUNIFOLD_WEBHOOKS=on).
  const base = { TSX_TSCONFIG_PATH: path.join(ROOT, "tsconfig.json"), RUNIFOLD_POLL_MS: "200", RUNIFOLD_WEBHOOKS: "off" };
  return spawnTs(WORKER_BIN, { ...base, ...env }, args);
}

/** Runs the bin to its exit: for the cases that must refuse to start (so exit on their own). */
export async function runToExit(args: string[], env: Record<string, string>) {
  const child = startWorker(args, env);
  const code = await waitForExit(child, 30_000);
  return { code, output: child.output(), pid: String(child.pid) };
}

export type Registration = { id: string; workflows: string[]; stopped_at: Date | null };

/**
 * Waits until the process serves: its worker_registrations row exists, which it writes only after
 * the schema check and publishing. Fails at once, with the output, if the process exits first.
 */
export function registrationOf(sql: postgres.Sql, child: WorkerProcess): Promise<Registration> {
  return waitForValue(
    async () => {
      if (child.exitCode !== null) throw new Error(`the worker exited (${child.exitCode}) before serving:\n${child.output()}`);
      const [row] = await sql<Registration[]>`
        SELECT id, workflows, stopped_at FROM worker_registrations WHERE pid = ${String(child.pid)}`;
      return row;
    },
    { describe: `worker process ${child.pid} to register`, timeoutMs: 30_000 },
  );
}

/** SIGTERM, then the exit code (a drained worker exits 0); SIGKILL if it is still there after that. */
export async function stopWorker(child: WorkerProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill("SIGTERM");
  try {
    return await waitForExit(child, 30_000);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}
