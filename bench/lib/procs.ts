import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export type Child = ChildProcess & {
  /** The last ~100k characters of stdout and stderr, for diagnostics. */
  output: () => string;
  /** The child's `RESULT <json>` or `FAILED <reason>` line, kept whole however long it is. */
  resultLine: () => string | undefined;
};

const RESULT_LINE = /^(RESULT|FAILED) /;

/** `node --import tsx <entry>` as one process (signals reach the process doing the work). */
export function spawnTs(entry: string, env: Record<string, string>, args: string[] = []): Child {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: { ...process.env, RUNIFOLD_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output += chunk;
    if (output.length > 200_000) output = output.slice(-100_000);
  };
  // A load process prints its figures as one JSON line that can outgrow the diagnostic tail (it did:
  // the bench then waited 300 s for a RESULT prefix the tail had cut off), so stdout is also read
  // line by line and the result line kept on its own.
  let pending = "";
  let result: string | undefined;
  child.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk;
    for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (RESULT_LINE.test(line)) result = line;
    }
    // Lines other than the result are not needed whole: bound what waits for a newline.
    if (!RESULT_LINE.test(pending) && pending.length > 100_000) pending = "";
  });
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return Object.assign(child, { output: () => output, resultLine: () => result });
}

export function exited(child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve();
    }, timeoutMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
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
