import { isUuid, type SqlHandle } from "@runifold/store";

/**
 * Webhook subscriptions and their delivery log (db/schema/webhooks.ts). Every statement names the
 * tenant in its WHERE clause: another tenant's subscription id is "not found" like an unknown one.
 * The sealed secret is read only where it is written; lists never carry it.
 */

export type WebhookSubscriptionRow = {
  id: string;
  tenant_id: string;
  tenant_slug: string;
  url: string;
  events: string[];
  enabled: boolean;
  created_by: string | null;
  created_at: Date;
  secret_rotated_at: Date | null;
};

export type WebhookDeliveryRow = {
  id: string;
  subscription_id: string;
  event: string;
  task_id: string | null;
  run_id: string | null;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  attempt_log: { at: string; statusCode?: number; error?: string; durationMs?: number }[];
  created_at: Date;
  last_attempt_at: Date | null;
};

const SUBSCRIPTION_COLUMNS = `s.id, s.tenant_id, t.slug AS tenant_slug, s.url, s.events, s.enabled, s.created_by, s.created_at, s.secret_rotated_at`;

export async function insertWebhookSubscription(
  sql: SqlHandle,
  params: { id: string; tenantId: string; url: string; events: string[]; secretSealed: string; createdBy: string },
): Promise<WebhookSubscriptionRow> {
  const [row] = await sql.unsafe<WebhookSubscriptionRow[]>(
    `WITH s AS (
       INSERT INTO webhook_subscriptions (id, tenant_id, url, events, secret_sealed, created_by)
       VALUES ($1, $2, $3, $4::text[], $5, $6) RETURNING *
     )
     SELECT ${SUBSCRIPTION_COLUMNS} FROM s JOIN tenants t ON t.id = s.tenant_id`,
    [params.id, params.tenantId, params.url, params.events, params.secretSealed, params.createdBy],
  );
  return row as WebhookSubscriptionRow;
}

/** The subscriptions of these tenants (null: every tenant, for admins), newest first per tenant. */
export async function listWebhookSubscriptions(sql: SqlHandle, tenantIds: string[] | null): Promise<WebhookSubscriptionRow[]> {
  return sql.unsafe<WebhookSubscriptionRow[]>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s JOIN tenants t ON t.id = s.tenant_id
     WHERE $1::uuid[] IS NULL OR s.tenant_id = ANY($1::uuid[])
     ORDER BY t.slug, s.created_at DESC`,
    [tenantIds],
  );
}

export async function findWebhookSubscription(
  sql: SqlHandle,
  params: { id: string; tenantId: string },
): Promise<WebhookSubscriptionRow | undefined> {
  if (!isUuid(params.id) || !isUuid(params.tenantId)) return undefined;
  const [row] = await sql.unsafe<WebhookSubscriptionRow[]>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s JOIN tenants t ON t.id = s.tenant_id
     WHERE s.id = $1 AND s.tenant_id = $2`,
    [params.id, params.tenantId],
  );
  return row;
}

/** Deletes the subscription and (cascade) its delivery log; false when it is not this tenant's. */
export async function deleteWebhookSubscription(sql: SqlHandle, params: { id: string; tenantId: string }): Promise<boolean> {
  if (!isUuid(params.id) || !isUuid(params.tenantId)) return false;
  const rows = await sql.unsafe(`DELETE FROM webhook_subscriptions WHERE id = $1 AND tenant_id = $2 RETURNING id`, [
    params.id,
    params.tenantId,
  ]);
  return rows.length > 0;
}

export async function updateWebhookSecret(
  sql: SqlHandle,
  params: { id: string; tenantId: string; secretSealed: string },
): Promise<boolean> {
  if (!isUuid(params.id) || !isUuid(params.tenantId)) return false;
  const rows = await sql.unsafe(
    `UPDATE webhook_subscriptions SET secret_sealed = $3, secret_rotated_at = now() WHERE id = $1 AND tenant_id = $2 RETURNING id`,
    [params.id, params.tenantId, params.secretSealed],
  );
  return rows.length > 0;
}

export async function setWebhookEnabled(
  sql: SqlHandle,
  params: { id: string; tenantId: string; enabled: boolean },
): Promise<boolean> {
  if (!isUuid(params.id) || !isUuid(params.tenantId)) return false;
  const rows = await sql.unsafe(`UPDATE webhook_subscriptions SET enabled = $3 WHERE id = $1 AND tenant_id = $2 RETURNING id`, [
    params.id,
    params.tenantId,
    params.enabled,
  ]);
  return rows.length > 0;
}

/**
 * A `webhook.test` delivery for the subscription (no task). The BEFORE INSERT trigger creates its
 * run of the built-in delivery workflow in the same statement (migration 0015_webhooks).
 */
export async function insertTestDelivery(
  sql: SqlHandle,
  params: { subscriptionId: string; tenantId: string },
): Promise<{ id: string; run_id: string } | undefined> {
  if (!isUuid(params.subscriptionId) || !isUuid(params.tenantId)) return undefined;
  const [row] = await sql.unsafe<{ id: string; run_id: string }[]>(
    `INSERT INTO webhook_deliveries (subscription_id, tenant_id, event)
     SELECT s.id, s.tenant_id, 'webhook.test' FROM webhook_subscriptions s WHERE s.id = $1 AND s.tenant_id = $2
     RETURNING id, run_id`,
    [params.subscriptionId, params.tenantId],
  );
  return row;
}

/** The newest `perSubscription` deliveries of each subscription (one index range scan each). */
export async function listRecentDeliveries(
  sql: SqlHandle,
  subscriptionIds: string[],
  perSubscription: number,
): Promise<WebhookDeliveryRow[]> {
  if (subscriptionIds.length === 0) return [];
  return sql.unsafe<WebhookDeliveryRow[]>(
    `SELECT d.id, d.subscription_id, d.event, d.task_id, d.run_id, d.status, d.attempts, d.last_status_code, d.last_error,
            d.attempt_log, d.created_at, d.last_attempt_at
     FROM unnest($1::uuid[]) AS sub(id)
     CROSS JOIN LATERAL (
       SELECT * FROM webhook_deliveries w WHERE w.subscription_id = sub.id ORDER BY w.created_at DESC LIMIT $2
     ) d
     ORDER BY d.created_at DESC`,
    [subscriptionIds, perSubscription],
  );
}

/**
 * Sends a failed delivery again (the console's "Resend"; review F25): the SAME row goes back to
 * `pending` with a new run of the delivery workflow, so the receiver gets the same `webhook-id` and
 * can tell a resend from a new event (Standard Webhooks: the id "will be the same when the same
 * webhook is being resent"). Its attempts and attempt log carry on. One statement: the row is
 * locked and re-checked as `failed` (a resend pressed twice queues one run), and the run, its
 * `created` event and the wake-up are made as the insert trigger makes them (migration 0040: the
 * run's workflow names the tag of the key the subscription's secret is sealed under).
 */
export async function requeueFailedDelivery(
  sql: SqlHandle,
  params: { id: string; subscriptionId: string; tenantId: string },
): Promise<{ id: string; run_id: string } | undefined> {
  if (!isUuid(params.id) || !isUuid(params.subscriptionId) || !isUuid(params.tenantId)) return undefined;
  const [row] = await sql.unsafe<{ id: string; run_id: string }[]>(
    `WITH target AS (
       SELECT d.id, d.tenant_id, 'runifold-webhook-delivery'
                || CASE WHEN split_part(s.secret_sealed, '.', 1) = 'v2' AND split_part(s.secret_sealed, '.', 2) ~ '^[0-9a-f]{16}$'
                        THEN '.' || split_part(s.secret_sealed, '.', 2) ELSE '' END AS workflow
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
       WHERE d.id = $1 AND d.subscription_id = $2 AND d.tenant_id = $3 AND d.status = 'failed'
       FOR UPDATE OF d
     ), run AS (
       INSERT INTO runs (id, tenant_id, workflow_name, workflow_version, workflow_key, status, input, origin, claimable_at)
       SELECT gen_random_uuid(), tenant_id, workflow, 1, workflow || '@1', 'queued', jsonb_build_object('deliveryId', id), 'webhook', now()
       FROM target
       RETURNING id, workflow_key
     ), created AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'created', jsonb_build_object('workflow', workflow_key, 'origin', 'webhook', 'deliveryId', $1::uuid, 'resend', true)
       FROM run
     )
     UPDATE webhook_deliveries d SET status = 'pending', run_id = run.id
     FROM run WHERE d.id = $1
     RETURNING d.id, d.run_id, pg_notify('runifold_wake', run.workflow_key)`,
    [params.id, params.subscriptionId, params.tenantId],
  );
  return row ? { id: row.id, run_id: row.run_id } : undefined;
}
