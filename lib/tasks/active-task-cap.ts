import { PREPARED, type SqlHandle } from "@runifold/store";

/** RUNIFOLD_MAX_ACTIVE_TASKS_PER_KEY's default: far above a real client's need, low enough to bound a runaway one. */
export const DEFAULT_MAX_ACTIVE_TASKS_PER_KEY = 1_000;

/**
 * Whether a credential (an API key or an OAuth grant: Principal.keyId) already has `cap` live,
 * non-terminal tasks (security review M4: without a cap one key could queue without bound and fill
 * the workers). Counts at most `cap` rows of the partial runs_key_live_idx, so the check costs the
 * same however large the backlog is. A soft cap: concurrent calls of one key may each pass the check
 * and overshoot by their number, which bounds the load just as well without serialising creation.
 */
export async function atActiveTaskCap(sql: SqlHandle, keyId: string, cap: number): Promise<boolean> {
  const rows = await sql.unsafe<{ n: number }[]>(`SELECT ${liveTasksSql("$1", "$2")} AS n`, [keyId, cap], PREPARED);
  return (rows[0]?.n ?? 0) >= cap;
}

/** The count above as an SQL expression over a key id and a cap (SQL expressions or parameters). */
export function liveTasksSql(keyId: string, cap: string): string {
  return `(SELECT count(*)::int FROM (
       SELECT 1 FROM runs
       WHERE created_by_key_id = ${keyId}
         AND status IN ('queued', 'leased', 'sleeping', 'waiting_signal', 'waiting_input')
       LIMIT ${cap}
     ) live)`;
}
