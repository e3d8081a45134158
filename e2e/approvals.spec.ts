import { randomBytes } from "node:crypto";
import { type Browser, expect, type Page, test } from "@playwright/test";
import { canonicalDigest, createRun, normalizePolicy } from "@runifold/sdk";
import { addOperatorTenant, createOperator } from "../db/queries/operators";
import { createTenant } from "../db/queries/tenants";
import { hashPassword } from "../lib/auth";
import { screenshot, withStackDatabase } from "./fixtures";

// The console's Approvals page in Chromium (issue 30): a 2-of-3 approval from group finance whose
// requester (A) only sees it as waiting on others; B approves with a comment; C approves with
// JavaScript off (the form is a plain POST). Both decisions are recorded with channel console and the
// approval settles. The approval is opened in the store as ctx.requestApproval opens one (the stack's
// worker does not serve this test's workflow, and needs not: deciding is the console's part).
test.describe.configure({ mode: "serial" });

const suffix = randomBytes(3).toString("hex");
const password = `pw-${randomBytes(12).toString("base64url")}`;
const people = { a: `a-${suffix}@runifold.test`, b: `b-${suffix}@runifold.test`, c: `c-${suffix}@runifold.test` };
let taskId = "";

test.beforeAll(async () => {
  await withStackDatabase(async (sql) => {
    const tenant = await createTenant(sql, { slug: `e2e-approvals-${suffix}`, name: "E2E approvals" });
    const ids: Record<string, string> = {};
    for (const [who, email] of Object.entries(people)) {
      const row = await createOperator(sql, { email, passwordHash: await hashPassword(password), role: "operator" });
      await addOperatorTenant(sql, { operatorId: row.id, tenantId: tenant.id });
      await sql`UPDATE operators SET groups = ${["finance"]} WHERE id = ${row.id}`;
      ids[who] = row.id;
    }
    const input = { invoice: "INV-7", amount: 9800 };
    const run = await createRun(sql, { tenantId: tenant.id, workflowName: "e2e-approval", workflowVersion: 1, input });
    taskId = run.id;
    const policy = normalizePolicy({ approvers: { groups: ["finance"] }, quorum: 2, expiresIn: "1h" });
    const details = { amount: 9800, vendor: "Acme Supplies" };
    await sql`
      UPDATE runs SET status = 'waiting_signal', claimable_at = NULL,
             wait_detail = ${sql.json({ approval: { key: "pay", since: new Date().toISOString() } })}
      WHERE id = ${taskId}`;
    await sql`
      INSERT INTO approvals (run_id, key, tenant_id, message, details, policy, args_digest, details_digest, policy_digest,
                             excluded_operator_ids, expires_at)
      VALUES (${taskId}, 'pay', ${tenant.id}, 'Pay invoice INV-7 (9,800 EUR)?', ${sql.json(details)}, ${sql.json(policy)},
              ${canonicalDigest(input)}, ${canonicalDigest(details)}, ${canonicalDigest(policy)}, ${[ids.a as string]},
              now() + interval '1 hour')`;
  });
});

async function signedIn(browser: Browser, email: string, javaScriptEnabled = true): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled });
  const page = await context.newPage();
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await page.goto("/approvals");
  await expect(page.getByRole("heading", { name: "Approvals", level: 1 })).toBeVisible();
  return page;
}

const approval = (page: Page) => page.getByRole("region", { name: `Approval pay of task ${taskId}` });

test("the requester sees the approval only as waiting on others", async ({ browser }) => {
  const page = await signedIn(browser, people.a);
  await expect(approval(page)).toBeVisible();
  await expect(approval(page)).toContainText("Pay invoice INV-7 (9,800 EUR)?");
  await expect(approval(page).getByRole("button", { name: "Approve" })).toHaveCount(0);
  await page.context().close();
});

test("B approves with a comment; C approves with scripts off; both are recorded and the approval settles", async ({
  browser,
}) => {
  const b = await signedIn(browser, people.b);
  const section = approval(b);
  await expect(section).toContainText("0 of 2 from group finance");
  await expect(section).toContainText('"invoice": "INV-7"');
  await expect(section).toContainText('"vendor": "Acme Supplies"');
  await screenshot(b, "approvals");
  await section.getByLabel("Comment (optional)").fill("matches the PO");
  await section.getByRole("button", { name: "Approve" }).click();
  // Decided: the approval moves to "Waiting on others" for B, with B's decision in its history.
  await expect(section).toContainText("1 of 2 from group finance");
  await expect(section).toContainText(`${people.b} approved via console`);
  await expect(section).toContainText("matches the PO");
  await expect(section.getByRole("button", { name: "Approve" })).toHaveCount(0);
  await b.context().close();

  const c = await signedIn(browser, people.c, false);
  await expect(approval(c)).toContainText(`${people.b} approved via console`);
  await approval(c).getByRole("button", { name: "Approve" }).click();
  await expect(c.getByRole("heading", { name: "Approvals", level: 1 })).toBeVisible();
  await c.context().close();

  const stored = await withStackDatabase(async (sql) => ({
    approval: (await sql`SELECT status, outcome FROM approvals WHERE run_id = ${taskId}`)[0],
    decisions: await sql`SELECT email, channel, comment FROM approval_decisions WHERE run_id = ${taskId} ORDER BY id`,
    run: (await sql`SELECT status FROM runs WHERE id = ${taskId}`)[0],
  }));
  expect(stored.approval).toEqual({ status: "approved", outcome: "approved" });
  expect(stored.decisions).toEqual([
    { email: people.b, channel: "console", comment: "matches the PO" },
    { email: people.c, channel: "console", comment: null },
  ]);
  expect(["queued", "leased", "waiting_signal", "failed"]).toContain(stored.run?.status);
});
