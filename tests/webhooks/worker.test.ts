import { webhookKeyTag } from "@runifold/sdk";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendWebhookTest } from "../../lib/admin";
import { freshDatabase } from "../helpers/db";
import { waitForExit } from "../helpers/processes";
import { waitFor } from "../helpers/wait-for";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { registrationOf, startWorker, stopWorker, WORKER_MODULES } from "../worker/worker-bin";
import { ACTOR, KEY_MATERIAL, newTenant, subscribe } from "./support";

/**
 * runifold-worker as a team runs it: it serves the built-in delivery workflow beside the team's
 * module unless told not to, publishes it like any definition, and takes its key, public URL and
 * allow flag from the environment.
 */
let db: Awaited<ReturnType<typeof freshDatabase>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  db = await freshDatabase();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await db?.drop();
});

const MODULE = ["--workflows", `${WORKER_MODULES}/good.ts`];

describe("runifold-worker", () => {
  it("serves and publishes the delivery workflow of its key by default and delivers with the env's key and flag", async () => {
    const child = startWorker(MODULE, {
      DATABASE_URL: db.url,
      RUNIFOLD_WEBHOOKS: "on",
      NEXTAUTH_SECRET: KEY_MATERIAL, // no RUNIFOLD_WEBHOOK_KEY: the web's NEXTAUTH_SECRET is the key
      RUNIFOLD_WEBHOOK_ALLOW_PRIVATE: "true",
      RUNIFOLD_PUBLIC_URL: "https://console.example.test",
    });
    try {
      const registration = await registrationOf(db.sql, child);
      // Its key's own (the deliveries of secrets sealed under that key) and the plain one (secrets sealed before tags).
      const tagged = `runifold-webhook-delivery.${webhookKeyTag(KEY_MATERIAL)}`;
      expect([...registration.workflows].sort()).toEqual([
        "cli-echo@1",
        "cli-shout@1",
        `${tagged}@1`,
        "runifold-webhook-delivery@1",
      ]);
      const [definition] = await db.sql`SELECT title, input_schema FROM workflow_definitions WHERE name = ${tagged}`;
      expect(definition).toMatchObject({
        title: "Webhook delivery (built-in)",
        input_schema: { properties: { deliveryId: { type: "string", format: "uuid" } } },
      });

      const tenantId = await newTenant(db.sql, "procs");
      const { subscription, secret } = await subscribe(db.sql, tenantId, receiver.url("/procs"), ["task.failed"]);
      await sendWebhookTest({ sql: db.sql, actor: ACTOR }, { tenantId, subscriptionId: subscription.id });
      const [hook] = await waitFor(
        () => receiver.at("/procs"),
        (hooks) => hooks.length === 1,
        { describe: "the test delivery from the worker process", timeoutMs: 30_000 },
      );
      expect(new Webhook(secret).verify(hook?.body as string, hook?.headers as Record<string, string>)).toMatchObject({
        type: "webhook.test",
        tenant: "procs",
      });
    } finally {
      expect(await stopWorker(child), child.output()).toBe(0);
    }
  });

  it("--no-webhooks serves the module alone", async () => {
    const child = startWorker([...MODULE, "--no-webhooks"], { DATABASE_URL: db.url, RUNIFOLD_WEBHOOKS: "on" });
    try {
      const registration = await registrationOf(db.sql, child);
      expect([...registration.workflows].sort()).toEqual(["cli-echo@1", "cli-shout@1"]);
    } finally {
      await stopWorker(child);
    }
  });

  it("a bad webhook setting is a configuration error (exit 3) naming the variable", async () => {
    const child = startWorker(MODULE, { DATABASE_URL: db.url, RUNIFOLD_WEBHOOKS: "on", RUNIFOLD_WEBHOOK_KEY: "short" });
    expect(await waitForExit(child, 30_000)).toBe(3);
    expect(child.output()).toContain("RUNIFOLD_WEBHOOK_KEY: must be at least 16 characters");
  });
});
