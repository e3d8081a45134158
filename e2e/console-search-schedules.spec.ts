import { randomBytes } from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { insertRouteRevision } from "../db/queries/routes";
import { createTenant, findTenantBySlug } from "../db/queries/tenants";
import { createApiKey } from "../lib/auth";
import { modernClient } from "../tests/helpers/modern-client";
import { createAdmin, screenshot, withStackDatabase } from "./fixtures";
import { LoginPage } from "./pages/login-page";
import { RouteSchedulePanel } from "./pages/route-schedule-panel";
import { TasksPage } from "./pages/tasks-page";

// The task list's input filter (two approve_expense tasks over MCP, one over 100) and a route's
// schedule on the routes page: refused, previewed, saved with its next 5 fire times, paused.
test.describe.configure({ mode: "serial" });

let page: Page;
let token: string;
const run = randomBytes(3).toString("hex");
// A tenant and tool of this run's own, so its schedule never fires into the demo tenant other specs read.
const tenantSlug = `sched-${run}`;
const tool = `nightly_${run}`;
const deployTool = `deploy_${run}`;
const mcp = () => modernClient(new URL("/api/mcp", test.info().project.use.baseURL).toString(), { token });

test.beforeAll(async ({ browser }) => {
  const admin = await createAdmin();
  token = await withStackDatabase(async (sql) => {
    const acme = await findTenantBySlug(sql, "tenant-acme");
    if (!acme) throw new Error("the e2e stack has no demo tenant (tenant-acme)");
    const own = await createTenant(sql, { slug: tenantSlug, name: `Schedules ${run}` });
    await insertRouteRevision(sql, {
      tenantId: own.id,
      toolName: tool,
      workflowName: "generate-report",
      workflowVersion: 1,
      inputSchema: { type: "object" },
      taskSupport: "optional",
    });
    await insertRouteRevision(sql, {
      tenantId: own.id,
      toolName: deployTool,
      workflowName: "generate-report",
      workflowVersion: 1,
      inputSchema: {
        type: "object",
        properties: { service: { type: "string" }, release: { type: "string", title: "Release" }, replicas: { type: "integer" } },
        required: ["service", "release"],
      },
      taskSupport: "optional",
    });
    return (await createApiKey(sql, { tenantId: acme.id, name: `e2e-search-${run}` })).token;
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await new LoginPage(page).signIn(admin.email, admin.password);
});
test.afterAll(async () => {
  await page.close();
});

test("an input-field filter narrows the list: amount > 100 keeps the 500 task, not the 5 one", async () => {
  const ids: Record<number, string> = {};
  for (const amount of [5, 500]) {
    const task = await mcp().result("tools/call", {
      name: "approve_expense",
      arguments: { expense_id: `S-${run}-${amount}`, amount, description: "search e2e" },
    });
    ids[amount] = task.taskId;
  }
  const [small, large] = [ids[5] as string, ids[500] as string];
  const tasks = new TasksPage(page);
  await tasks.goto();
  await expect(tasks.row(small)).toBeVisible();
  await expect(tasks.row(large)).toBeVisible();

  await tasks.inputFilter.fill("amount > 100");
  await expect(page).toHaveURL(/input=amount/);
  await expect(tasks.row(large)).toBeVisible();
  await expect(tasks.row(small)).toBeHidden();
  await screenshot(page, "tasks-input-filter");

  // Both of this run's tasks by their ID, then only the small one by a string equality.
  await tasks.inputFilter.fill(`expense_id = S-${run}-5`);
  await expect(tasks.row(small)).toBeVisible();
  await expect(tasks.row(large)).toBeHidden();

  await tasks.inputFilter.fill("amount >");
  await expect(tasks.inputFilterHelp).toHaveText("expected a value after >");
  await expect(page.getByText("No tasks match these filters.")).toBeVisible();
  await screenshot(page, "tasks-input-filter-error");

  for (const id of [small, large]) await mcp().result("tasks/cancel", { taskId: id });
});

test("set a schedule on a route: a bad cron is refused, the next 5 fire times are shown, then paused", async () => {
  await page.goto("/routes");
  const panel = new RouteSchedulePanel(page, tenantSlug, tool);
  await expect(panel.card).toBeVisible();
  await panel.open();

  await panel.fill("61 * * * *", "UTC");
  await panel.save();
  await expect(panel.error).toContainText('invalid schedule "61 * * * *"');
  await panel.fill("0 9 * * 1-5", "Mars/Olympus");
  await panel.preview();
  await expect(panel.error).toContainText("Mars/Olympus");

  await panel.fill("0 9 * * 1-5", "Europe/Paris");
  await panel.preview();
  await expect(panel.previewTimes).toHaveCount(5);
  await expect(panel.error).toBeHidden();
  await panel.save();
  await expect(panel.summary).toHaveAttribute("data-schedule", "0 9 * * 1-5");
  await expect(panel.summary).toContainText("Europe/Paris");
  await expect(panel.nextTimes).toHaveCount(5);
  await screenshot(page, "route-schedule-set");

  await panel.pauseButton(false).click();
  await expect(panel.summary).toHaveAttribute("data-paused", "true");
  await expect(panel.summary).toContainText("paused");
  await expect(panel.pauseButton(true)).toBeVisible();
  await expect(panel.nextTimes).toHaveCount(5);
  await screenshot(page, "route-schedule-paused");
});

test("a tool with required input is scheduled from the editor's input controls (review F7)", async () => {
  await page.goto("/routes");
  const panel = new RouteSchedulePanel(page, tenantSlug, deployTool);
  await expect(panel.card).toBeVisible();
  await panel.open();
  await panel.fill("0 9 * * 1-5", "Europe/Paris");
  await panel.inputField("service").fill("nightly");
  await panel.save();
  // Refused for the input alone: the cron and timezone are not marked at fault.
  await expect(panel.error).toContainText("schedule input: Release: Required");
  await expect(panel.form.getByLabel("Cron")).not.toHaveAttribute("aria-invalid", "true");
  await panel.inputField("Release").fill("v1.0.0");
  await panel.inputField("replicas").fill("3");
  await panel.save();
  await expect(panel.summary).toHaveAttribute("data-schedule", "0 9 * * 1-5");
  const saved = await withStackDatabase(
    (sql) => sql<{ schedule_input: unknown }[]>`
      SELECT r.schedule_input FROM routes r JOIN tenants t ON t.id = r.tenant_id
      WHERE t.slug = ${tenantSlug} AND r.tool_name = ${deployTool} ORDER BY r.revision DESC LIMIT 1`,
  );
  expect(saved[0]?.schedule_input).toEqual({ service: "nightly", release: "v1.0.0", replicas: 3 });
  await screenshot(page, "route-schedule-input");
});
