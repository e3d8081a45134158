import { randomBytes } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { insertRouteRevision } from "../db/queries/routes";
import { createTenant } from "../db/queries/tenants";
import { createApiKey } from "../lib/auth";
import { type RetentionReport, runRetention } from "../lib/retention";
import { modernClient } from "../tests/helpers/modern-client";
import { waitFor } from "../tests/helpers/wait-for";
import { createAdmin, screenshot, withStackDatabase } from "./fixtures";
import { LoginPage } from "./pages/login-page";
import { RetentionPage } from "./pages/retention-page";
import { TaskDetailPage } from "./pages/task-detail-page";

// A task's whole life through retention, against the real app, worker and Postgres: it completes,
// its tenant's retention drops to zero, a cleaner pass purges it, and the operator sees the pass,
// the tombstone and the purged task's page.
test.describe.configure({ mode: "serial" });

const tenant = `e2e-ret-${randomBytes(3).toString("hex")}`;
let page: Page;
let token: string;
let taskId: string;
let report: Extract<RetentionReport, { id: string }>;
const mcp = () => modernClient(new URL("/api/mcp", test.info().project.use.baseURL).toString(), { token });

test.beforeAll(async ({ browser }) => {
  const admin = await createAdmin();
  token = await withStackDatabase(async (sql) => {
    const row = await createTenant(sql, { slug: tenant, name: "E2E retention" });
    await insertRouteRevision(sql, {
      tenantId: row.id,
      toolName: "durable_report",
      workflowName: "generate-report",
      workflowVersion: 1,
      inputSchema: {
        type: "object",
        properties: { report_id: { type: "string" }, sections: { type: "integer" }, settle_ms: { type: "integer" } },
        required: ["report_id"],
      },
      taskSupport: "optional",
    });
    return (await createApiKey(sql, { tenantId: row.id, name: "e2e-retention" })).token;
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await new LoginPage(page).signIn(admin.email, admin.password);
});
test.afterAll(async () => {
  await page.close();
});

test("a completed task is purged by a cleaner pass once its tenant's retention is zero", async () => {
  const created = await mcp().result("tools/call", {
    name: "durable_report",
    arguments: { report_id: "purge-me", sections: 1, settle_ms: 0 },
  });
  taskId = created.taskId;
  expect((await mcp().waitFor(taskId, ["completed", "failed"], 30_000)).status).toBe("completed");

  report = await withStackDatabase(async (sql) => {
    await sql`UPDATE tenants SET retention_ms = 0 WHERE slug = ${tenant}`;
    // The worker's periodic pass may hold the lock right now: a skipped pass is retried.
    return waitFor(
      () => runRetention(sql, { holder: "e2e:retention-spec" }),
      (attempt): attempt is typeof report => attempt.status !== "skipped",
      { describe: "a cleaner pass that gets the lock", everyMs: 200 },
    );
  });
  expect(report.status).toBe("completed");
  const tombstones = await withStackDatabase((sql) => sql`SELECT final_status FROM tombstones WHERE run_id = ${taskId}`);
  expect(tombstones.map((t) => t.final_status)).toEqual(["completed"]);
  // The MCP handle is gone like an ID that never existed.
  const gone = await mcp().request("tasks/get", { taskId });
  expect(gone.body.error?.code).toBe(-32602);
});

test("the retention page shows the settings, the cleaner run and the tombstone", async () => {
  const retention = new RetentionPage(page);
  await retention.goto();
  await expect(page.getByRole("heading", { name: "Retention", level: 1 })).toBeVisible();
  await expect(page.getByRole("link", { name: "Retention" })).toHaveAttribute("aria-current", "page");
  await expect(retention.settings(tenant)).toContainText("0 ms");
  await expect(retention.settings(tenant)).toContainText("24 h");

  const run = retention.run(report.id);
  await expect(run).toContainText("completed");
  await expect(run).toContainText("e2e:retention-spec");
  await expect(run.getByTestId("run-purged")).toHaveText(String(report.purged));

  const tombstone = retention.tombstone(taskId);
  await expect(tombstone).toContainText("durable_report");
  await expect(tombstone).toContainText("generate-report@1");
  await expect(tombstone).toContainText("completed");
  await expect(tombstone).toContainText(tenant);
  await expect(tombstone).toContainText(/[0-9a-f]{12}…/);
  await screenshot(page, "retention");
});

test("the purged task's page says when it was purged and with what final status", async () => {
  await new RetentionPage(page).tombstone(taskId).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${taskId}$`));
  const detail = new TaskDetailPage(page);
  await expect(detail.purgedNotice).toContainText(/Purged at .+ with final status completed/);
  await expect(detail.status).toHaveText("completed");
  await expect(page.getByRole("heading", { name: taskId, level: 1 })).toBeVisible();
  await expect(page.getByText(/^[0-9a-f]{64}$/)).toBeVisible();
  await screenshot(page, "task-purged");

  // The detail API answers the tombstone too.
  const api = await page.request.get(`/api/ui/tasks/${taskId}`);
  expect(api.status()).toBe(200);
  expect(await api.json()).toMatchObject({
    purged: true,
    id: taskId,
    status: "completed",
    tenantSlug: tenant,
    tool: "durable_report",
  });
});
