import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The import boundaries of docs/architecture.md ("Where does X live") are biome noRestrictedImports rules in biome.json. This test
// copies that real configuration into an empty project, writes one file per rule at the path the
// rule governs, and runs biome on it: each violation must be reported, and the allowed forms not.

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIOME = path.join(ROOT, "node_modules", ".bin", "biome");
const run = promisify(execFile);

const violations: [file: string, source: string, message: RegExp][] = [
  ["db/queries/probe.ts", 'export { createTaskFromRoute } from "../../lib/tasks";', /storage kernel/],
  ["db/probe.ts", 'export { createRun } from "@runifold/sdk";', /storage kernel/],
  ["lib/ui/probe.ts", 'export { claimRuns } from "../../packages/sdk/src/ops/claim-runs";', /workspace packages by name/],
  ["lib/ui/probe-testing.ts", 'export { claimRuns } from "@runifold/sdk/testing";', /tests and benchmarks only/],
  [
    "lib/ui/probe-deep.ts",
    'export { readTaskRecord } from "../tasks/queries/task-record";',
    /lib\/tasks: import the module's front door/,
  ],
  ["lib/mcp/probe.ts", 'export { hashPassword } from "../auth/passwords";', /lib\/auth: import the module's front door/],
  [
    "lib/server/probe-oauth.ts",
    'export { guardedFetch } from "../oauth/guarded-fetch";',
    /lib\/oauth: import the module's front door/,
  ],
  ["app/probe-oauth.ts", 'export { listGrants } from "@/lib/oauth/grants";', /lib\/oauth: import the module's front door/],
  [
    "lib/server/probe-metrics.ts",
    'export { webRegistry } from "../metrics/registry";',
    /lib\/metrics: import the module's front door/,
  ],
  ["app/probe-metrics.ts", 'export { counter } from "@/lib/metrics/registry";', /lib\/metrics: import the module's front door/],
  [
    "lib/ui/probe-workers.ts",
    'export { runWorkerProcess } from "../../workers/run-worker-process";',
    /workers\/ holds process entry points/,
  ],
  ["lib/ui/probe-workflows.ts", 'export { shippedWorkflows } from "../../workflows/demo";', /never import workflow modules/],
  ["lib/server/probe.ts", 'export { shippedWorkflows } from "../../workflows/demo";', /never import workflow modules/],
  ["app/probe-workflows.ts", 'export { shippedWorkflows } from "@/workflows/demo";', /never import workflow modules/],
  ["app/probe.ts", 'export { createDb } from "@runifold/store";', /never db\/ or @runifold\/store directly/],
  ["app/probe-db.ts", 'export { findTenant } from "@/db/queries/tenants";', /never db\/ or @runifold\/store directly/],
  ["packages/sdk/src/probe.ts", 'export { readEnv } from "../../../lib/env";', /depends only on @runifold\/store/],
  [
    "packages/sdk/src/probe-db.ts",
    'export { findTenant } from "../../../db/queries/tenants";',
    /depends only on @runifold\/store/,
  ],
  ["packages/store/src/probe.ts", 'export { createRun } from "@runifold/sdk";', /storage kernel: it imports nothing above it/],
  [
    "packages/store/src/probe-lib.ts",
    'export { readEnv } from "../../../lib/env";',
    /storage kernel: it imports nothing above it/,
  ],
  ["packages/sdk/src/probe-next.ts", 'export { NextResponse } from "next/server";', /framework-free/],
  ["packages/client/src/probe.ts", 'export { createRun } from "@runifold/sdk";', /stands alone/],
  [
    "cli/probe.ts",
    'export { readTaskRecord } from "../lib/tasks/queries/task-record";',
    /lib\/tasks: import the module's front door/,
  ],
];

const allowed: [file: string, source: string][] = [
  ["lib/ui/ok.ts", 'export { readTaskRecord } from "../tasks";\nexport { diagnoseTask } from "../tasks/client";'],
  ["lib/ui/ok-auth.ts", 'export { hashPassword } from "../auth";\nexport { authOptions } from "../auth/web";'],
  ["lib/server/ok-oauth.ts", 'export { listGrants } from "../oauth";'],
  ["lib/server/ok-metrics.ts", 'export { counter } from "../metrics";'],
  ["packages/sdk/src/ok.ts", 'export { inTransaction } from "@runifold/store";'],
  ["db/queries/ok.ts", 'export { jsonParam } from "@runifold/store";'],
  ["tests/engine/ok.ts", 'export { claimRuns } from "@runifold/sdk/testing";'],
  ["app/ok.tsx", 'export { isTerminal } from "@runifold/sdk/states";'],
];

let dir: string;
let diagnostics: { location?: { path?: { file?: string } | string }; description?: string; message?: string }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "runifold-lint-"));
  copyFileSync(path.join(ROOT, "biome.json"), path.join(dir, "biome.json"));
  for (const [file, source] of [...violations, ...allowed]) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), `${source}\n`);
  }
  const result = await run(BIOME, ["lint", "--reporter=json", "--max-diagnostics=none", "."], { cwd: dir }).catch(
    (error: { stdout: string }) => error,
  );
  const report = JSON.parse(result.stdout) as { diagnostics: typeof diagnostics };
  diagnostics = report.diagnostics.filter((d) => JSON.stringify(d).includes("noRestrictedImports"));
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const reportedFor = (file: string) =>
  diagnostics.filter((d) => JSON.stringify(d.location ?? {}).includes(file)).map((d) => d.description ?? d.message ?? "");

describe("import boundaries (biome.json noRestrictedImports)", () => {
  it.each(violations)("rejects %s", (file, _source, message) => {
    const reported = reportedFor(file);
    expect(reported.length, `no boundary diagnostic for ${file}`).toBeGreaterThan(0);
    expect(reported.join("\n")).toMatch(message);
  });

  it.each(allowed)("allows %s", (file) => {
    expect(reportedFor(file)).toEqual([]);
  });
});
