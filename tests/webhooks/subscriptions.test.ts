import { type Worker, webhookKeyTag } from "@runifold/sdk";
import type postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listWebhookSubscriptions } from "../../db/queries/webhooks";
import { deleteWebhook, rotateWebhookSecret, sendWebhookTest, setWebhookEnabledState } from "../../lib/admin";
import { freshDatabase } from "../helpers/db";
import { waitForRunStatus } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { ACTOR, approval, deliveriesOf, KEY_MATERIAL, newTenant, startDeliveryWorker, startTask, subscribe } from "./support";

/** Subscriptions through lib/admin (the console's service): CRUD, audit, sealed secrets and the SSRF rule. */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const workers: Worker[] = [];
const ctx = () => ({ sql, actor: ACTOR });
const STRICT = { keyMaterial: KEY_MATERIAL, allowPrivate: false };

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop(1_000)));
});
afterAll(async () => {
  await receiver?.close();
  await db?.drop();
});

async function auditActions(tenantId: string): Promise<string[]> {
  const rows = await sql<{ action: string }[]>`SELECT action FROM audit_events WHERE tenant_id = ${tenantId} ORDER BY id`;
  return rows.map((row) => row.action);
}

describe("subscriptions", () => {
  it("create, list, rotate, disable and delete, each audited; the secret is shown once and stored sealed", async () => {
    const tenantId = await newTenant(sql, "crud");
    const { subscription, secret } = await subscribe(sql, tenantId, "https://93.184.215.14/hooks/runifold?token=abc", [
      "task.completed",
      "task.input_required",
      "task.completed",
    ]);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(subscription.events).toEqual(["task.input_required", "task.completed"]); // canonical order, no duplicates
    const [stored] = await sql<
      { secret_sealed: string }[]
    >`SELECT secret_sealed FROM webhook_subscriptions WHERE id = ${subscription.id}`;
    expect(stored?.secret_sealed).toMatch(new RegExp(`^v2\\.${webhookKeyTag(KEY_MATERIAL)}\\.`));
    expect(stored?.secret_sealed).not.toContain(secret.slice(6));

    const listed = await listWebhookSubscriptions(sql, [tenantId]);
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain("secret_sealed");

    const rotated = await rotateWebhookSecret(ctx(), { tenantId, subscriptionId: subscription.id }, STRICT);
    expect(rotated.secret).not.toBe(secret);
    await setWebhookEnabledState(ctx(), { tenantId, subscriptionId: subscription.id, enabled: false });
    expect((await listWebhookSubscriptions(sql, [tenantId]))[0]?.enabled).toBe(false);

    // Another tenant cannot reach it by id: every operation is "not found".
    const other = await newTenant(sql, "crud-other");
    const foreign = { tenantId: other, subscriptionId: subscription.id };
    await expect(deleteWebhook(ctx(), foreign)).rejects.toMatchObject({ code: "not_found" });
    await expect(rotateWebhookSecret(ctx(), foreign, STRICT)).rejects.toMatchObject({ code: "not_found" });
    await expect(setWebhookEnabledState(ctx(), { ...foreign, enabled: true })).rejects.toMatchObject({ code: "not_found" });

    await deleteWebhook(ctx(), { tenantId, subscriptionId: subscription.id });
    expect(await listWebhookSubscriptions(sql, [tenantId])).toEqual([]);
    expect(await auditActions(tenantId)).toEqual([
      "webhook.create",
      "webhook.rotate_secret",
      "webhook.disable",
      "webhook.delete",
    ]);
    const [created] = await sql`SELECT fields FROM audit_events WHERE action = 'webhook.create' AND tenant_id = ${tenantId}`;
    expect(JSON.stringify(created?.fields)).not.toContain("token=abc"); // only the origin is audited
  });

  it("refuses private, loopback and link-local targets, and plain http, unless private addresses are allowed", async () => {
    const tenantId = await newTenant(sql, "ssrf");
    const refusals: [string, RegExp][] = [
      ["https://10.0.0.5/hook", /private, loopback or reserved address \(10\.0\.0\.5\)/],
      ["https://127.0.0.1:8443/hook", /\(127\.0\.0\.1\)/],
      ["https://169.254.169.254/latest/meta-data", /\(169\.254\.169\.254\)/],
      ["https://[::1]/hook", /\(::1\)/],
      ["https://[fd12:3456::1]/hook", /\(fd12:3456::1\)/],
      ["https://[::ffff:192.168.1.1]/hook", /address/],
      // A name is resolved (real DNS): localhost answers 127.0.0.1 / ::1.
      ["https://localhost/hook", /private, loopback or reserved address/],
      ["http://93.184.215.14/hook", /must use https/],
      ["https://user:pass@93.184.215.14/hook", /user name or password/],
      ["ftp://93.184.215.14/hook", /must use https/],
      ["not a url", /not an absolute URL/],
    ];
    for (const [url, reason] of refusals) {
      await expect(subscribe(sql, tenantId, url, ["task.failed"], STRICT), url).rejects.toMatchObject({
        code: "bad_request",
        message: expect.stringMatching(reason),
      });
    }
    await expect(subscribe(sql, tenantId, "https://93.184.215.14/ok", ["task.bogus"], STRICT)).rejects.toMatchObject({
      code: "bad_request",
    });
    await expect(subscribe(sql, tenantId, "https://93.184.215.14/ok", [], STRICT)).rejects.toMatchObject({ code: "bad_request" });
    expect(await listWebhookSubscriptions(sql, [tenantId])).toEqual([]);
    // With the flag (RUNIFOLD_WEBHOOK_ALLOW_PRIVATE=true) loopback and http are allowed.
    await expect(subscribe(sql, tenantId, "http://localhost:9/hook", ["task.failed"])).resolves.toMatchObject({});
    // Without a key to seal secrets with, nothing is created.
    await expect(
      subscribe(sql, tenantId, "https://93.184.215.14/ok", ["task.failed"], { keyMaterial: undefined, allowPrivate: false }),
    ).rejects.toMatchObject({ code: "bad_request", message: expect.stringContaining("RUNIFOLD_WEBHOOK_KEY") });
  });
});

describe("at delivery time", () => {
  it("a worker without the allow flag refuses a loopback target: nothing is sent, the delivery fails at once", async () => {
    const tenantId = await newTenant(sql, "late-ssrf");
    // Saved where private addresses were allowed; this worker (the default) allows none. https, so
    // the refusal is the address the name resolves to at delivery time.
    const url = receiver.url("/late").replace("http://127.0.0.1", "https://localhost");
    const { subscription } = await subscribe(sql, tenantId, url, ["task.input_required"]);
    workers.push(await startDeliveryWorker(sql, { allowPrivate: false }));
    await startTask(sql, tenantId, approval, { amount: 5 });
    const [row] = await waitFor(
      () => deliveriesOf(sql, subscription.id),
      (rows) => rows[0]?.status === "failed",
      { describe: "the delivery to be refused" },
    );
    expect(row?.attempts).toBe(1);
    expect(row?.last_error).toMatch(/^refused: the host resolves to a private, loopback or reserved address/);
    await waitForRunStatus(sql, row?.run_id as string, "failed");
    expect(receiver.at("/late")).toEqual([]);
  });

  it("a disabled subscription gets no events; the rotated secret signs the next delivery", async () => {
    const tenantId = await newTenant(sql, "toggles");
    const { subscription } = await subscribe(sql, tenantId, receiver.url("/toggles"), ["task.input_required"]);
    workers.push(await startDeliveryWorker(sql));
    await setWebhookEnabledState(ctx(), { tenantId, subscriptionId: subscription.id, enabled: false });
    const silent = await startTask(sql, tenantId, approval, { amount: 6 });
    await waitForRunStatus(sql, silent.id, "waiting_input");
    expect(await deliveriesOf(sql, subscription.id)).toEqual([]); // recorded with the transition, or never

    await setWebhookEnabledState(ctx(), { tenantId, subscriptionId: subscription.id, enabled: true });
    const { secret } = await rotateWebhookSecret(ctx(), { tenantId, subscriptionId: subscription.id }, STRICT);
    await sendWebhookTest(ctx(), { tenantId, subscriptionId: subscription.id });
    const [hook] = await waitFor(
      () => receiver.at("/toggles"),
      (hooks) => hooks.length === 1,
      { describe: "the test delivery" },
    );
    expect(new Webhook(secret).verify(hook?.body as string, hook?.headers as Record<string, string>)).toMatchObject({
      type: "webhook.test",
    });
  });
});
