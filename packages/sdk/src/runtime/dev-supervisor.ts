import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { DEV_CHILD_ENV, type DevChildMessage } from "./dev-child";
import { resolveDevStore } from "./dev-store";
import { DevWatch } from "./dev-watch";

export type DevSupervisorOptions = {
  /** The workflows module as given (relative to cwd). */
  workflows: string;
  /** Flags passed on to each worker process (e.g. --no-webhooks). */
  passArgs: string[];
  env: Record<string, string | undefined>;
  cwd?: string;
};

/**
 * `runifold-worker --dev`: finds the store (dev-store.ts), then supervises one worker process at a
 * time and replaces it when the workflows module or a local file it imports changes. A new process
 * per reload, not a re-import: module caches, timers and connections of the old code go with it.
 * The old process drains first (the worker's SIGTERM path: no new claims, running attempts finish
 * or are handed back within 10 s), so a run in flight completes, at least once, on one side or the
 * other. Returns an exit code for a start-up failure, or undefined once supervising.
 */
export function runDevSupervisor(options: DevSupervisorOptions): number | undefined {
  const say = (line: string) => process.stderr.write(`runifold-worker --dev: ${line}\n`);
  const cwd = options.cwd ?? process.cwd();
  const file = path.resolve(cwd, options.workflows);
  const shown = (target: string) => path.relative(cwd, target) || target;
  if (!existsSync(/* turbopackIgnore: true */ file)) {
    process.stderr.write(`runifold-worker: workflows module not found: ${file}\n`);
    return 3;
  }
  const store = resolveDevStore(options.env, cwd);
  if ("error" in store) {
    process.stderr.write(`runifold-worker: ${store.error}\n`);
    return 3;
  }
  say(`serving ${shown(file)} against ${store.describe}`);
  // The point of a dev loop is to run edited code at once, runs under way included: dev mode
  // publishes changed code over live runs of the same name@version (docs/authoring.md "The dev loop").
  say(
    "changed code is published even while runs of its name@version are live (RUNIFOLD_ACCEPT_CODE_CHANGE=*), " +
      "and those runs continue on it; outside the dev loop, bump the version or guard the change with ctx.patched",
  );
  const childEnv: NodeJS.ProcessEnv = {
    ...(options.env as NodeJS.ProcessEnv),
    DATABASE_URL: store.databaseUrl,
    RUNIFOLD_ACCEPT_CODE_CHANGE: "*",
    [DEV_CHILD_ENV]: "1",
  };
  // The same bin and Node flags (a loader given with --import stays), but not the debugger's: the
  // next process could not take the port the supervisor holds.
  const nodeFlags = process.execArgv.filter((flag) => !flag.startsWith("--inspect"));
  const command = [...nodeFlags, process.argv[1] as string, "--workflows", file, ...options.passArgs];

  let child: ChildProcess | undefined;
  let generation = 0;
  let restart = false;
  let stopping = false;
  let signals = 0;

  const watch = new DevWatch((changed) => {
    if (stopping) return;
    if (!child) {
      say(`${shown(changed)} changed: starting the worker`);
      start();
      return;
    }
    if (restart) return; // already reloading: the next process reads the files as they are then
    say(`${shown(changed)} changed: reloading (the worker drains its in-flight attempts first)`);
    restart = true;
    child.kill("SIGTERM");
  });
  watch.add([file]);

  function start() {
    generation += 1;
    const mine = generation;
    // Its own process group: a Ctrl-C in the terminal reaches the supervisor only, which forwards
    // one SIGTERM (a second signal would make the worker exit without draining).
    const spawned = spawn(process.execPath, command, {
      cwd,
      env: childEnv,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      detached: true,
    });
    child = spawned;
    spawned.on("message", (message: DevChildMessage) => {
      if (message.type === "imports") watch.add(message.files);
      else if (message.type === "serving" && mine > 1) say(`reloaded: serving the new code (pid ${spawned.pid})`);
    });
    spawned.on("exit", (code, signal) => {
      child = undefined;
      if (stopping) {
        watch.close();
        process.exit(signals > 1 ? 130 : (code ?? 1));
      }
      if (restart) {
        restart = false;
        start();
        return;
      }
      say(
        `the worker exited (${signal ?? `exit code ${code}`}); save a change to ${shown(file)} or its imports to start it again`,
      );
    });
  }

  const onSignal = () => {
    signals += 1;
    stopping = true;
    if (!child) {
      watch.close();
      process.exit(0);
    }
    if (signals === 1) say("stopping: the worker drains its in-flight attempts (a second signal exits at once)");
    child.kill("SIGTERM"); // the second one makes the worker exit without draining
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  start();
  return undefined;
}
