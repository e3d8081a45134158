// `npm test`: every check, in order, continuing after failures; ends with one plain line
// `N passed, N failed` (the sum over all steps) and a non-zero exit when anything failed.
//
//   typecheck (1) · lint (1) · next build (1) · vitest (its test counts) ·
//   e2e: a live stack (fresh database, migrations, demo seed, `next start` on a free port, one worker)
//        → Playwright (its counts) → MCP conformance tasks-* (its checks, against a second web
//        process with the loopback test tenant) → scripts/test-suites.ts extras → stack stopped.
//
// The build runs before vitest because tests/start needs a production build; building once here
// keeps that test from building (or from testing a stale build).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "../db/embedded/embedded-postgres";
import { freePort } from "../db/embedded/free-port";
import { killAllNow, runCommand, track } from "./lib/children";
import { prepareDatabase, Supervisor, stopPostgres } from "./lib/stack";
import { extraSuites } from "./test-suites";

const root = process.cwd();
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);
const results: { name: string; passed: number; failed: number }[] = [];
const say = (line: string) => process.stdout.write(`\n[test] ${line}\n`);
const record = (name: string, passed: number, failed: number) => {
  results.push({ name, passed, failed });
  say(`${name}: ${passed} passed, ${failed} failed`);
};
const once = async (name: string, command: string, args: string[], env?: NodeJS.ProcessEnv) => {
  say(`${name}: ${[path.basename(command), ...args].join(" ")}`);
  const code = await runCommand(command, args, { cwd: root, env });
  record(name, code === 0 ? 1 : 0, code === 0 ? 0 : 1);
  return code === 0;
};

type Report = Record<string, unknown>;

/** Counts from a JSON report; a runner that failed without reporting a failed test counts as one failure. */
function countsFrom(file: string, code: number, pick: (report: Report) => [number, number]): [number, number] {
  let passed = 0;
  let failed = 0;
  try {
    [passed, failed] = pick(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    // no report: the runner never got to write one
  }
  if (code !== 0 && failed === 0) failed = 1;
  return [passed, failed];
}

/** Vitest's Jest-style report; a file that failed to load (no failed test inside) counts as one failure. */
function vitestCounts(report: Report): [number, number] {
  const files = (report.testResults ?? []) as { status: string; assertionResults?: { status: string }[] }[];
  const brokenFiles = files.filter(
    (f) => f.status === "failed" && !f.assertionResults?.some((a) => a.status === "failed"),
  ).length;
  return [Number(report.numPassedTests ?? 0), Number(report.numFailedTests ?? 0) + brokenFiles];
}

function playwrightCounts(report: Report): [number, number] {
  const stats = (report.stats ?? {}) as { expected?: number; unexpected?: number; flaky?: number };
  return [(stats.expected ?? 0) + (stats.flaky ?? 0), stats.unexpected ?? 0];
}

let cleanup: (() => Promise<void>) | undefined;
let interrupted = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    say(`${sig}: stopping`);
    killAllNow();
    void (cleanup?.() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}
process.on("exit", () => killAllNow());

async function main() {
  await once("typecheck", bin("tsc"), ["--noEmit"]);
  await once("lint", bin("biome"), ["check", "."]);
  const built = await once("build", process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"]);

  const vitestJson = path.join(root, "test-results", "vitest.json");
  rmSync(vitestJson, { force: true });
  say("vitest: vitest run");
  const vitestCode = await runCommand(bin("vitest"), ["run"], { cwd: root });
  record("vitest", ...countsFrom(vitestJson, vitestCode, vitestCounts));

  if (!built) record("e2e (skipped: build failed)", 0, 1);
  else await e2e();
}

async function e2e() {
  say("e2e: starting the stack");
  let embedded: EmbeddedPostgres | undefined;
  let supervisor: Supervisor | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  const dbName = `runifold_e2e_${randomBytes(4).toString("hex")}`;
  let conformanceStack: Supervisor | undefined;
  cleanup = async () => {
    await conformanceStack?.stop(15_000);
    await supervisor?.stop(15_000);
    if (adminUrl) await dropDatabase(adminUrl, dbName).catch(() => {});
    await stopPostgres(embedded);
  };
  try {
    if (!adminUrl) {
      embedded = await startEmbeddedPostgres({ projectRoot: root, name: "e2e-pg", detached: true, log: (l) => say(l) });
      adminUrl = embedded.url;
    }
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${dbName}`;
    const db = await prepareDatabase({
      projectRoot: root,
      dataRoot: path.join(root, ".data"),
      databaseUrl: url.toString(),
      embeddedName: "e2e-pg",
      log: say,
    });
    const port = await freePort();
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      NEXTAUTH_SECRET: randomBytes(24).toString("hex"),
      NEXTAUTH_URL: `http://127.0.0.1:${port}`,
      RUNIFOLD_LOG_LEVEL: "warn",
    };
    supervisor = new Supervisor({ projectRoot: root, host: "127.0.0.1", port, workers: 1, env, log: say });
    supervisor.start();
    await supervisor.waitHealthy(120_000);
    const suiteEnv = { ...env, BASE_URL: supervisor.origin, RUNIFOLD_TEST_URL: supervisor.origin };

    const playwrightJson = path.join(root, "test-results", "playwright.json");
    rmSync(playwrightJson, { force: true });
    say(`playwright: playwright test (BASE_URL=${supervisor.origin})`);
    const code = await runCommand(bin("playwright"), ["test"], { cwd: root, env: suiteEnv });
    record("playwright", ...countsFrom(playwrightJson, code, playwrightCounts));

    await conformance(env, (stack) => {
      conformanceStack = stack;
    });

    for (const suite of extraSuites) {
      say(`${suite.name}: ${suite.command} ${suite.args.join(" ")}`);
      const { code: suiteCode, output } = await runTee(suite.command, suite.args, { ...suiteEnv, ...suite.env });
      const summary = [...output.matchAll(/^(\d+) passed, (\d+) failed\s*$/gm)].at(-1);
      if (summary) record(suite.name, Number(summary[1]), Number(summary[2]) + (suiteCode !== 0 && summary[2] === "0" ? 1 : 0));
      else record(suite.name, suiteCode === 0 ? 1 : 0, suiteCode === 0 ? 0 : 1);
    }
  } catch (error) {
    say(`e2e stack failed: ${error instanceof Error ? error.message : String(error)}`);
    record("e2e stack", 0, 1);
  } finally {
    say("e2e: stopping the stack");
    await cleanup();
    cleanup = undefined;
  }
}

/**
 * The official MCP conformance suite (tasks-* scenarios) against the real app. The suite cannot send
 * an Authorization header, so only for this run a second web process (no workers; the stack's worker
 * serves its runs) maps unauthenticated loopback requests to the `conformance` tenant.
 */
async function conformance(env: NodeJS.ProcessEnv, expose: (stack: Supervisor) => void) {
  const port = await freePort();
  const stack = new Supervisor({
    projectRoot: root,
    host: "127.0.0.1",
    port,
    workers: 0,
    env: { ...env, RUNIFOLD_INSECURE_LOOPBACK_TENANT: "conformance" },
    log: say,
  });
  expose(stack);
  stack.start();
  await stack.waitHealthy(60_000);
  const args = [
    "--import",
    "tsx",
    path.join(root, "scripts", "run-conformance.ts"),
    `${stack.origin}/api/mcp`,
    path.join(root, "test-results", "conformance"),
  ];
  say(`conformance: run-conformance.ts ${stack.origin}/api/mcp`);
  const { code, output } = await runTee(process.execPath, args, env);
  const summary = [...output.matchAll(/^(\d+) passed, (\d+) failed\s*$/gm)].at(-1);
  if (summary)
    record("conformance (tasks-*)", Number(summary[1]), Number(summary[2]) + (code !== 0 && summary[2] === "0" ? 1 : 0));
  else record("conformance (tasks-*)", 0, 1);
  await stack.stop(10_000);
}

/** Runs a command with its output both shown and captured (for a trailing summary line). */
function runTee(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = track(spawn(command, args, { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] }));
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    child.once("error", () => resolve({ code: 127, output }));
    child.once("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

async function dropDatabase(adminUrl: string, name: string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

main()
  .catch((error) => {
    say(`test runner error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    record("runner", 0, 1);
  })
  .finally(() => {
    const passed = results.reduce((sum, r) => sum + r.passed, 0);
    const failed = results.reduce((sum, r) => sum + r.failed, 0);
    process.stdout.write("\n");
    for (const r of results)
      process.stdout.write(`  ${r.failed ? "FAIL" : "ok  "} ${r.name}: ${r.passed} passed, ${r.failed} failed\n`);
    process.stdout.write(`${passed} passed, ${failed} failed\n`);
    process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
  });
