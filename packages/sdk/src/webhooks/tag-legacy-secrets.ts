import type { SqlHandle } from "@runifold/store";
import type { Logger } from "../logger";
import { WEBHOOK_DELIVERY_WORKFLOW, webhookDeliveryWorkflowName } from "./events";
import { openWebhookSecret, sealWebhookSecret, webhookKeyTag } from "./secret";

/**
 * Secrets sealed before key tags (`v1.…`, subscriptions older than migration 0040) have deliveries
 * under the plain workflow name, which every worker with a key serves — one with the wrong key too.
 * A worker whose key opens such a secret is holding the web's key, so it seals the same secret
 * again with its tag (nothing changes for the receiver), and moves that subscription's queued or
 * backing-off deliveries to the tagged name, in one statement per subscription. From then on only
 * workers with that key claim them. A secret this key does not open is left alone for a worker
 * that has the right one. The swap is guarded by the old sealed value, so a rotation in between wins.
 */
export async function tagLegacySecrets(sql: SqlHandle, keyMaterial: string, logger: Logger): Promise<number> {
  const legacy = await sql.unsafe<{ id: string; secret_sealed: string }[]>(
    "SELECT id, secret_sealed FROM webhook_subscriptions WHERE secret_sealed LIKE 'v1.%'",
  );
  const name = webhookDeliveryWorkflowName(webhookKeyTag(keyMaterial));
  let tagged = 0;
  for (const row of legacy) {
    let secret: string;
    try {
      secret = openWebhookSecret(row.secret_sealed, keyMaterial, row.id);
    } catch {
      continue; // sealed under another key: not this worker's to move
    }
    const [result] = await sql.unsafe<{ tagged: number; moved: number }[]>(
      `WITH sub AS (
         UPDATE webhook_subscriptions SET secret_sealed = $2 WHERE id = $1 AND secret_sealed = $3 RETURNING id
       ), moved AS (
         UPDATE runs r SET workflow_name = $4, workflow_key = $4 || '@' || $5::int, updated_at = now()
         FROM webhook_deliveries d JOIN sub ON sub.id = d.subscription_id
         WHERE r.id = d.run_id AND r.workflow_name = $6 AND r.workflow_version = $5::int
           AND r.status IN ('queued', 'sleeping')
         RETURNING r.id
       )
       SELECT (SELECT count(*) FROM sub)::int AS tagged, (SELECT count(*) FROM moved)::int AS moved`,
      [
        row.id,
        sealWebhookSecret(secret, keyMaterial, row.id),
        row.secret_sealed,
        name,
        WEBHOOK_DELIVERY_WORKFLOW.version,
        WEBHOOK_DELIVERY_WORKFLOW.name,
      ],
    );
    if (result?.tagged) {
      tagged += 1;
      logger.info("webhooks: tagged a subscription's secret with this worker's key", {
        subscriptionId: row.id,
        movedDeliveries: result.moved,
      });
    }
  }
  return tagged;
}
