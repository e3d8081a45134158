import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { outsideEnv, run, stopGroup, withPackLock } from "./projects";

/** What tests/packaging/server.test.ts does with @runifold/server outside this repository. */

/**
 * `npm pack -w @runifold/server` (its prepack copies the standalone build into dist/ and bundles the
 * bin) under the checkout's pack lock, then an empty project under `scratch` with the tarball installed.
 */
export async function installServerPackage(scratch: string): Promise<{ tarball: string; project: string; timings: string }> {
  const tarballs = path.join(scratch, "tarballs");
  mkdirSync(tarballs, { recursive: true });
  const packStarted = Date.now();
  await withPackLock(() =>
    run("npm", ["pack", "-w", "@runifold/server", "--pack-destination", tarballs], {
      cwd: ROOT,
      env: { ...outsideEnv(), npm_config_loglevel: "warn" },
      timeoutMs: 300_000,
    }),
  );
  const file = readdirSync(tarballs).find((name) => /^runifold-server-.*\.tgz$/.test(name));
  if (!file) throw new Error(`npm pack made no runifold-server-*.tgz in ${tarballs}`);
  const tarball = path.join(tarballs, file);
  const installStarted = Date.now();
  const project = path.join(scratch, "team");
  mkdirSync(project);
  await run("npm", ["init", "-y"], { cwd: project });
  await run("npm", ["install", tarball], { cwd: project, timeoutMs: 300_000 });
  const seconds = (from: number, to: number) => Math.round((to - from) / 1000);
  const timings = `tarball ${(statSync(tarball).size / 1e6).toFixed(1)} MB; pack ${seconds(packStarted, installStarted)} s, install ${seconds(installStarted, Date.now())} s`;
  return { tarball, project, timings };
}

/** This process's environment minus every way of naming a Postgres server, as in a fresh shell. */
export function withoutPostgres(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = outsideEnv(extra);
  for (const name of Object.keys(env)) {
    if (!(name in extra) && (name === "DATABASE_URL" || name.startsWith("PG"))) delete env[name];
  }
  return env;
}

export type Server = { child: ChildProcess; output: () => string; closed: Promise<number | null> };
const started: Server[] = [];

/** `npx runifold-server <args>` in the project, leading its own process group (as a terminal's job). */
export function npxServer(project: string, args: string[], env: NodeJS.ProcessEnv): Server {
  const child = spawn("npx", ["runifold-server", ...args], {
    cwd: project,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  // `close`, not `exit`: npx may exit before the bin under it has finished stopping; the bin holds the pipes.
  const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const server = { child, output: () => output, closed };
  started.push(server);
  return server;
}

/** Resolves with the output once `runifold-server dev` printed its welcome; fails when it exits first. */
export function waitForWelcome(server: Server): Promise<string> {
  return waitFor(
    () => {
      if (server.child.exitCode !== null)
        throw new Error(`runifold-server exited (${server.child.exitCode}):\n${server.output()}`);
      return server.output();
    },
    (output) => output.includes("Press Ctrl-C to stop."),
    { describe: "runifold-server dev to print its welcome", timeoutMs: 180_000, everyMs: 250 },
  );
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The embedded server's state file (its data directory moves under /var/tmp when root's postgres user cannot reach the project). */
export function embeddedState(project: string): { postmasterPid: number; dataDir: string } {
  return JSON.parse(readFileSync(path.join(project, ".runifold", "pg.embedded.json"), "utf8"));
}

/** afterAll: every server stopped (SIGTERM lets dev stop its PostgreSQL), a leftover postmaster too, and a /var/tmp relocation removed. */
export async function cleanUp(project: string | undefined): Promise<void> {
  for (const server of started) {
    try {
      process.kill(-(server.child.pid as number), "SIGTERM");
    } catch {
      continue; // the whole group is gone
    }
    await Promise.race([server.closed, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    await stopGroup(server.child, 1_000);
  }
  started.length = 0;
  if (!project || !existsSync(path.join(project, ".runifold", "pg.embedded.json"))) return;
  const state = embeddedState(project);
  if (alive(state.postmasterPid)) process.kill(state.postmasterPid, "SIGQUIT");
  if (/^\/var\/tmp\/runifold-[0-9a-f]+\/pg$/.test(state.dataDir))
    rmSync(path.dirname(state.dataDir), { recursive: true, force: true });
}
