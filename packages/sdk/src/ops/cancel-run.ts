import { inTransaction, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import type { RunStatus } from "../states";
import { TERMINAL_STATUSES_SQL } from "../states";
import { requireTenantId } from "./require-tenant";

export type CancelResult =
  | { outcome: "cancelled" }
  | { outcome: "already_terminal"; status: RunStatus }
  | { outcome: "not_found" };

export type CancelRunParams = { runId: string; reason?: string; actor?: string };

/**
 * Cancels a run of `tenantId` in any non-terminal state, at once and durably: the run is
 * `cancelled` when this returns (both protocol eras answer after it). A worker running it gets a
 * NOTIFY and aborts `ctx.signal`; its later checkpoints and completion are refused by the lease
 * guard. Another tenant's run answers `not_found`, exactly like an unknown one. A missing tenant is
 * refused before any query (require-tenant.ts): what MCP, the console and the HTTP API call.
 */
export async function cancelRunForTenant(sql: SqlHandle, params: CancelRunParams & { tenantId: string }): Promise<CancelResult> {
  requireTenantId(params.tenantId, "cancelRunForTenant");
  return cancelWhere(sql, params, params.tenantId);
}

/** cancelRunForTenant for a run of any tenant: the CLI's admin commands and tenant-less engine internals only. */
export async function cancelRunAsAdmin(sql: SqlHandle, params: CancelRunParams): Promise<CancelResult> {
  return cancelWhere(sql, params, null);
}

/** @deprecated The optional-tenant form (security review L10: no tenant meant every tenant); use cancelRunForTenant or cancelRunAsAdmin. */
export async function cancelRun(sql: SqlHandle, params: CancelRunParams & { tenantId?: string }): Promise<CancelResult> {
  const { tenantId, ...rest } = params;
  return tenantId === undefined ? cancelRunAsAdmin(sql, rest) : cancelRunForTenant(sql, { ...rest, tenantId });
}

/**
 * The one transaction of both forms; `tenantId` null only through cancelRunAsAdmin. Cancelling a run
 * cancels its unfinished children, and theirs (trigger runs_cancel_children, migration 0039). A child
 * that ends locks its parent's row after its own (trigger runs_child_ended), so the run's unfinished
 * descendants are locked first, deepest first, and the run last — the same order — so a child ending
 * while its parent is cancelled waits instead of deadlocking.
 */
async function cancelWhere(sql: SqlHandle, params: CancelRunParams, tenantId: string | null): Promise<CancelResult> {
  return inTransaction(sql, async (tx) => {
    await tx.unsafe(
      `WITH RECURSIVE tree(id, depth) AS (
         SELECT c.id, 1 FROM runs c WHERE c.parent_run_id = $1 AND ($2::uuid IS NULL OR c.tenant_id = $2::uuid)
         UNION ALL
         SELECT c.id, t.depth + 1 FROM runs c JOIN tree t ON c.parent_run_id = t.id WHERE t.depth < 64
       )
       SELECT r.id FROM runs r JOIN tree t ON t.id = r.id WHERE r.status NOT IN ${TERMINAL_STATUSES_SQL}
       ORDER BY t.depth DESC, r.id FOR UPDATE OF r`,
      [params.runId, tenantId],
    );
    return cancelOne(tx, params, tenantId);
  });
}

async function cancelOne(sql: SqlHandle, params: CancelRunParams, tenantId: string | null): Promise<CancelResult> {
  const rows = await sql.unsafe<{ cancelled: boolean; status: RunStatus }[]>(
    `WITH target AS (
       SELECT id, status FROM runs WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2::uuid) FOR UPDATE
     ), cancelled AS (
       UPDATE runs r SET status = 'cancelled', cancel_requested_at = now(), status_message = $3,
              claimable_at = NULL, lease_expires_at = NULL, wait_detail = NULL, finished_at = now(), updated_at = now()
       FROM target WHERE r.id = target.id AND target.status NOT IN ${TERMINAL_STATUSES_SQL}
       RETURNING r.id
     ), history AS (
       INSERT INTO run_events (run_id, type, payload)
       SELECT id, 'cancelled', jsonb_build_object('reason', $3::text, 'actor', $4::text) FROM cancelled
     ), notified AS (
       SELECT pg_notify('${CHANNELS.task}', id::text), pg_notify('${CHANNELS.cancel}', id::text) FROM cancelled
     )
     SELECT EXISTS (SELECT 1 FROM cancelled) AS cancelled, target.status, (SELECT count(*) FROM notified) AS n FROM target`,
    [params.runId, tenantId, params.reason ?? "Cancelled", params.actor ?? null],
  );
  const row = rows[0];
  if (!row) return { outcome: "not_found" };
  return row.cancelled ? { outcome: "cancelled" } : { outcome: "already_terminal", status: row.status };
}
