import type { SqlHandle } from "@runifold/store";
import { purgeAuditEvents } from "../../db/queries/audit-events";

const DAY_MS = 86_400_000;
const BATCH = 5_000;

/**
 * The audit trail's retention (RUNIFOLD_AUDIT_RETENTION_DAYS, ASVS 8.3.8): deletes events older
 * than `retentionDays`, in batches (`audit_events_at_idx` finds them), until none are left. Run by
 * the web's retention pass after the runs' cleaner (lib/server/retention.ts).
 */
export async function purgeAuditTrail(sql: SqlHandle, params: { retentionDays: number }): Promise<{ events: number }> {
  let events = 0;
  for (;;) {
    const purged = await purgeAuditEvents(sql, params.retentionDays * DAY_MS, BATCH);
    events += purged;
    if (purged < BATCH) return { events };
  }
}
