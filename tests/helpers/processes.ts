import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { waitForValue } from "./wait-for";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Spawns a TypeScript entry point as one real Node process (`node --import tsx`, not the tsx
 * wrapper, so a signal reaches the process that does the work), collecting its output.
 */
export function spawnTs(
  entry: string,
  env: Record<string, string>,
  args: string[] = [],
): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: { ...process.env, RUNIFOLD_LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  return Object.assign(child, { output: () => output });
}

export function waitForExit(child: ChildProcess, timeoutMs = 20_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("process did not exit in time")), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/**
 * The unnamed, truthy form of waitForValue (tests/helpers/wait-for.ts), kept for callers written
 * before it; new waits use waitFor / waitForValue, whose failure names what was awaited.
 */
export function until<T>(probe: () => Promise<T | undefined | false | null>, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  return waitForValue(probe, { describe: "the condition", timeoutMs, everyMs });
}

/** The line `READY <url>` a test server process prints once it listens (tests/helpers/mcp-server-process.ts). */
export function readyUrl(child: ChildProcess & { output: () => string }, timeoutMs = 30_000): Promise<string> {
  return waitForValue(
    () => {
      const url = /READY (\S+)/.exec(child.output())?.[1];
      if (!url && child.exitCode !== null)
        throw new Error(`the process exited (${child.exitCode}) before READY:\n${child.output()}`);
      return url;
    },
    { describe: "the server process to print READY", timeoutMs },
  );
}
