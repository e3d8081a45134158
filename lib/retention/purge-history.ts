import type { SqlHandle } from "@runifold/store";

const BATCH = 5_000;
/** The cleaner's log of its own passes is kept this long (an operator reads the last few). */
const PASS_LOG_RETENTION_DAYS = 90;

/**
 * What the retention pass leaves behind, past its own retention (review 3, E10: both were kept
 * forever): tombstones purged more than `tombstoneRetentionDays` ago (RUNIFOLD_TOMBSTONE_RETENTION_DAYS;
 * the store keeps every tombstone younger than 30 days whatever it is asked: migration 0030's
 * runifold_purge_tombstones, the only way to delete one), in batches of 5,000 by
 * tombstones_purged_idx; and the cleaner's passes (`retention_runs`) older than 90 days. Run by the
 * web's retention pass after the runs' cleaner (lib/server/retention.ts).
 */
export async function purgeRetentionHistory(
  sql: SqlHandle,
  params: { tombstoneRetentionDays: number },
): Promise<{ tombstones: number; passes: number }> {
  let tombstones = 0;
  for (;;) {
    const [row] = await sql.unsafe<{ purged: number }[]>(
      "SELECT runifold_purge_tombstones(make_interval(days => $1), $2) AS purged",
      [params.tombstoneRetentionDays, BATCH],
    );
    tombstones += row?.purged ?? 0;
    if ((row?.purged ?? 0) < BATCH) break;
  }
  const passes = await sql.unsafe(
    "DELETE FROM retention_runs WHERE started_at < now() - make_interval(days => $1) AND status <> 'running'",
    [PASS_LOG_RETENTION_DAYS],
  );
  return { tombstones, passes: passes.count };
}
