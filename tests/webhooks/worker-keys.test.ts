import { webhookKeyTag } from "@runifold/sdk";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendWebhookTest } from "../../lib/admin";
import { freshDatabase } from "../helpers/db";
import { waitFor } from "../helpers/wait-for";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { registrationOf, startWorker, stopWorker, WORKER_MODULES, type WorkerProcess } from "../worker/worker-bin";
import { ACTOR, KEY_MATERIAL, newTenant, subscribe } from "./support";

/**
 * Team workers never break webhooks (issue 34): runifold-worker processes started as a team starts
 * its own — one with DATABASE_URL alone, one with another key than the web's — beside the
 * deployment's worker with the web's key. Only the last claims deliveries; alone, the others leave
 * them queued (the stranded sweep says no worker serves them), never failed.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const children: WorkerProcess[] = [];

beforeAll(async () => {
  db = await freshDatabase();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await Promise.all(children.map((child) => stopWorker(child)));
  await receiver?.close();
  await db?.drop();
});

const MODULE = ["--workflows", `${WORKER_MODULES}/good.ts`];
const WRONG_KEY = "another-deployment-key-0123456789";
const DELIVERY = `runifold-webhook-delivery.${webhookKeyTag(KEY_MATERIAL)}@1`;
const NO_KEY = { NEXTAUTH_SECRET: "", RUNIFOLD_WEBHOOK_KEY: "" };

function start(env: Record<string, string>): WorkerProcess {
  const child = startWorker(MODULE, {
    DATABASE_URL: db.url,
    RUNIFOLD_WEBHOOKS: "on",
    RUNIFOLD_WEBHOOK_ALLOW_PRIVATE: "true",
    ...NO_KEY,
    ...env,
  });
  children.push(child);
  return child;
}

type DeliveryRun = {
  delivery_status: string;
  attempts: number;
  run_status: string;
  status_message: string | null;
  workers: string[];
};

function deliveryRuns(tenantId: string): Promise<DeliveryRun[]> {
  return db.sql<DeliveryRun[]>`
    SELECT d.status AS delivery_status, d.attempts, r.status AS run_status, r.status_message,
           coalesce((SELECT array_agg(DISTINCT e.payload->>'worker') FROM run_events e
                     WHERE e.run_id = r.id AND e.type = 'leased'), '{}') AS workers
    FROM webhook_deliveries d JOIN runs r ON r.id = d.run_id
    WHERE d.tenant_id = ${tenantId} ORDER BY d.created_at`;
}

describe("webhook deliveries and the workers' keys", () => {
  it("a worker without the key serves none and leaves them queued; only the worker with the web's key delivers", async () => {
    const keyless = start({});
    const keylessRegistration = await registrationOf(db.sql, keyless);
    expect([...keylessRegistration.workflows].sort()).toEqual(["cli-echo@1", "cli-shout@1"]);

    const tenantId = await newTenant(db.sql, "team-keys");
    const { subscription } = await subscribe(db.sql, tenantId, receiver.url("/team-keys"), ["task.failed"]);
    for (let i = 0; i < 3; i += 1)
      await sendWebhookTest({ sql: db.sql, actor: ACTOR }, { tenantId, subscriptionId: subscription.id });

    // Alone, the keyless worker claims nothing: the runs wait, marked as served by no worker.
    const waiting = await waitFor(
      () => deliveryRuns(tenantId),
      (rows) => rows.length === 3 && rows.every((row) => row.status_message?.includes(DELIVERY)),
      { describe: "the stranded sweep to mark the delivery runs", timeoutMs: 60_000 },
    );
    for (const row of waiting) {
      expect(row).toMatchObject({ delivery_status: "pending", attempts: 0, run_status: "queued", workers: [] });
    }
    expect(receiver.at("/team-keys")).toEqual([]);

    // Another deployment's key: it serves its own key's deliveries, not these.
    const wrong = start({ RUNIFOLD_WEBHOOK_KEY: WRONG_KEY });
    const wrongRegistration = await registrationOf(db.sql, wrong);
    expect(wrongRegistration.workflows).not.toContain(DELIVERY);
    expect(wrongRegistration.workflows).toContain(`runifold-webhook-delivery.${webhookKeyTag(WRONG_KEY)}@1`);

    const right = start({ NEXTAUTH_SECRET: KEY_MATERIAL });
    const rightRegistration = await registrationOf(db.sql, right);
    expect(rightRegistration.workflows).toContain(DELIVERY);
    // More deliveries while all three serve: each is woken and polls, and still only the right one claims.
    for (let i = 0; i < 3; i += 1)
      await sendWebhookTest({ sql: db.sql, actor: ACTOR }, { tenantId, subscriptionId: subscription.id });

    await waitFor(
      () => receiver.at("/team-keys"),
      (hooks) => hooks.length === 6,
      { describe: "all six deliveries to arrive", timeoutMs: 60_000 },
    );
    const done = await waitFor(
      () => deliveryRuns(tenantId),
      (rows) => rows.length === 6 && rows.every((row) => row.run_status === "completed"),
      { describe: "every delivery run to complete", timeoutMs: 30_000 },
    );
    for (const row of done) {
      expect(row).toMatchObject({ delivery_status: "delivered", attempts: 1, workers: [rightRegistration.id] });
    }
    expect(keyless.output()).not.toMatch(/does not open|no webhook key/);
    expect(wrong.output()).not.toMatch(/does not open/);
    for (const child of [keyless, wrong, right]) expect(await stopWorker(child), child.output()).toBe(0);
  });

  it("a worker with the web's key tags a secret sealed before tags and moves its queued deliveries to its key", async () => {
    const tenantId = await newTenant(db.sql, "legacy-keys");
    const { subscription, secret } = await subscribe(db.sql, tenantId, receiver.url("/legacy-keys"), ["task.failed"]);
    // As a subscription made before migration 0040 holds it: the same sealed bytes, without the tag.
    const [row] = await db.sql<{ secret_sealed: string }[]>`
      SELECT secret_sealed FROM webhook_subscriptions WHERE id = ${subscription.id}`;
    const untagged = `v1.${row?.secret_sealed.split(".")[2]}`;
    await db.sql`UPDATE webhook_subscriptions SET secret_sealed = ${untagged} WHERE id = ${subscription.id}`;
    const queued = await sendWebhookTest({ sql: db.sql, actor: ACTOR }, { tenantId, subscriptionId: subscription.id });
    const keyOf = async (runId: string) =>
      (await db.sql<{ workflow_key: string }[]>`SELECT workflow_key FROM runs WHERE id = ${runId}`)[0]?.workflow_key;
    expect(await keyOf(queued.runId)).toBe("runifold-webhook-delivery@1");

    const right = start({ RUNIFOLD_WEBHOOK_KEY: KEY_MATERIAL });
    await registrationOf(db.sql, right);
    const [hook] = await waitFor(
      () => receiver.at("/legacy-keys"),
      (hooks) => hooks.length === 1,
      { describe: "the queued delivery to arrive", timeoutMs: 30_000 },
    );
    // The receiver's secret did not change: only how it is sealed.
    expect(new Webhook(secret).verify(hook?.body as string, hook?.headers as Record<string, string>)).toMatchObject({
      type: "webhook.test",
    });
    const [after] = await db.sql<{ secret_sealed: string }[]>`
      SELECT secret_sealed FROM webhook_subscriptions WHERE id = ${subscription.id}`;
    expect(after?.secret_sealed.startsWith(`v2.${webhookKeyTag(KEY_MATERIAL)}.`)).toBe(true);
    expect(await keyOf(queued.runId)).toBe(DELIVERY);
    const next = await sendWebhookTest({ sql: db.sql, actor: ACTOR }, { tenantId, subscriptionId: subscription.id });
    expect(await keyOf(next.runId)).toBe(DELIVERY);
    expect(await stopWorker(right), right.output()).toBe(0);
  });
});
