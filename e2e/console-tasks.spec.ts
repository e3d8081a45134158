import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { expect, type Page, test } from "@playwright/test";
import { findTenantBySlug } from "../db/queries/tenants";
import { createApiKey } from "../lib/auth";
import { modernClient } from "../tests/helpers/modern-client";
import { createAdmin, screenshot, withStackDatabase } from "./fixtures";
import { AuditPage } from "./pages/audit-page";
import { LoginPage } from "./pages/login-page";
import { TaskDetailPage } from "./pages/task-detail-page";
import { TasksPage } from "./pages/tasks-page";

// The console's day-to-day task tools against the real app, worker and Postgres, in order: bulk
// cancel of two MCP tasks, a rerun from the task page (linked both ways), the rerun's steps with
// their outputs, and the audit CSV holding the rerun.
test.describe.configure({ mode: "serial" });

let page: Page;
let token: string;
const run = randomBytes(3).toString("hex");
const created: string[] = [];
let rerunId: string;
const mcp = () => modernClient(new URL("/api/mcp", test.info().project.use.baseURL).toString(), { token });

test.beforeAll(async ({ browser }) => {
  const admin = await createAdmin();
  // The demo seed's tenant and routes (durable_report → generate-report@1); a key of this run's own.
  token = await withStackDatabase(async (sql) => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    if (!acme) throw new Error("the e2e stack has no demo tenant (tenant-acme)");
    return (await createApiKey(sql, { tenantId: acme.id, name: `e2e-console-${run}` })).token;
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await new LoginPage(page).signIn(admin.email, admin.password);
});
test.afterAll(async () => {
  await page.close();
});

test("select two running tasks and cancel them in bulk, with a result per task", async () => {
  for (const n of [1, 2]) {
    // A long durable sleep keeps each task running until the bulk cancel ends it.
    const task = await mcp().result("tools/call", {
      name: "durable_report",
      arguments: { report_id: `bulk-${run}-${n}`, settle_ms: 600_000 },
    });
    created.push(task.taskId);
  }
  const tasks = new TasksPage(page);
  await tasks.goto();
  for (const id of created) {
    await expect(tasks.row(id)).toBeVisible();
    // Each row names the exact workflow version its run is pinned to.
    await expect(tasks.row(id).getByTestId("workflow-version")).toHaveText("generate-report@1");
    await tasks.select(id);
  }
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");
  await screenshot(page, "tasks-bulk-selected");
  await tasks.bulk("Cancel", 2);
  for (const id of created) {
    await expect(tasks.result(id)).toContainText("cancelled");
    await expect(tasks.status(id)).toHaveText("cancelled");
  }
  await screenshot(page, "tasks-bulk-cancelled");
  expect((await mcp().result("tasks/get", { taskId: created[0] })).status).toBe("cancelled");
});

test("rerun a finished task from its page: a new task with the same input, linked both ways", async () => {
  const [original] = created as [string];
  const detail = new TaskDetailPage(page);
  await detail.goto(original);
  await expect(detail.status).toHaveText("cancelled");
  await detail.rerun();
  await expect(page).not.toHaveURL(new RegExp(`/tasks/${original}$`));
  rerunId = page.url().split("/tasks/")[1] ?? "";
  expect(rerunId).toMatch(/^[0-9a-f-]{36}$/);
  await expect(detail.rerunOf).toHaveText(`Rerun of ${original.slice(0, 8)}`);
  await expect(page.getByTitle("Task input")).toContainText(`"report_id": "bulk-${run}-1"`);
  await screenshot(page, "task-rerun-new");

  await detail.rerunOf.getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${original}$`));
  await expect(detail.rerunAs).toHaveText(`Rerun as ${rerunId.slice(0, 8)}`);
  await expect(page.getByText(`rerun as ${rerunId}`)).toBeVisible();
});

test("the rerun's steps show what each step returned", async () => {
  const detail = new TaskDetailPage(page);
  await detail.goto(rerunId);
  // generate-report gathers its sections as steps, then sleeps durably (settle_ms) before rendering.
  const section = detail.step("section-1");
  await expect(section).toContainText("completed");
  await expect(section).toContainText("1 execution");
  await expect(section.getByTestId("step-output")).toContainText('"title": "Section 1"');
  await expect(detail.step("sleep:settle")).toContainText("sleep");
  await screenshot(page, "task-steps");
  await detail.cancel();
  await expect(detail.status).toHaveText("cancelled");
});

test("export the audit log as CSV: the rerun is in it", async () => {
  const audit = new AuditPage(page);
  await audit.goto();
  await audit.filter({ action: "task." });
  await expect(audit.rows().filter({ hasText: "task.rerun" }).first()).toBeVisible();
  await screenshot(page, "audit");
  const download = await audit.exportCsv();
  expect(download.suggestedFilename()).toMatch(/^runifold-audit-.*\.csv$/);
  const csv = await readFile(await download.path(), "utf8");
  const lines = csv.split("\r\n");
  expect(lines[0]).toBe("id,at,action,actor,operator_email,tenant_id,tenant_slug,address,fields");
  const rerunLine = lines.find((line) => line.includes(",task.rerun,") && line.includes(rerunId));
  expect(rerunLine).toBeDefined();
  expect(rerunLine).toContain(created[0]);
  expect(rerunLine).toContain("tenant-acme");
  // The filter applies to the export too: nothing but task.* actions.
  expect(
    lines
      .slice(1)
      .filter(Boolean)
      .every((line) => /^\d+,[^,]+,task\./.test(line)),
  ).toBe(true);
});
