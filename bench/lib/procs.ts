import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export type Child = ChildProcess & {
  /** The last ~100k characters of stdout and stderr, for diagnostics only (never for figures). */
  output: () => string;
};

/** BENCH_CHILD_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`): Node flags for every process the bench starts. */
export const childNodeArgs = (): string[] => process.env.BENCH_CHILD_NODE_ARGS?.split(" ").filter(Boolean) ?? [];

/** `node --import tsx <entry>` as one process (signals reach the process doing the work). */
export function spawnTs(entry: string, env: Record<string, string>, args: string[] = []): Child {
  const extra = childNodeArgs();
  const child = spawn(process.execPath, [...extra, "--import", "tsx", path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: { ...process.env, RUNIFOLD_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk;
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return Object.assign(child, { output: () => output });
}

let resultDir: string | undefined;
let resultSeq = 0;

/**
 * A fresh path for one child's result file. Figures travel through files, not stdout: a result line
 * once outgrew the diagnostic tail and the bench waited 300 s for a prefix that had been cut off.
 */
export function resultPath(label: string): string {
  resultDir ??= mkdtempSync(path.join(os.tmpdir(), "runifold-bench-"));
  return path.join(resultDir, `${label}-${++resultSeq}.json`);
}

/** Spawns a child that writes its figures to the file named by BENCH_RESULT_FILE (bench/lib/result-file.ts). */
export function spawnWithResult(entry: string, env: Record<string, string>, label: string) {
  const file = resultPath(label);
  return { child: spawnTs(entry, { ...env, BENCH_RESULT_FILE: file }), file };
}

/** Reads a result file, or throws saying why there is none (a child that exits without one fails its section). */
export function readResult<T>(child: Child, file: string, what: string): T {
  const tail = () => child.output().slice(-2_000);
  if (!existsSync(file)) throw new Error(`${what} wrote no result (exit ${child.exitCode ?? child.signalCode})\n${tail()}`);
  const body = JSON.parse(readFileSync(file, "utf8")) as { failed?: string; result?: T };
  if (body.failed !== undefined) throw new Error(`${what} failed: ${body.failed}\n${tail()}`);
  return body.result as T;
}

/** Waits for the child to exit (killing it after timeoutMs), then reads its result file. */
export async function awaitResult<T>(child: Child, file: string, timeoutMs: number, what: string): Promise<T> {
  const timedOut = !(await exited(child, timeoutMs));
  if (timedOut) throw new Error(`${what} did not finish within ${timeoutMs} ms (killed)\n${child.output().slice(-2_000)}`);
  return readResult<T>(child, file, what);
}

/** Resolves true when the child exited by itself, false when it had to be killed after timeoutMs. */
export function exited(child: ChildProcess, timeoutMs = 20_000): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(false);
    }, timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export async function stopAll(children: ChildProcess[], timeoutMs = 15_000) {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  await Promise.all(children.map((child) => exited(child, timeoutMs)));
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | false | null> | T | undefined | false | null,
  timeoutMs: number,
  what: string,
  everyMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Runs `count` tasks through `concurrency` parallel loops; returns when all have finished. */
export async function inParallel(count: number, concurrency: number, task: (index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
}
