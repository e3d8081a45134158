import type { SqlHandle } from "@runifold/store";
import type { WebhookTaskSnapshot } from "./events";

/**
 * The delivery workflow's SQL (the engine's ops style: one statement each, plain SQL). The rows are
 * written by the migration's triggers and by the app's "Send test" (db/queries/webhooks.ts); the
 * worker only reads them and records attempts.
 */

export type DeliveryToSend = {
  id: string;
  event: string;
  task_id: string | null;
  task: WebhookTaskSnapshot | null;
  created_at: Date;
  status: string;
  subscription_id: string;
  url: string;
  secret_sealed: string;
  enabled: boolean;
  tenant_slug: string;
};

/** The delivery with its subscription's current URL and secret (a rotation applies to retries). */
export async function readDelivery(sql: SqlHandle, id: string): Promise<DeliveryToSend | undefined> {
  const [row] = await sql.unsafe<DeliveryToSend[]>(
    `SELECT d.id, d.event, d.task_id, d.task, d.created_at, d.status, d.subscription_id,
            s.url, s.secret_sealed, s.enabled, t.slug AS tenant_slug
     FROM webhook_deliveries d
     JOIN webhook_subscriptions s ON s.id = d.subscription_id
     JOIN tenants t ON t.id = d.tenant_id
     WHERE d.id = $1`,
    [id],
  );
  return row;
}

export type AttemptRecord = {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** delivered | retrying (another attempt follows) | failed (the last one) */
  status: "delivered" | "retrying" | "failed";
};

/** The attempt log keeps this many entries (the newest). */
export const ATTEMPT_LOG_LIMIT = 20;

/**
 * Records one attempt on the delivery row. A finished row (delivered, failed) is never changed
 * again: a step re-run after a crash cannot turn a delivered row back into a retry.
 */
export async function recordAttempt(sql: SqlHandle, id: string, attempt: AttemptRecord): Promise<void> {
  await sql.unsafe(
    `UPDATE webhook_deliveries
     SET attempts = attempts + 1, last_status_code = $2::int, last_error = $3::text, status = $4, last_attempt_at = now(),
         attempt_log = (CASE WHEN jsonb_array_length(attempt_log) >= ${ATTEMPT_LOG_LIMIT} THEN attempt_log - 0 ELSE attempt_log END)
           || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object(
                'at', now(), 'statusCode', $2::int, 'error', $3::text, 'durationMs', $5::int)))
     WHERE id = $1 AND status NOT IN ('delivered', 'failed')`,
    [id, attempt.statusCode, attempt.error, attempt.status, Math.round(attempt.durationMs)],
  );
}

/** A delivery that will not be sent (its subscription was disabled before the first attempt). */
export async function markSkipped(sql: SqlHandle, id: string, reason: string): Promise<void> {
  await sql.unsafe(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = $2 WHERE id = $1 AND status NOT IN ('delivered', 'failed')`,
    [id, reason],
  );
}

/** Keeps the newest `keep` finished deliveries of a subscription; the log shows far fewer. */
export async function pruneDeliveries(sql: SqlHandle, subscriptionId: string, keep: number): Promise<number> {
  const rows = await sql.unsafe(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE subscription_id = $1
       ORDER BY created_at DESC OFFSET $2)
     AND status IN ('delivered', 'failed')
     RETURNING id`,
    [subscriptionId, keep],
  );
  return rows.length;
}
