import type postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createWebhookAction,
  deleteWebhookAction,
  sendWebhookTestAction,
  setWebhookEnabledAction,
} from "../../lib/ui/actions/webhook-actions";
import { presentTaskInbox } from "../../lib/ui/presenters/task-inbox";
import { presentWebhooksPage } from "../../lib/ui/presenters/webhooks";
import { freshDatabase } from "../helpers/db";
import { ALLOW_PRIVATE } from "../webhooks/support";
import { contextFor, makeOperator, makeTenant, makeWaitingRun } from "./helpers";

/** The console's Webhooks page and actions: admins see every tenant, members only theirs. */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let tenantA: { id: string; slug: string };
let tenantB: { id: string; slug: string };
let member: { id: string; email: string };
let admin: { id: string; email: string };
const create = createWebhookAction(ALLOW_PRIVATE);
const asMember = (tenantIds: string[]) => ({
  id: member.id,
  email: member.email,
  name: "",
  role: "operator" as const,
  tenantIds,
});

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  tenantA = await makeTenant(sql, "hooks-a");
  tenantB = await makeTenant(sql, "hooks-b");
  member = await makeOperator(sql, "operator", [tenantA.id]);
  admin = await makeOperator(sql, "admin");
});
afterAll(async () => {
  await db?.drop();
});

describe("webhooks in the console", () => {
  it("a member manages its own tenant's subscriptions and cannot reach another tenant's", async () => {
    const mine = await create(contextFor(sql, member.id), {
      tenantId: tenantA.id,
      url: "http://127.0.0.1:9/a",
      events: ["task.failed"],
    });
    expect(mine.secret).toMatch(/^whsec_/);
    // Another tenant: "not found", as for a tenant that does not exist.
    await expect(
      create(contextFor(sql, member.id), { tenantId: tenantB.id, url: "http://127.0.0.1:9/b", events: ["task.failed"] }),
    ).rejects.toMatchObject({ code: "not_found" });
    const theirs = await create(contextFor(sql, admin.id), {
      tenantId: tenantB.id,
      url: "http://127.0.0.1:9/b",
      events: ["task.failed"],
    });
    const foreign = { tenantId: tenantB.id, subscriptionId: theirs.subscription.id };
    for (const action of [deleteWebhookAction, sendWebhookTestAction]) {
      await expect(action(contextFor(sql, member.id), foreign)).rejects.toMatchObject({ code: "not_found" });
    }
    // Naming its own tenant with the other's subscription id is "not found" too (the tenant is in the WHERE).
    await expect(
      setWebhookEnabledAction(contextFor(sql, member.id), {
        tenantId: tenantA.id,
        subscriptionId: theirs.subscription.id,
        enabled: false,
      }),
    ).rejects.toMatchObject({ code: "not_found" });
    // A cross-site POST is refused before anything else.
    await expect(
      sendWebhookTestAction(contextFor(sql, member.id, { "sec-fetch-site": "cross-site" }), {
        tenantId: tenantA.id,
        subscriptionId: mine.subscription.id,
      }),
    ).rejects.toMatchObject({ code: "forbidden" });

    await sendWebhookTestAction(contextFor(sql, member.id), { tenantId: tenantA.id, subscriptionId: mine.subscription.id });
    const memberView = await presentWebhooksPage(sql, asMember([tenantA.id]));
    expect(memberView.tenants.map((t) => t.slug)).toEqual(["hooks-a"]);
    expect(memberView.subscriptions.map((s) => s.id)).toEqual([mine.subscription.id]);
    expect(memberView.subscriptions[0]?.deliveries).toMatchObject([{ event: "webhook.test", status: "pending", attempts: 0 }]);
    expect(JSON.stringify(memberView)).not.toContain("whsec_");
    const adminView = await presentWebhooksPage(sql, { ...asMember([]), id: admin.id, role: "admin", tenantIds: null });
    expect(adminView.subscriptions.map((s) => s.tenantSlug).sort()).toEqual(["hooks-a", "hooks-b"]);
  });

  it("the inbox link of a task shows its form to operators of its tenant only", async () => {
    const runId = await makeWaitingRun(sql, tenantA.id);
    const view = await presentTaskInbox(sql, asMember([tenantA.id]), runId);
    expect(view?.items).toMatchObject([{ key: "decision", message: "Approve?" }]);
    expect(await presentTaskInbox(sql, asMember([tenantB.id]), runId)).toBeUndefined();
  });
});
