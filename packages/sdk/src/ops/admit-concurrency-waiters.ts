import type postgres from "postgres";

/** The predicate of runs_concurrency_waiting_idx: a run set aside because its key was full. */
const WAITING = "concurrency_key IS NOT NULL AND NOT concurrency_held AND status = 'queued'";

/**
 * The safety net under concurrency admission (migration 0043). A holder's end admits the next
 * set-aside run of its slot in the same transaction, but skips a waiter another transaction has
 * locked at that instant (waiting for it there could deadlock). When that was the slot's last holder,
 * nothing else would admit the waiter until another run of its key is created; this sweep does.
 *
 * The slots with waiters are found with a skip scan of runs_concurrency_waiting_idx (one probe per
 * slot, however long its backlog); only slots with room for their next waiter are touched, each in a
 * transaction of its own under the slot's lock, so the sweep never holds two slots' locks at once.
 * Returns how many runs it admitted.
 */
export async function admitConcurrencyWaiters(sql: postgres.Sql, params: { limit?: number } = {}): Promise<number> {
  const slots = await sql.unsafe<{ tenant_id: string; workflow_name: string; concurrency_key: string }[]>(
    `WITH RECURSIVE slots AS (
       (SELECT tenant_id, workflow_name, concurrency_key FROM runs WHERE ${WAITING}
        ORDER BY tenant_id, workflow_name, concurrency_key LIMIT 1)
       UNION ALL
       SELECT next.* FROM slots s CROSS JOIN LATERAL (
         SELECT r.tenant_id, r.workflow_name, r.concurrency_key FROM runs r
         WHERE r.concurrency_key IS NOT NULL AND NOT r.concurrency_held AND r.status = 'queued'
           AND (r.tenant_id, r.workflow_name, r.concurrency_key) > (s.tenant_id, s.workflow_name, s.concurrency_key)
         ORDER BY r.tenant_id, r.workflow_name, r.concurrency_key LIMIT 1) next
     )
     SELECT s.tenant_id, s.workflow_name, s.concurrency_key FROM slots s
     WHERE runifold_concurrency_holders(s.tenant_id, s.workflow_name, s.concurrency_key) < (
       SELECT w.concurrency_limit FROM runs w
       WHERE w.tenant_id = s.tenant_id AND w.workflow_name = s.workflow_name AND w.concurrency_key = s.concurrency_key
         AND w.concurrency_key IS NOT NULL AND NOT w.concurrency_held AND w.status = 'queued'
       ORDER BY w.priority DESC, w.created_at, w.id LIMIT 1)
     LIMIT $1`,
    [params.limit ?? 100],
  );
  let admitted = 0;
  for (const slot of slots) {
    const [row] = await sql.begin(async (tx) => {
      await tx`SELECT runifold_concurrency_lock(${slot.tenant_id}, ${slot.workflow_name}, ${slot.concurrency_key})`;
      return tx<{ n: number }[]>`
        SELECT runifold_concurrency_admit(${slot.tenant_id}, ${slot.workflow_name}, ${slot.concurrency_key}) AS n`;
    });
    admitted += row?.n ?? 0;
  }
  return admitted;
}
