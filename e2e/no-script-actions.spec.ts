import { randomBytes } from "node:crypto";
import { expect, type Page, type Request, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { insertRouteRevision } from "../db/queries/routes";
import { createTenant, findTenantBySlug } from "../db/queries/tenants";
import { createApiKey, verifyPassword } from "../lib/auth";
import { modernClient } from "../tests/helpers/modern-client";
import { waitFor } from "../tests/helpers/wait-for";
import { startWebhookReceiver } from "../tests/helpers/webhook-receiver";
import { createAdmin, withStackDatabase } from "./fixtures";
import { RouteSchedulePanel } from "./pages/route-schedule-panel";
import { TaskDetailPage } from "./pages/task-detail-page";
import { WebhooksPage } from "./pages/webhooks-page";

// Issue 34: the console's one-button actions (a row's Revoke, Disable, Send test, Pause, Cancel…)
// were script-only calls, dead until the page's scripts ran. Each is now a POST form: with
// JavaScript off, every one here must still post, change what it says, and show what it returns
// (a new signing secret, a temporary password) in the answer, never in a URL.
test.use({ javaScriptEnabled: false });

const run = randomBytes(3).toString("hex");
const BASE = () => test.info().project.use.baseURL as string;

/** Every request the page makes: which were POSTs, and that no URL carried a secret. */
function recordRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on("request", (request) => seen.push(request));
  return seen;
}

/** The POSTs to a page's path: a form posting before scripts load goes to the page itself. */
function postsTo(requests: Request[], path: string): Request[] {
  return requests.filter((request) => request.method() === "POST" && new URL(request.url()).pathname === path);
}

async function signIn(page: Page): Promise<{ email: string; password: string }> {
  const admin = await createAdmin();
  await page.goto("/login");
  await page.getByLabel("Email").fill(admin.email);
  await page.getByLabel("Password").fill(admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  return admin;
}

async function tenantId(slug: string): Promise<string> {
  return withStackDatabase(async (sql) => {
    const tenant = (await findTenantBySlug(sql, slug)) ?? (await createTenant(sql, { slug, name: `No scripts ${run}` }));
    return tenant.id;
  });
}

test.describe("webhooks without scripts", () => {
  const tenant = `ns-hooks-${run}`;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  test.beforeAll(async () => {
    await tenantId(tenant);
    receiver = await startWebhookReceiver();
  });
  test.afterAll(async () => {
    await receiver.close();
  });

  const subscriptionRow = (url: string) =>
    withStackDatabase(
      async (sql) =>
        (
          await sql<{ id: string; enabled: boolean; secret_sealed: string }[]>`
          SELECT id, enabled, secret_sealed FROM webhook_subscriptions WHERE url = ${url}`
        )[0],
    );

  /** The page does not refresh itself without scripts: load it until the newest delivery has the status. */
  async function newestDeliveryStatus(webhooks: WebhooksPage, url: string, status: string) {
    await expect
      .poll(
        async () => {
          await webhooks.goto();
          return webhooks.deliveries(url).first().getAttribute("data-status");
        },
        { timeout: 30_000, message: `the newest delivery to ${url} to be ${status}` },
      )
      .toBe(status);
  }

  test("Send test, Disable, Enable, Rotate secret and Delete each post, and do what they say", async ({ page }) => {
    await signIn(page);
    const requests = recordRequests(page);
    const webhooks = new WebhooksPage(page);
    await webhooks.goto();
    const url = receiver.url("/no-scripts");
    const first = await webhooks.create({ tenant, url, events: ["task.failed"] });
    expect(first).toMatch(/^whsec_/);
    const section = webhooks.subscription(url);

    await section.getByRole("button", { name: "Send test" }).click();
    await expect(section.getByRole("status")).toHaveText("Test queued: it appears in the log below once delivered.");
    const [hook] = await waitFor(
      () => receiver.at("/no-scripts"),
      (hooks) => hooks.length === 1,
      { describe: "the test delivery at the receiver", timeoutMs: 30_000 },
    );
    expect(new Webhook(first).verify(hook?.body as string, hook?.headers as Record<string, string>)).toMatchObject({
      type: "webhook.test",
      tenant,
    });
    await newestDeliveryStatus(webhooks, url, "delivered");
    await expect(webhooks.deliveries(url)).toHaveCount(1);

    await section.getByRole("button", { name: "Disable", exact: true }).click();
    await expect(section).toContainText("disabled");
    expect((await subscriptionRow(url))?.enabled).toBe(false);
    await section.getByRole("button", { name: "Enable", exact: true }).click();
    await expect(section).toContainText("enabled");
    expect((await subscriptionRow(url))?.enabled).toBe(true);

    // Without scripts nothing can ask "Rotate?": the post rotates, and its answer shows the new secret once.
    const sealedBefore = (await subscriptionRow(url))?.secret_sealed;
    await section.getByRole("button", { name: "Rotate secret" }).click();
    const shown = page.getByTestId("webhook-secret");
    await expect(shown).toHaveText(/^whsec_/);
    const rotated = (await shown.textContent()) as string;
    expect(rotated).not.toBe(first);
    expect((await subscriptionRow(url))?.secret_sealed).not.toBe(sealedBefore);
    // The next delivery is signed with the new secret, not the old one.
    await webhooks.subscription(url).getByRole("button", { name: "Send test" }).click();
    const [, second] = await waitFor(
      () => receiver.at("/no-scripts"),
      (hooks) => hooks.length === 2,
      { describe: "the second test delivery", timeoutMs: 30_000 },
    );
    const signed = { body: second?.body as string, headers: second?.headers as Record<string, string> };
    expect(new Webhook(rotated).verify(signed.body, signed.headers)).toMatchObject({ type: "webhook.test" });
    expect(() => new Webhook(first).verify(signed.body, signed.headers)).toThrow();
    await webhooks.goto();
    await expect(page.getByTestId("webhook-secret")).toHaveCount(0);

    await section.getByRole("button", { name: "Delete" }).click();
    await expect(section).toHaveCount(0);
    expect(await subscriptionRow(url)).toBeUndefined();

    // Create, test, disable, enable, rotate, test, delete: seven posts to the page itself.
    expect(postsTo(requests, "/webhooks")).toHaveLength(7);
    for (const request of requests) {
      for (const secret of [first, rotated]) expect(request.url()).not.toContain(secret.slice(6));
    }
  });

  test("a failed delivery is resent with Resend: the receiver gets the same webhook-id again", async ({ page }) => {
    await signIn(page);
    const requests = recordRequests(page);
    const webhooks = new WebhooksPage(page);
    await webhooks.goto();
    const url = receiver.url("/no-scripts-resend");
    // The receiver is down: every attempt is answered 500, which is worth retrying.
    receiver.script("/no-scripts-resend", Array(50).fill(500));
    await webhooks.create({ tenant, url, events: ["task.failed"] });
    await webhooks.subscription(url).getByRole("button", { name: "Send test" }).click();
    await waitFor(
      () => receiver.at("/no-scripts-resend"),
      (hooks) => hooks.length >= 1,
      { describe: "the first (refused) attempt at the receiver", timeoutMs: 30_000 },
    );
    // Its attempts exhausted, as the eighth refusal would leave it about four hours later: the row
    // failed and its run over. The run is stopped while it sleeps before its next attempt.
    const { deliveryId, firstRun } = await waitFor(
      () =>
        withStackDatabase(async (sql) => {
          const [stopped] = await sql<{ id: string; run_id: string }[]>`
            WITH target AS (
              SELECT d.id, d.run_id FROM webhook_deliveries d
              JOIN webhook_subscriptions s ON s.id = d.subscription_id
              WHERE s.url = ${url} AND d.attempts >= 1
            ), ended AS (
              UPDATE runs SET status = 'failed', claimable_at = NULL, finished_at = now()
              WHERE id = (SELECT run_id FROM target) AND status = 'sleeping'
              RETURNING id
            )
            UPDATE webhook_deliveries d SET status = 'failed'
            FROM target WHERE d.id = target.id AND target.run_id IN (SELECT id FROM ended)
            RETURNING d.id, d.run_id`;
          return stopped ? { deliveryId: stopped.id, firstRun: stopped.run_id } : undefined;
        }),
      (value): value is { deliveryId: string; firstRun: string } => value !== undefined,
      { describe: "the delivery's run asleep between attempts, then failed", timeoutMs: 60_000 },
    );
    const refused = receiver.at("/no-scripts-resend").length;
    receiver.script("/no-scripts-resend", []); // the receiver is back

    await webhooks.goto();
    const row = webhooks.deliveries(url).first();
    await expect(row).toHaveAttribute("data-delivery-id", deliveryId);
    await expect(row).toHaveAttribute("data-status", "failed");
    await row.getByRole("button", { name: "Resend" }).click();
    const hooks = await waitFor(
      () => receiver.at("/no-scripts-resend"),
      (received) => received.length > refused,
      { describe: "the resent delivery at the receiver", timeoutMs: 30_000 },
    );
    expect(hooks.map((hook) => hook.headers["webhook-id"])).toEqual(hooks.map(() => deliveryId));
    await newestDeliveryStatus(webhooks, url, "delivered");

    // Delivered by the resend's own run: the stopped one stayed failed.
    const [after] = await withStackDatabase(
      (sql) => sql<{ run_id: string; run_status: string; first_status: string }[]>`
        SELECT d.run_id, r.status AS run_status, (SELECT status FROM runs WHERE id = ${firstRun}) AS first_status
        FROM webhook_deliveries d JOIN runs r ON r.id = d.run_id WHERE d.id = ${deliveryId}`,
    );
    expect(after?.run_id).not.toBe(firstRun);
    expect(after?.run_status).toBe("completed");
    expect(after?.first_status).toBe("failed");
    // Create, Send test, Resend.
    expect(postsTo(requests, "/webhooks")).toHaveLength(3);
  });
});

test("a route's schedule is saved with its input fields, then paused and resumed, without scripts", async ({ page }) => {
  const slug = `ns-sched-${run}`;
  const tool = `deploy_${run}`;
  const id = await tenantId(slug);
  await withStackDatabase((sql) =>
    insertRouteRevision(sql, {
      tenantId: id,
      toolName: tool,
      workflowName: "generate-report",
      workflowVersion: 1,
      inputSchema: {
        type: "object",
        properties: { service: { type: "string" }, release: { type: "string", title: "Release" } },
        required: ["service", "release"],
      },
      taskSupport: "optional",
    }),
  );
  const latest = () =>
    withStackDatabase(
      async (sql) =>
        (
          await sql<{ schedule_cron: string | null; schedule_input: unknown; schedule_paused: boolean }[]>`
          SELECT schedule_cron, schedule_input, schedule_paused FROM routes
          WHERE tenant_id = ${id} AND tool_name = ${tool} ORDER BY revision DESC LIMIT 1`
        )[0],
    );
  await signIn(page);
  const requests = recordRequests(page);
  await page.goto("/routes");
  const panel = new RouteSchedulePanel(page, slug, tool);
  await panel.open();
  // New Year's Day at 03:00: it will not fire during the test.
  await panel.fill("0 3 1 1 *", "Europe/Paris");
  await panel.inputField("service").fill("nightly");
  await panel.inputField("Release").fill("v2.0.0");
  await panel.save();
  await expect(panel.summary).toHaveAttribute("data-schedule", "0 3 1 1 *");
  await expect(panel.nextTimes).toHaveCount(5);
  expect(await latest()).toEqual({
    schedule_cron: "0 3 1 1 *",
    schedule_input: { service: "nightly", release: "v2.0.0" },
    schedule_paused: false,
  });

  // The answer is a fresh page: its editor is closed again.
  await panel.open();
  await panel.pauseButton(false).click();
  await expect(panel.summary).toHaveAttribute("data-paused", "true");
  expect((await latest())?.schedule_paused).toBe(true);
  await panel.open();
  await panel.pauseButton(true).click();
  await expect(panel.summary).toHaveAttribute("data-paused", "false");
  expect(await latest()).toMatchObject({ schedule_paused: false, schedule_input: { service: "nightly", release: "v2.0.0" } });
  expect(postsTo(requests, "/routes")).toHaveLength(3);
});

test("a task is cancelled from its page, then rerun, without scripts", async ({ page }) => {
  const key = await withStackDatabase(async (sql) =>
    createApiKey(sql, { tenantId: await tenantId("tenant-acme"), name: `no-script-cancel-${run}` }),
  );
  const mcp = modernClient(new URL("/api/mcp", BASE()).toString(), { token: key.token });
  const created = await mcp.result("tools/call", {
    name: "approve_expense",
    arguments: { expense_id: `NS-C-${run}`, amount: 7, description: "cancelled without scripts" },
  });
  await mcp.waitFor(created.taskId, ["input_required"], 30_000);
  await signIn(page);
  const requests = recordRequests(page);
  const detail = new TaskDetailPage(page);
  await detail.goto(created.taskId);
  await expect(detail.status).toHaveText("waiting on input");

  await detail.cancel();
  await expect(detail.status).toHaveText("cancelled");
  expect((await mcp.result("tasks/get", { taskId: created.taskId })).status).toBe("cancelled");

  // Rerun, the same two steps; without scripts the answer links to the new task instead of opening it.
  await detail.rerun();
  const opened = page.getByRole("status").filter({ hasText: "Rerun started" }).getByRole("link");
  await opened.click();
  const rerunId = new URL(page.url()).pathname.split("/tasks/")[1] as string;
  expect(rerunId).toMatch(/^[0-9a-f-]{36}$/);
  expect(rerunId).not.toBe(created.taskId);
  await expect(detail.rerunOf).toHaveText(`Rerun of ${created.taskId.slice(0, 8)}`);
  await expect(detail.status).toHaveText("waiting on input");
  await detail.cancel();
  await expect(detail.status).toHaveText("cancelled");
  expect(postsTo(requests, `/tasks/${created.taskId}`)).toHaveLength(2);
  expect(postsTo(requests, `/tasks/${rerunId}`)).toHaveLength(1);
});

test("an API key is revoked without scripts, and stops working", async ({ page }) => {
  const slug = `ns-keys-${run}`;
  const id = await tenantId(slug);
  const name = `no-script-key-${run}`;
  const key = await withStackDatabase((sql) => createApiKey(sql, { tenantId: id, name }));
  const mcpStatus = async () =>
    (
      await fetch(new URL("/api/mcp", BASE()), {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      })
    ).status;
  expect(await mcpStatus()).not.toBe(401);

  await signIn(page);
  const requests = recordRequests(page);
  await page.goto(`/tenants/${slug}`);
  await page.getByRole("button", { name: `Revoke key ${name}` }).click();
  await expect(page.getByRole("button", { name: `Revoke key ${name}` })).toHaveCount(0);
  await expect(page.getByRole("listitem").filter({ hasText: name })).toContainText("revoked");
  const [row] = await withStackDatabase(
    (sql) => sql<{ revoked_at: Date | null }[]>`SELECT revoked_at FROM api_keys WHERE tenant_id = ${id} AND name = ${name}`,
  );
  expect(row?.revoked_at).toBeInstanceOf(Date);
  expect(await mcpStatus()).toBe(401);
  expect(postsTo(requests, `/tenants/${slug}`)).toHaveLength(1);
});

test("an admin resets an operator's password without scripts: the answer shows it once", async ({ page }) => {
  await signIn(page);
  const other = await createAdmin();
  const requests = recordRequests(page);
  await page.goto("/tenants");
  await page.getByRole("button", { name: `Reset password of ${other.email}` }).click();
  const notice = page.getByRole("status").filter({ hasText: `Temporary password for ${other.email}` });
  const temporary = (await notice.locator("code").textContent()) as string;
  expect(temporary.length).toBeGreaterThan(10);
  const [row] = await withStackDatabase(
    (sql) =>
      sql<{ password_hash: string; must_change_password: boolean }[]>`
        SELECT password_hash, must_change_password FROM operators WHERE email = ${other.email}`,
  );
  expect(await verifyPassword(temporary, row?.password_hash as string)).toBe(true);
  expect(row?.must_change_password).toBe(true);
  for (const request of requests) expect(request.url()).not.toContain(temporary);
  expect(postsTo(requests, "/tenants")).toHaveLength(1);
  await page.goto("/tenants");
  await expect(page.getByText(temporary)).toHaveCount(0);
});

test("Sign out everywhere without scripts ends the session and lands on the sign-in page", async ({ page }) => {
  await signIn(page);
  const requests = recordRequests(page);
  await page.goto("/account/password");
  await page.getByRole("button", { name: "Sign out everywhere" }).click();
  // The sign-in page itself (a GET after the action's 303), not the form posted again to /login.
  await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
  expect(postsTo(requests, "/account/password")).toHaveLength(1);
  expect(postsTo(requests, "/login")).toHaveLength(0);
  expect((await page.context().cookies()).map((cookie) => cookie.name)).not.toContain("next-auth.session-token");
  await page.goto("/overview");
  await expect(page).toHaveURL(/\/login/);
});
