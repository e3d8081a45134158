// `npm test`: every suite in the table below, in order, continuing after failures, each a plain npm
// script (or command) that can be run alone. It only runs and sums: each suite's counts come from
// its report, and the last line is `N passed, N failed` (the sum; .ci/run relies on it), with a
// non-zero exit when anything failed. The build runs before the suites that need a production
// build (tests/start in integration, e2e, conformance), so none of them builds or tests a stale one.
// `npm test -- unit lint` runs only the named suites (CI names none).
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { killAllNow, killGroup, track } from "./lib/children";
import {
  type Counts,
  exitCodeReport,
  playwrightReport,
  type Report,
  type SuiteRun,
  summaryLineReport,
  vitestReport,
} from "./lib/test-reports";
import { extraSuites } from "./test-suites";

type Suite = { name: string; command: string[]; report: Report; needsBuild?: boolean; env?: Record<string, string> };

const npm = (script: string) => ["npm", "run", "--silent", script];
const tsx = (script: string, ...args: string[]) => [process.execPath, "--import", "tsx", script, ...args];

const SUITES: Suite[] = [
  { name: "typecheck", command: npm("typecheck"), report: exitCodeReport },
  { name: "lint", command: npm("lint"), report: exitCodeReport },
  { name: "build", command: npm("build"), report: exitCodeReport },
  { name: "unit", command: npm("test:unit"), report: vitestReport("test-results/unit.json") },
  { name: "integration", command: npm("test:integration"), report: vitestReport("test-results/integration.json") },
  { name: "e2e", command: npm("test:e2e"), report: playwrightReport("test-results/playwright.json"), needsBuild: true },
  { name: "conformance", command: npm("test:conformance"), report: summaryLineReport, needsBuild: true },
  ...extraSuites.map((suite) => ({
    name: suite.name,
    command: tsx("scripts/with-stack.ts", "--", suite.command, ...suite.args),
    report: summaryLineReport,
    needsBuild: true,
    env: suite.env,
  })),
];

const results: (Counts & { name: string })[] = [];
const say = (line: string) => process.stdout.write(`\n[test] ${line}\n`);
let current: ReturnType<typeof spawn> | undefined;
let interrupted = false;

/** The suites named on the command line, or all of them. */
function selected(names: string[]): Suite[] {
  const unknown = names.filter((name) => !SUITES.some((suite) => suite.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown suite ${unknown.join(", ")} (suites: ${SUITES.map((s) => s.name).join(", ")})`);
  return names.length === 0 ? SUITES : SUITES.filter((suite) => names.includes(suite.name));
}

async function main() {
  const suites = selected(process.argv.slice(2));
  mkdirSync("test-results", { recursive: true });
  let built = true;
  for (const suite of suites) {
    if (interrupted) break;
    if (suite.needsBuild && !built) {
      record(`${suite.name} (skipped: the build failed)`, { passed: 0, failed: 1 });
      continue;
    }
    if (suite.report.file) rmSync(suite.report.file, { force: true });
    say(`${suite.name}: ${suite.command.map((part) => (part === process.execPath ? "node" : part)).join(" ")}`);
    const run = await runTee(suite.command, { ...process.env, ...suite.env });
    const counts = suite.report.count(run);
    record(suite.name, counts);
    if (suite.name === "build") built = counts.failed === 0;
  }
}

function record(name: string, counts: Counts) {
  results.push({ name, ...counts });
  say(`${name}: ${counts.passed} passed, ${counts.failed} failed`);
}

/** Runs one suite with its output shown as it comes and its tail kept (for a summary line). */
function runTee([command, ...args]: string[], env: NodeJS.ProcessEnv): Promise<SuiteRun> {
  return new Promise((resolve) => {
    const child = track(spawn(command as string, args, { env, detached: true, stdio: ["ignore", "pipe", "pipe"] }));
    current = child;
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      process.stdout.write(chunk);
      output = (output + chunk.toString()).slice(-65_536);
    });
    child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    child.once("error", () => resolve({ code: 127, output }));
    child.once("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), output }));
  });
}

// First signal: the running suite gets SIGTERM and stops what it started (its stack, its database);
// the summary still prints. A second signal kills everything at once.
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (interrupted) {
      killAllNow();
      process.exit(130);
    }
    interrupted = true;
    say(`${sig}: stopping the running suite`);
    if (current) killGroup(current, "SIGTERM");
  });
}
process.on("exit", () => killAllNow());

main()
  .catch((error) => {
    say(`test runner error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    record("runner", { passed: 0, failed: 1 });
  })
  .finally(() => {
    if (interrupted) record("interrupted", { passed: 0, failed: 1 });
    const passed = results.reduce((sum, r) => sum + r.passed, 0);
    const failed = results.reduce((sum, r) => sum + r.failed, 0);
    process.stdout.write("\n");
    for (const r of results)
      process.stdout.write(`  ${r.failed ? "FAIL" : "ok  "} ${r.name}: ${r.passed} passed, ${r.failed} failed\n`);
    process.stdout.write(`${passed} passed, ${failed} failed\n`);
    process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
  });
