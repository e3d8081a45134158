import { randomBytes } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { findTenantBySlug } from "../db/queries/tenants";
import { createApiKey } from "../lib/auth";
import { modernClient } from "../tests/helpers/modern-client";
import { createAdmin, screenshot, withStackDatabase } from "./fixtures";
import { AuditPage } from "./pages/audit-page";
import { LoginPage } from "./pages/login-page";
import { TaskDetailPage } from "./pages/task-detail-page";
import { TasksPage } from "./pages/tasks-page";
import { TenantKeysPage } from "./pages/tenant-keys-page";
import { TenantsPage } from "./pages/tenants-page";

// The console acceptance lines of the operator-console issue not covered elsewhere, against the
// real app, worker and Postgres: a key revoked in the console is on the Audit page; a failed task
// shows its stored cause and its steps' outputs; a bulk cancel of three tasks.
test.describe.configure({ mode: "serial" });

let page: Page;
let admin: { email: string; password: string };
const run = randomBytes(3).toString("hex");
const baseUrl = () => new URL("/api/mcp", test.info().project.use.baseURL).toString();

/** An API key of this run's own in a demo-seeded tenant. */
const keyFor = (slug: string) =>
  withStackDatabase(async (sql) => {
    const tenant = await findTenantBySlug(sql, slug);
    if (!tenant) throw new Error(`the e2e stack has no demo tenant (${slug})`);
    return (await createApiKey(sql, { tenantId: tenant.id, name: `e2e-acceptance-${run}` })).token;
  });

test.beforeAll(async ({ browser }) => {
  admin = await createAdmin();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await new LoginPage(page).signIn(admin.email, admin.password);
});
test.afterAll(async () => {
  await page.close();
});

test("revoking a key in the console puts a key.revoke entry on the Audit page", async () => {
  const name = `revoke-me-${run}`;
  const keys = new TenantKeysPage(page);
  await keys.goto("tenant-acme");
  const token = await new TenantsPage(page).createKey(name);
  // rf_<key id>_<secret>: the audit event names the key by its id, never by the secret.
  const keyId = token.split("_")[1] ?? "";
  expect(keyId).toMatch(/^[0-9a-f]{16}$/);
  await page.getByRole("button", { name: "Done" }).click();
  await keys.revoke(name);
  // The revoked key no longer authenticates: the revocation is real, not only a line in a log.
  const refused = await modernClient(baseUrl(), { token }).request("tools/list");
  expect(refused.status).toBe(401);

  const audit = new AuditPage(page);
  await audit.goto();
  await audit.filter({ actor: admin.email, action: "key.revoke" });
  const entry = audit.rows().filter({ hasText: keyId });
  await expect(entry).toHaveCount(1);
  await expect(entry).toContainText("key.revoke");
  await expect(entry).toContainText("tenant-acme");
  await screenshot(page, "audit-key-revoke");
});

test("a failed task shows its stored failure cause and its steps' outputs", async () => {
  // The conformance tenant's protocol_error_job records a step ("attempt" → true), then throws a
  // WorkflowFailure: a run that ends failed with a cause stored in runs.failure.
  const mcp = modernClient(baseUrl(), { token: await keyFor("conformance") });
  const created = await mcp.result("tools/call", { name: "protocol_error_job", arguments: {} });
  const failed = await mcp.waitFor(created.taskId, ["failed", "completed"], 30_000);
  expect(failed.status).toBe("failed");

  const detail = new TaskDetailPage(page);
  await detail.goto(created.taskId);
  await expect(detail.status).toHaveText("failed");
  await expect(detail.failureCause).toContainText("workflow_failure");
  await expect(detail.failureCause).toContainText("Simulated protocol error");
  const step = detail.step("attempt");
  await expect(step).toContainText("completed");
  await expect(step.getByTestId("step-output")).toHaveText("true");
  await screenshot(page, "task-failed-cause");

  // The list shows the same stored cause beside the failed row's status, cut to one line.
  const tasks = new TasksPage(page);
  await tasks.goto("?status=failed");
  await expect(tasks.status(created.taskId)).toHaveText("failed");
  await expect(tasks.failureCause(created.taskId)).toContainText("workflow_failure: Simulated protocol error");
  await screenshot(page, "tasks-failed-cause");
});

test("select three running tasks and cancel them in bulk, with a result per task", async () => {
  const mcp = modernClient(baseUrl(), { token: await keyFor("tenant-acme") });
  const created: string[] = [];
  for (const n of [1, 2, 3]) {
    // A long durable sleep keeps each task running until the bulk cancel ends it.
    const task = await mcp.result("tools/call", {
      name: "durable_report",
      arguments: { report_id: `bulk3-${run}-${n}`, settle_ms: 600_000 },
    });
    created.push(task.taskId);
  }
  const tasks = new TasksPage(page);
  await tasks.goto();
  for (const id of created) {
    await expect(tasks.row(id)).toBeVisible();
    await tasks.select(id);
  }
  await expect(page.getByTestId("selected-count")).toHaveText("3 selected");
  await tasks.bulk("Cancel", 3);
  for (const id of created) {
    await expect(tasks.result(id)).toContainText("cancelled");
    await expect(tasks.status(id)).toHaveText("cancelled");
  }
  await screenshot(page, "tasks-bulk-cancelled-three");
  for (const id of created) expect((await mcp.result("tasks/get", { taskId: id })).status).toBe("cancelled");
});
