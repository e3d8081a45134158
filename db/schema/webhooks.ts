import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { tenants } from "./tenants";

/**
 * A tenant's webhook subscription (docs/webhooks.md): where task events are POSTed, which events,
 * and the signing secret. The secret must be recoverable (the worker signs with it), so it is
 * stored sealed with AES-256-GCM under a key derived from RUNIFOLD_WEBHOOK_KEY or NEXTAUTH_SECRET
 * (packages/sdk/src/webhooks/secret.ts, docs/security.md); a database dump alone cannot forge a
 * delivery.
 */
export const webhookSubscriptions = pgTable(
  "webhook_subscriptions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    tenantId: uuid("tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** A subset of task.input_required, task.failed, task.completed, task.cancelled. */
    events: text("events").array().notNull(),
    /** `v1.<base64url(iv | tag | ciphertext)>` of the `whsec_…` secret. */
    secretSealed: text("secret_sealed").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** The actor that created it (`operator:<id>`, …). */
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    secretRotatedAt: timestamp("secret_rotated_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    // serves: the runs status trigger's lookup of a tenant's enabled subscriptions (one probe per
    // transition into a notified status) and the console's list per tenant
    index("webhook_subscriptions_tenant_idx").on(t.tenantId, t.createdAt),
    check(
      "webhook_subscriptions_events_known",
      sql`${t.events} <@ ARRAY['task.input_required', 'task.failed', 'task.completed', 'task.cancelled', 'task.approval_requested', 'task.approval_decided', 'task.approval_expired']::text[] AND cardinality(${t.events}) > 0`,
    ),
  ],
);

/**
 * One event for one subscription, delivered by one run of the built-in `runifold-webhook-delivery`
 * workflow. Rows are inserted by the `runs_webhook_events` trigger (a task entering
 * input_required/failed/completed/cancelled) or by "Send test"; the BEFORE INSERT trigger creates
 * the delivery's run in the same statement (migration 0015_webhooks). The row is the delivery log:
 * the worker records every attempt on it.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    /** Also the `webhook-id` header: the same on every retry, so receivers can deduplicate. */
    id: uuid("id").primaryKey().defaultRandom(),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    tenantId: uuid("tenant_id").notNull(),
    /** task.input_required | task.failed | task.completed | task.cancelled | webhook.test */
    event: text("event").notNull(),
    /** The task (run) whose transition this reports; null for a test. No foreign key: retention purges runs. */
    taskId: uuid("task_id"),
    /** The task as it was at the transition (status, tool, statusMessage, inputRequests). */
    task: jsonb("task"),
    /** The delivery's run (set by the insert trigger). */
    runId: uuid("run_id"),
    /** pending (not tried yet) | retrying | delivered | failed */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    /** The last attempts, oldest first: [{at, statusCode?, error?, durationMs}] (capped at 20). */
    attemptLog: jsonb("attempt_log").notNull().default(sql`'[]'::jsonb`),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull().default(sql`now()`),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true, precision: 3 }),
  },
  // serves: the console's delivery log (last N per subscription, newest first) and the delivery
  // workflow's prune of a subscription's older finished rows
  (t) => [index("webhook_deliveries_subscription_idx").on(t.subscriptionId, t.createdAt.desc())],
);

export type WebhookSubscription = typeof webhookSubscriptions.$inferSelect;
export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
