import { createHmac } from "node:crypto";
import { lookup } from "node:dns/promises";
import { provideInput, type Worker, webhookKeyTag } from "@runifold/sdk";
import type postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resendWebhookDelivery, sendWebhookTest } from "../../lib/admin";
import { freshDatabase } from "../helpers/db";
import { waitForRunStatus } from "../helpers/runs";
import { waitFor } from "../helpers/wait-for";
import { type ReceivedWebhook, startWebhookReceiver } from "../helpers/webhook-receiver";
import {
  ACTOR,
  ALLOW_PRIVATE,
  approval,
  deliveriesOf,
  failsAtOnce,
  KEY_MATERIAL,
  newRoute,
  newTenant,
  PUBLIC_URL,
  startDeliveryWorker,
  startTask,
  subscribe,
} from "./support";

/**
 * Webhook delivery end to end: a real store, the engine's worker serving the built-in delivery
 * workflow, and a real HTTP receiver on loopback (the worker runs with allowPrivate, as
 * RUNIFOLD_WEBHOOK_ALLOW_PRIVATE=true sets it).
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: postgres.Sql;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let worker: Worker;

beforeAll(async () => {
  db = await freshDatabase();
  sql = db.sql;
  receiver = await startWebhookReceiver();
  worker = await startDeliveryWorker(sql, { lookup: dualStackLookup });
});
afterAll(async () => {
  await worker?.stop(1_000);
  await receiver?.close();
  await db?.drop();
});

/** `dual.test` answers IPv6 first, where the receiver does not listen (it is on 127.0.0.1 only). */
const dualStackLookup = async (host: string) => {
  if (host === "dual.test") return [{ address: "::1" }, { address: "127.0.0.1" }];
  return lookup(host, { all: true, verbatim: true });
};

/** The signature as docs/webhooks.md tells receivers to check it, with node:crypto alone. */
function verifyByHand(secret: string, hook: ReceivedWebhook): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const signed = `${hook.headers["webhook-id"]}.${hook.headers["webhook-timestamp"]}.${hook.body}`;
  return hook.headers["webhook-signature"] === `v1,${createHmac("sha256", key).update(signed).digest("base64")}`;
}

function waitForHooks(path: string, count: number, timeoutMs = 20_000) {
  return waitFor(
    () => receiver.at(path),
    (hooks) => hooks.length >= count,
    { describe: `${count} webhook(s) at ${path}`, timeoutMs },
  );
}

describe("task events", () => {
  it("input_required sends one signed delivery linking to the inbox; completion sends task.completed", async () => {
    const tenantId = await newTenant(sql, "acme");
    const routeId = await newRoute(sql, tenantId, "approve_expense", approval);
    const { secret, subscription } = await subscribe(sql, tenantId, receiver.url("/acme"), [
      "task.input_required",
      "task.completed",
    ]);
    const failedOnly = await subscribe(sql, tenantId, receiver.url("/acme-failed-only"), ["task.failed"]);
    const otherTenant = await newTenant(sql, "globex");
    const foreign = await subscribe(sql, otherTenant, receiver.url("/globex"), [
      "task.input_required",
      "task.completed",
      "task.failed",
      "task.cancelled",
    ]);

    const run = await startTask(sql, tenantId, approval, { amount: 120 }, routeId);
    const [asked] = await waitForHooks("/acme", 1);
    const hook = asked as ReceivedWebhook;
    expect(new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>)).toMatchObject({ id: hook.json.id });
    expect(verifyByHand(secret, hook)).toBe(true);
    expect(verifyByHand(`whsec_${Buffer.from("another secret").toString("base64")}`, hook)).toBe(false);
    expect(hook.headers["webhook-id"]).toBe(hook.json.id);
    expect(hook.json).toMatchObject({
      type: "task.input_required",
      tenant: "acme",
      task: {
        taskId: run.id,
        tool: "approve_expense",
        status: "input_required",
        link: `${PUBLIC_URL}/inbox/${run.id}`,
        inputRequest: {
          key: "approve",
          message: "Approve 120 EUR?",
          requestedSchema: { type: "object", properties: { approved: { type: "boolean" } } },
        },
      },
    });

    await provideInput(sql, {
      runId: run.id,
      responses: { approve: { action: "accept", content: { approved: true } } },
      actor: "test",
    });
    await waitForRunStatus(sql, run.id, "completed");
    const hooks = await waitForHooks("/acme", 2);
    expect(hooks.map((h) => h.json.type)).toEqual(["task.input_required", "task.completed"]);
    expect(hooks[1]?.json.task).toMatchObject({ taskId: run.id, status: "completed", link: `${PUBLIC_URL}/tasks/${run.id}` });
    // Both deliveries are recorded as delivered on the first attempt.
    const log = await waitFor(
      () => deliveriesOf(sql, subscription.id),
      (rows) => rows.length === 2 && rows.every((row) => row.status === "delivered"),
      { describe: "both deliveries delivered" },
    );
    expect(log.map((row) => [row.event, row.attempts, row.last_status_code])).toEqual([
      ["task.input_required", 1, 200],
      ["task.completed", 1, 200],
    ]);
    // Events are recorded in the transition's own statement: once the run is completed, every
    // delivery it will ever cause exists. None is for an unsubscribed event or another tenant.
    expect(await deliveriesOf(sql, failedOnly.subscription.id)).toEqual([]);
    expect(await deliveriesOf(sql, foreign.subscription.id)).toEqual([]);
    expect(receiver.at("/globex")).toEqual([]);
    expect(receiver.at("/acme-failed-only")).toEqual([]);
  });

  it("a failing task notifies only the subscriptions that asked for task.failed", async () => {
    const tenantId = await newTenant(sql, "initech");
    const failed = await subscribe(sql, tenantId, receiver.url("/initech-failed"), ["task.failed"]);
    const completed = await subscribe(sql, tenantId, receiver.url("/initech-completed"), ["task.completed"]);
    const run = await startTask(sql, tenantId, failsAtOnce, {});
    await waitForRunStatus(sql, run.id, "failed");
    const [hook] = await waitForHooks("/initech-failed", 1);
    expect(hook?.json).toMatchObject({ type: "task.failed", task: { taskId: run.id, status: "failed", tool: null } });
    expect(verifyByHand(failed.secret, hook as ReceivedWebhook)).toBe(true);
    expect(await deliveriesOf(sql, completed.subscription.id)).toEqual([]);
  });
});

describe("retries", () => {
  it("a receiver answering 500 twice gets three attempts, further apart each time, all in the log", async () => {
    const tenantId = await newTenant(sql, "flaky");
    receiver.script("/flaky", [500, 500]);
    const { subscription } = await subscribe(sql, tenantId, receiver.url("/flaky"), ["task.input_required"]);
    await startTask(sql, tenantId, approval, { amount: 1 });
    const hooks = await waitForHooks("/flaky", 3);
    const ids = new Set(hooks.map((h) => h.headers["webhook-id"]));
    expect(ids.size).toBe(1); // one delivery, retried: receivers deduplicate by webhook-id
    expect(hooks.map((h) => h.body)).toEqual([hooks[0]?.body, hooks[0]?.body, hooks[0]?.body]);
    const [first, second, third] = hooks.map((h) => h.at) as [number, number, number];
    // Backoffs 250 ms then 750 ms (±20 % jitter): 200–300 ms, then 600–900 ms.
    expect(second - first).toBeGreaterThanOrEqual(150);
    expect(third - second).toBeGreaterThan(second - first);
    const [row] = await waitFor(
      () => deliveriesOf(sql, subscription.id),
      (rows) => rows[0]?.status === "delivered",
      { describe: "the flaky delivery to be delivered" },
    );
    expect(row?.attempts).toBe(3);
    expect(row?.attempt_log.map((entry) => entry.statusCode)).toEqual([500, 500, 200]);
    expect(row?.attempt_log[0]?.error).toContain("HTTP 500");
    await waitForRunStatus(sql, row?.run_id as string, "completed");
  });

  it("a 400 is final: one attempt, the delivery and its run fail with the answer recorded", async () => {
    const tenantId = await newTenant(sql, "strict");
    receiver.script("/strict", [400]);
    const { subscription } = await subscribe(sql, tenantId, receiver.url("/strict"), ["task.input_required"]);
    await startTask(sql, tenantId, approval, { amount: 2 });
    const [row] = await waitFor(
      () => deliveriesOf(sql, subscription.id),
      (rows) => rows[0]?.status === "failed",
      { describe: "the delivery to fail" },
    );
    await waitForRunStatus(sql, row?.run_id as string, "failed");
    expect(row).toMatchObject({ attempts: 1, last_status_code: 400 });
    expect(row?.last_error).toContain("HTTP 400: answer 400");
    expect(receiver.at("/strict")).toHaveLength(1); // its run is over: no attempt can follow
  });

  it("429 is retried like a 5xx", async () => {
    const tenantId = await newTenant(sql, "throttled");
    receiver.script("/throttled", [429]);
    const { subscription } = await subscribe(sql, tenantId, receiver.url("/throttled"), ["task.input_required"]);
    await startTask(sql, tenantId, approval, { amount: 3 });
    await waitForHooks("/throttled", 2);
    const [row] = await waitFor(
      () => deliveriesOf(sql, subscription.id),
      (rows) => rows[0]?.status === "delivered",
      { describe: "the throttled delivery to be delivered" },
    );
    expect(row?.attempt_log.map((entry) => entry.statusCode)).toEqual([429, 200]);
  });
});

describe("addresses", () => {
  it("tries the host's next checked address when the first one does not connect", async () => {
    const tenantId = await newTenant(sql, "dual");
    const url = receiver.url("/dual").replace("127.0.0.1", "dual.test");
    const policy = { ...ALLOW_PRIVATE, lookup: dualStackLookup };
    const { subscription } = await subscribe(sql, tenantId, url, ["task.completed"], policy);
    await sendWebhookTest({ sql, actor: ACTOR }, { tenantId, subscriptionId: subscription.id });
    const [hook] = await waitForHooks("/dual", 1);
    expect(hook?.headers.host).toBe(new URL(url).host); // the name, not the address it went to
    const [row] = await waitFor(
      () => deliveriesOf(sql, subscription.id),
      (rows) => rows[0]?.status === "delivered",
      { describe: "the dual-stack delivery" },
    );
    expect(row?.attempts).toBe(1);
  });
});

describe("send test", () => {
  it("delivers a signed webhook.test through a run of the built-in workflow and records it", async () => {
    const tenantId = await newTenant(sql, "hooli");
    const { secret, subscription } = await subscribe(sql, tenantId, receiver.url("/hooli"), ["task.completed"]);
    const sent = await sendWebhookTest({ sql, actor: ACTOR }, { tenantId, subscriptionId: subscription.id });
    const [hook] = await waitForHooks("/hooli", 1);
    expect(hook?.json).toMatchObject({ id: sent.deliveryId, type: "webhook.test", tenant: "hooli" });
    expect(hook?.json.task).toBeUndefined();
    expect(verifyByHand(secret, hook as ReceivedWebhook)).toBe(true);
    const [run] = await sql`SELECT workflow_key, tenant_id, status FROM runs WHERE id = ${sent.runId}`;
    // The run names the key its secret was sealed under, so only workers holding that key claim it.
    expect(run).toMatchObject({
      workflow_key: `runifold-webhook-delivery.${webhookKeyTag(KEY_MATERIAL)}@1`,
      tenant_id: tenantId,
    });
    await waitForRunStatus(sql, sent.runId, "completed");
    const [audit] = await sql`SELECT fields FROM audit_events WHERE action = 'webhook.test' AND tenant_id = ${tenantId}`;
    expect(audit?.fields).toMatchObject({ subscriptionId: subscription.id, deliveryId: sent.deliveryId });
    // Another tenant's id for the same subscription is "not found", and nothing is queued.
    const other = await newTenant(sql, "hooli-rival");
    await expect(
      sendWebhookTest({ sql, actor: ACTOR }, { tenantId: other, subscriptionId: subscription.id }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await deliveriesOf(sql, subscription.id)).toHaveLength(1);
  });
});

describe("resend", () => {
  it("sends a failed delivery again under the same webhook-id, once, through a new run", async () => {
    const tenantId = await newTenant(sql, "resend");
    receiver.script("/resend", [400]);
    const { secret, subscription } = await subscribe(sql, tenantId, receiver.url("/resend"), ["task.input_required"]);
    await startTask(sql, tenantId, approval, { amount: 4 });
    const [failed] = await waitFor(
      () => deliveriesOf(sql, subscription.id),
      (rows) => rows[0]?.status === "failed",
      { describe: "the delivery to fail" },
    );
    const ref = { tenantId, subscriptionId: subscription.id, deliveryId: failed?.id as string };
    // Another tenant naming it is refused as "not found", and nothing changes.
    const rival = await newTenant(sql, "resend-rival");
    await expect(resendWebhookDelivery({ sql, actor: ACTOR }, { ...ref, tenantId: rival })).rejects.toMatchObject({
      code: "not_found",
    });
    const resent = await resendWebhookDelivery({ sql, actor: ACTOR }, ref);
    expect(resent.deliveryId).toBe(failed?.id);
    expect(resent.runId).not.toBe(failed?.run_id);
    // Pressed twice: the row is no longer failed, so the second is refused and queues nothing.
    await expect(resendWebhookDelivery({ sql, actor: ACTOR }, ref)).rejects.toMatchObject({ code: "conflict" });
    const hooks = await waitForHooks("/resend", 2);
    expect(hooks[1]?.headers["webhook-id"]).toBe(hooks[0]?.headers["webhook-id"]);
    expect(hooks[1]?.body).toBe(hooks[0]?.body);
    expect(verifyByHand(secret, hooks[1] as ReceivedWebhook)).toBe(true);
    const [row] = await waitFor(
      () => deliveriesOf(sql, subscription.id),
      (rows) => rows[0]?.status === "delivered",
      { describe: "the resent delivery to be delivered" },
    );
    expect(row?.attempt_log.map((entry) => entry.statusCode)).toEqual([400, 200]);
    expect(row?.run_id).toBe(resent.runId);
    await waitForRunStatus(sql, resent.runId, "completed");
    const [run] = await sql`SELECT workflow_key FROM runs WHERE id = ${resent.runId}`;
    expect(run?.workflow_key).toBe(`runifold-webhook-delivery.${webhookKeyTag(KEY_MATERIAL)}@1`);
    expect(await deliveriesOf(sql, subscription.id)).toHaveLength(1);
    const audits = await sql`SELECT fields FROM audit_events WHERE action = 'webhook.resend' AND tenant_id = ${tenantId}`;
    expect(audits).toHaveLength(1);
    expect(audits[0]?.fields).toMatchObject({ deliveryId: failed?.id, runId: resent.runId });
    // A delivered one cannot be resent either.
    await expect(resendWebhookDelivery({ sql, actor: ACTOR }, ref)).rejects.toMatchObject({ code: "conflict" });
  });
});
