import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertRouteRevision } from "../../db/queries/routes";
import { findTenantBySlug } from "../../db/queries/tenants";
import { toolInputSchema } from "../../lib/admin";
import { generateReport } from "../../workflows/demo/generate-report";
import { type ClientFixture, startClientFixture } from "../client/client-fixture";
import { modernClient } from "../helpers/modern-client";
import { waitFor } from "../helpers/wait-for";
import { lastJson, runCli } from "./run-cli";

let fx: ClientFixture;

beforeAll(async () => {
  fx = await startClientFixture();
});
afterAll(async () => {
  await fx.close();
});

describe("runifold tasks get: the operator's diagnosis", { timeout: 120_000 }, () => {
  it("says no online worker serves a version nobody runs, plain and --json", async () => {
    const acme = await findTenantBySlug(fx.db.sql, "tenant-acme");
    await insertRouteRevision(fx.db.sql, {
      tenantId: acme?.id as string,
      toolName: "report_v2",
      workflowName: "generate-report",
      workflowVersion: 2,
      inputSchema: toolInputSchema(generateReport),
      taskSupport: "optional",
    });
    const created = await modernClient(fx.server.url, { token: fx.acmeKey }).result("tools/call", {
      name: "report_v2",
      arguments: { report_id: "nobody" },
    });
    const env = { DATABASE_URL: fx.db.url, RUNIFOLD_URL: fx.server.url, RUNIFOLD_KEY: fx.acmeKey };
    const [plain, json] = await Promise.all([
      runCli(["tasks", "get", created.taskId], env),
      runCli(["tasks", "get", created.taskId, "--json"], env),
    ]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/diagnosis: queued .*no online worker serves generate-report@2/);
    expect(lastJson(json)).toMatchObject({ status: "working", diagnosis: { code: "queued_no_worker" } });
  });

  it("shows the stored failure cause of a failed run (operators only)", async () => {
    const acme = await findTenantBySlug(fx.db.sql, "tenant-acme");
    await insertRouteRevision(fx.db.sql, {
      tenantId: acme?.id as string,
      toolName: "always_fails",
      workflowName: "conformance-protocol-error-job",
      workflowVersion: 1,
      inputSchema: { type: "object" },
      taskSupport: "optional",
    });
    const created = await modernClient(fx.server.url, { token: fx.acmeKey }).result("tools/call", {
      name: "always_fails",
      arguments: {},
    });
    await waitFor(
      async () => (await fx.db.sql`SELECT status FROM runs WHERE id = ${created.taskId}`)[0]?.status,
      (status) => status === "failed",
      { describe: "the run to fail" },
    );
    const env = { DATABASE_URL: fx.db.url, RUNIFOLD_URL: fx.server.url, RUNIFOLD_KEY: fx.acmeKey };
    const plain = await runCli(["tasks", "get", created.taskId], env);
    expect(plain.code).toBe(2); // docs/cli.md: a failed task exits 2
    expect(plain.stdout).toMatch(/failure cause: workflow_failure: Simulated protocol error \(attempt \d+\)/);
  });
});
