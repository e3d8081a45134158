import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { inject } from "vitest";
import { parse } from "yaml";
import { withDatabase } from "../helpers/global-setup";
import { ROOT } from "../helpers/processes";
import { outsideEnv, run, stopGroup } from "../packaging/projects";

/** What the deploy tests share: the standalone build, assembled output, empty databases, processes. */

/**
 * The standalone output `next build` writes (next.config.ts). `npm test` runs the build suite before
 * the integration suite (scripts/test-all.ts); run alone, build first. Missing output fails the
 * file rather than skipping it: a skipped production test would pass CI while testing nothing.
 */
export function requireStandaloneBuild(): void {
  const server = path.join(ROOT, ".next", "standalone", "server.js");
  if (!existsSync(server))
    throw new Error(
      `tests/deploy needs a production build with standalone output (${path.relative(ROOT, server)} is missing): ` +
        "run `npm run build` first (`npm test` builds before the integration suite).",
    );
}

/**
 * scripts/deploy/assemble.ts, as the Dockerfile's build stage runs it; outside `npm test`'s npm
 * settings, so its `npm install` acts on the worker directory alone.
 */
export async function assemble(args: string[]): Promise<void> {
  await run(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts/deploy/assemble.ts"), ...args], {
    cwd: ROOT,
    env: outsideEnv(),
    timeoutMs: 300_000,
  });
}

/** A database on the test server that nothing has touched: no migrations, no seed. */
export async function emptyDatabase(label: string): Promise<{ url: string; sql: postgres.Sql; drop(): Promise<void> }> {
  const adminUrl = inject("adminDatabaseUrl");
  const name = `t_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  return {
    url,
    sql,
    async drop() {
      await sql.end({ timeout: 5 });
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      // Its runtime roles (migration 0035, the migrate job) are the server's, named after it.
      for (const kind of ["web", "worker", "rt", "wk"])
        await cleanup.unsafe(`DROP ROLE IF EXISTS runifold_${kind}_${name}`).catch(() => {});
      await cleanup.end();
    },
  };
}

/** The `environment:` of a compose.yaml service, as strings. */
export function composeEnvironment(service: string): Record<string, string> {
  const compose = parse(readFileSync(path.join(ROOT, "compose.yaml"), "utf8")) as {
    services: Record<string, { environment?: Record<string, unknown> }>;
  };
  const environment = compose.services[service]?.environment;
  if (!environment) throw new Error(`compose.yaml has no environment for service ${service}`);
  return Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, interpolate(String(value))]));
}

/**
 * Compose's variable interpolation as `docker compose` applies it with nothing set in the shell:
 * `${NAME:-default}` is the default, `${NAME:?message}` and `${NAME}` are empty (a test that needs
 * them passes its own value, as an operator's shell would).
 */
function interpolate(value: string): string {
  return value.replace(
    /\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-([^}]*)|:?\?[^}]*)?\}/g,
    (_match, fallback: string | undefined) => fallback ?? "",
  );
}

export type Started = ChildProcess & { output: () => string; label: string };

/**
 * A long-running process in its own process group (so stopAll reaches whatever it starts), with
 * exactly `env` — nothing inherited but what the caller passes — and its output kept.
 */
export function startProcess(label: string, argv: string[], options: { cwd: string; env: Record<string, string> }): Started {
  const [command, ...args] = argv;
  const child = spawn(command === "node" ? process.execPath : (command as string), args, {
    cwd: options.cwd,
    // Next's types make NODE_ENV a required key; these processes get exactly what the caller set.
    env: options.env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  started.add(child);
  return Object.assign(child, { output: () => output, label });
}

const started = new Set<ChildProcess>();

/** afterAll: every process a deploy test started, stopped (SIGTERM, then SIGKILL), failures or not. */
export async function stopAll(): Promise<void> {
  await Promise.all([...started].map((child) => stopGroup(child, 5_000)));
  started.clear();
}

/** The argv's program: `node` in an image is this Node. */
export function runArgv(argv: string[], options: { cwd: string; env: Record<string, string>; allowFailure?: boolean }) {
  const [command, ...args] = argv;
  return run(command === "node" ? process.execPath : (command as string), args, {
    ...options,
    env: options.env as NodeJS.ProcessEnv,
    timeoutMs: 120_000,
  });
}

/** Only what a shell would need to find programs: every other variable is set on purpose. */
export function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin" };
}
