import { randomUUID } from "node:crypto";
import {
  type AnyWorkflow,
  createRegistry,
  createRun,
  createWebhookDeliveryWorkflow,
  createWorker,
  defineWorkflow,
  silentLogger,
  type WebhookDeliveryConfig,
  type WebhookEvent,
  type Worker,
} from "@runifold/sdk";
import type postgres from "postgres";
import { z } from "zod";
import { type AdminContext, createWebhook, type WebhookPolicy } from "../../lib/admin";

export const KEY_MATERIAL = "test-webhook-key-0123456789abcdef";
export const PUBLIC_URL = "https://console.example.test";
/** The web's policy in these tests: RUNIFOLD_WEBHOOK_ALLOW_PRIVATE=true, so loopback receivers are allowed. */
export const ALLOW_PRIVATE: WebhookPolicy = { keyMaterial: KEY_MATERIAL, allowPrivate: true };

/** A task that asks one question and then completes, or fails, as its input says. */
export const approval = defineWorkflow({
  name: "webhook-approval",
  version: 1,
  input: z.object({ amount: z.number(), fail: z.boolean().default(false) }),
  async run(ctx, input) {
    const answer = await ctx.requestInput("approve", {
      method: "elicitation/create",
      params: {
        message: `Approve ${input.amount} EUR?`,
        requestedSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
      },
    });
    if (input.fail) throw new Error("the ledger refused it");
    return { content: [{ type: "text", text: answer.action }] };
  },
});

/** A task that fails at once without asking anything. */
export const failsAtOnce = defineWorkflow({
  name: "webhook-fails",
  version: 1,
  input: z.object({}),
  async run(ctx) {
    await ctx.step(
      "boom",
      () => {
        throw new Error("boom");
      },
      { retries: 0 },
    );
    return { content: [] };
  },
});

export const ACTOR: AdminContext["actor"] = { kind: "cli", user: "test", host: "localhost" };

export async function newTenant(sql: postgres.Sql, slug: string): Promise<string> {
  const id = randomUUID();
  await sql`INSERT INTO tenants (id, slug, name) VALUES (${id}, ${slug}, ${slug})`;
  return id;
}

/** A route revision for the tool, so payloads carry its name (runs keep the revision they were created under). */
export async function newRoute(sql: postgres.Sql, tenantId: string, tool: string, workflow: AnyWorkflow): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    INSERT INTO routes (tenant_id, tool_name, revision, workflow_name, workflow_version, input_schema)
    VALUES (${tenantId}, ${tool}, 1, ${workflow.name}, ${workflow.version}, '{"type":"object"}'::jsonb) RETURNING id`;
  return (row as { id: string }).id;
}

export function subscribe(sql: postgres.Sql, tenantId: string, url: string, events: string[], policy = ALLOW_PRIVATE) {
  // Unchecked on purpose: the tests also send names the service must refuse.
  return createWebhook({ sql, actor: ACTOR }, { tenantId, url, events: events as WebhookEvent[] }, policy);
}

export function startTask(sql: postgres.Sql, tenantId: string, workflow: AnyWorkflow, input: unknown, routeId?: string) {
  return createRun(sql, {
    tenantId,
    workflowName: workflow.name,
    workflowVersion: workflow.version,
    input,
    definition: workflow,
    routeId,
  });
}

/** An in-process worker serving the task workflows and the built-in delivery workflow. */
export async function startDeliveryWorker(
  sql: postgres.Sql,
  config: Partial<Omit<WebhookDeliveryConfig, "sql">> = {},
): Promise<Worker> {
  const delivery = createWebhookDeliveryWorkflow({
    sql,
    keyMaterial: KEY_MATERIAL,
    publicUrl: PUBLIC_URL,
    allowPrivate: true,
    // Short backoffs (under a second: waited in the worker) so a retry test takes a second, not minutes.
    retry: { maxAttempts: 4, initialBackoffMs: 250, backoffFactor: 3, jitter: 0.2, maxBackoffMs: 5_000 },
    ...config,
  });
  const worker = createWorker({
    sql,
    registry: createRegistry([approval, failsAtOnce, delivery]),
    logger: silentLogger,
    pollMs: 50,
    leaseMs: 5_000,
  });
  await worker.start();
  return worker;
}

export type DeliveryView = {
  id: string;
  event: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  attempt_log: { statusCode?: number; error?: string; at: string }[];
  run_id: string;
};

export function deliveriesOf(sql: postgres.Sql, subscriptionId: string): Promise<DeliveryView[]> {
  return sql<DeliveryView[]>`
    SELECT id, event, status, attempts, last_status_code, last_error, attempt_log, run_id
    FROM webhook_deliveries WHERE subscription_id = ${subscriptionId} ORDER BY created_at`;
}
