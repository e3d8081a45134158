import type { SqlHandle } from "@runifold/store";

/** running → completed | fenced | failed; `interrupted` marks a run whose cleaner died mid-way. */
export type RetentionRunStatus = "running" | "completed" | "fenced" | "failed" | "interrupted";

/**
 * Opens the operator-visible record of one cleaner run. Called only under the cleaner lock, so any
 * row still `running` belongs to a cleaner that died or lost its lock: it is closed as
 * `interrupted` in the same statement (a fenced cleaner that later wakes overwrites it with `fenced`).
 */
export async function openRetentionRun(
  sql: SqlHandle,
  params: { epoch: number; holder: string; dryRun: boolean },
): Promise<string> {
  const rows = await sql.unsafe<{ id: string }[]>(
    `WITH stale AS (
       UPDATE retention_runs SET status = 'interrupted', finished_at = now(),
              duration_ms = (extract(epoch FROM now() - started_at) * 1000)::int
       WHERE status = 'running'
     )
     INSERT INTO retention_runs (epoch, holder, dry_run, status) VALUES ($1, $2, $3, 'running') RETURNING id`,
    [params.epoch, params.holder, params.dryRun],
  );
  const row = rows[0];
  if (!row) throw new Error("retention_runs insert returned no row");
  return row.id;
}

/** Progress after each batch (so a long run shows its count live), and the final outcome. */
export async function updateRetentionRun(
  sql: SqlHandle,
  params: {
    id: string;
    purged: number;
    batches: number;
    final?: { status: Exclude<RetentionRunStatus, "running">; durationMs: number };
  },
): Promise<void> {
  await sql.unsafe(
    `UPDATE retention_runs SET purged = $2, batches = $3,
            status = coalesce($4, status),
            finished_at = CASE WHEN $4::text IS NULL THEN finished_at ELSE now() END,
            duration_ms = coalesce($5::int, duration_ms)
     WHERE id = $1`,
    [params.id, params.purged, params.batches, params.final?.status ?? null, params.final?.durationMs ?? null],
  );
}
