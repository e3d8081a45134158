import type { SqlHandle } from "@runifold/store";

/** Deletes expired idempotency keys in small batches (workers sweep them; see ops/create-run.ts). */
export async function pruneIdempotencyKeys(sql: SqlHandle, limit = 500): Promise<number> {
  const result = await sql.unsafe(
    `DELETE FROM run_idempotency_keys WHERE (tenant_id, scope, key) IN (
       SELECT tenant_id, scope, key FROM run_idempotency_keys WHERE expires_at <= now()
       ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
    [limit],
  );
  return result.count;
}
