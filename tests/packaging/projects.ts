import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "../helpers/processes";

/**
 * What the packaging tests do with projects outside this repository: pack the workspace packages,
 * and run npm and node in temporary projects that reach only the registry and the tarballs.
 */

export type Command = { code: number | null; stdout: string; stderr: string };

/**
 * The environment a child outside the repository gets: this process's, minus what npm exports to
 * the scripts of the project that started the test run (npm_package_*, npm_lifecycle_*, workspace
 * and prefix settings), so `npm install` in a temporary project acts on that project alone.
 */
export function outsideEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of Object.keys(env)) {
    const lower = name.toLowerCase();
    const fromNpm =
      lower.startsWith("npm_package_") ||
      lower.startsWith("npm_lifecycle_") ||
      /^npm_config_(local_prefix|prefix|workspaces?|include_workspace_root|global)$/.test(lower);
    // Test-runner settings (vitest's NODE_ENV=test, loaders) are not a team's shell either.
    if ((fromNpm || ["INIT_CWD", "NODE_OPTIONS", "NODE_ENV"].includes(name)) && !(name in extra)) delete env[name];
  }
  env.npm_config_audit = "false";
  env.npm_config_fund = "false";
  env.npm_config_update_notifier = "false";
  return env;
}

/** Runs a command to its exit; a non-zero exit (or the deadline) fails with everything it printed. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; allowFailure?: boolean },
): Promise<Command> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? outsideEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const shown = `${command} ${args.join(" ")} (in ${options.cwd})`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${shown} did not exit in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0 && !options.allowFailure) reject(new Error(`${shown} exited ${code}\n${stdout}\n${stderr}`));
      else resolve({ code, stdout, stderr });
    });
  });
}

export type Tarballs = { sdk: string; client: string };

/**
 * `npm pack -w @runifold/sdk -w @runifold/client` from the repository root, as CI does: `prepack`
 * builds each package's dist/ first, so the tarballs hold what this checkout builds. Two test runs
 * on one checkout would rebuild the same dist/ at once (tsup cleans it first), so packing holds a
 * lock per checkout.
 */
export async function packWorkspaces(destination: string): Promise<Tarballs> {
  mkdirSync(destination, { recursive: true });
  await withPackLock(() =>
    run("npm", ["pack", "-w", "@runifold/sdk", "-w", "@runifold/client", "--pack-destination", destination], {
      cwd: ROOT,
      env: { ...outsideEnv(), npm_config_loglevel: "warn" },
      timeoutMs: 180_000,
    }),
  );
  const files = readdirSync(destination);
  const find = (prefix: string) => {
    const file = files.find((name) => name.startsWith(prefix) && name.endsWith(".tgz"));
    if (!file) throw new Error(`npm pack made no ${prefix}*.tgz in ${destination} (${files.join(", ")})`);
    return path.join(destination, file);
  };
  return { sdk: find("runifold-sdk-"), client: find("runifold-client-") };
}

/** A lock held longer than this is a crashed run's, and is taken over. */
const STALE_LOCK_MS = 5 * 60_000;

/** Runs `work` holding this checkout's pack lock: packing rebuilds the packages' dist/ folders, one run at a time. */
export async function withPackLock<T>(work: () => Promise<T>): Promise<T> {
  const id = createHash("sha256").update(ROOT).digest("hex").slice(0, 12);
  const lock = path.join(os.tmpdir(), `runifold-pack-${id}.lock`);
  const deadline = Date.now() + STALE_LOCK_MS + 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`another test run has held ${lock} for ${Math.round(age / 1000)} s`);
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A tarball's entries, as `tar tzvf` lists them: path and mode string (`-rwxr-xr-x`). */
export async function tarEntries(tarball: string): Promise<{ path: string; mode: string }[]> {
  const { stdout } = await run("tar", ["tzvf", tarball], { cwd: path.dirname(tarball) });
  return stdout
    .split("\n")
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const parts = line.trim().split(/\s+/);
      return { mode: parts[0] as string, path: parts.at(-1) as string };
    });
}

/** A copy of a project of this repository in `into`, without anything installed or built. */
export function copyProject(relative: string, into: string): string {
  const from = path.join(ROOT, relative);
  const skipped = new Set(["node_modules", "dist"]);
  cpSync(from, into, {
    recursive: true,
    filter: (source) =>
      !path
        .relative(from, source)
        .split(path.sep)
        .some((part) => skipped.has(part)),
  });
  if (!existsSync(path.join(into, "package.json"))) throw new Error(`no package.json copied from ${from}`);
  return into;
}

/** The packages installed in a project: every `node_modules/<name>` and `node_modules/@scope/<name>`, nested ones too. */
export function installedPackages(project: string): string[] {
  const names = new Set<string>();
  const walk = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith(".")) continue;
      const scoped = entry.startsWith("@");
      const packages = scoped ? readdirSync(path.join(modules, entry)).map((name) => `${entry}/${name}`) : [entry];
      for (const name of packages) {
        names.add(name);
        walk(path.join(modules, name, "node_modules"));
      }
    }
  };
  walk(path.join(project, "node_modules"));
  return [...names].sort();
}

/** Sends SIGTERM to a child's process group, then SIGKILL if it is still there after `graceMs`. */
export async function stopGroup(child: ChildProcess | undefined, graceMs = 5_000): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
  // Whatever the leader started and left behind in its group goes with it.
  signal("SIGKILL");
}
