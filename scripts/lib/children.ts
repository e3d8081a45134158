import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * Child processes of the supervisors (`npm start`, `npm test`). Each child leads its own process
 * group, so a terminal's Ctrl-C reaches only the supervisor, which then stops children in order;
 * signalling the group (negative pid) also reaches anything a child started itself.
 */
export function spawnNode(label: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): ChildProcess {
  const child = track(spawn(process.execPath, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] }));
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    const target = stream === child.stderr ? process.stderr : process.stdout;
    createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
      target.write(`[${label}] ${line}\n`);
    });
  }
  return child;
}

/** Runs a command to completion with inherited output; resolves with its exit code. */
export function runCommand(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "inherit", "inherit"],
      detached: true,
    });
    track(child);
    child.once("error", () => resolve(127));
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

const tracked = new Set<ChildProcess>();

/** Remembers a child so `killAllNow()` (a second Ctrl-C, a crash) can reach it. */
export function track(child: ChildProcess): ChildProcess {
  tracked.add(child); // kept after exit too: its group may outlive the leader
  return child;
}

export function trackedChildren(): ChildProcess[] {
  return [...tracked];
}

export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

export function exited(child: ChildProcess): Promise<void> {
  if (!isRunning(child)) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** SIGTERM every group, wait up to `graceMs`, then SIGKILL whatever is left (groups included). */
export async function stopChildren(children: ChildProcess[], graceMs: number): Promise<void> {
  for (const child of children) if (isRunning(child)) killGroup(child, "SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([Promise.all(children.map(exited)), timeout]);
  clearTimeout(timer);
  for (const child of children) killGroup(child, "SIGKILL");
  await Promise.all(children.map(exited));
}

/** Synchronous last resort: SIGKILL every tracked group. Safe to call from an `exit` handler. */
export function killAllNow() {
  for (const child of tracked) killGroup(child, "SIGKILL");
}
