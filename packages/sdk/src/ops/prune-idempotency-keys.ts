import type { SqlHandle } from "@runifold/store";

/**
 * Deletes expired idempotency keys (workers sweep them; see ops/create-run.ts) in batches of `batch`
 * until none is left or `budgetMs` has passed. One batch a sweep (500 every 10 s, 50 keys a second
 * per worker) let a store that creates keyed runs faster keep its keys forever (review 3, E10);
 * the budget keeps one sweep short on a store with millions due at once, and the next sweep goes on.
 * Each batch is its own statement, so no delete holds its locks long. Returns how many went.
 */
export async function pruneIdempotencyKeys(sql: SqlHandle, params: { batch?: number; budgetMs?: number } = {}): Promise<number> {
  const batch = params.batch ?? 500;
  const until = performance.now() + (params.budgetMs ?? 1_000);
  let pruned = 0;
  for (;;) {
    const result = await sql.unsafe(
      `DELETE FROM run_idempotency_keys WHERE (tenant_id, scope, key) IN (
         SELECT tenant_id, scope, key FROM run_idempotency_keys WHERE expires_at <= now()
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)`,
      [batch],
    );
    pruned += result.count;
    if (result.count < batch || performance.now() >= until) return pruned;
  }
}
