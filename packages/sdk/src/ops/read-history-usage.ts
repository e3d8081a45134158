import { PREPARED, type SqlHandle } from "@runifold/store";

/** What the current generation of a run has stored (context/history-budget.ts checks it against the limits). */
export type HistoryUsage = {
  /** Timeline events since the generation started (its `continued_as_new` event, or the run's creation). */
  events: number;
  /** Bytes of the history a resume loads (step outputs and answers), as PostgreSQL stores them. */
  bytes: number;
  /** Whether this generation's 80 % warning is on its timeline already. */
  warned: boolean;
};

/**
 * One statement at the start of an attempt that has a history to load: every part is served by a
 * primary key or `run_events_run_idx`, and `pg_column_size` reads a value's stored size without
 * decompressing it, so measuring costs far less than loading.
 */
export async function readHistoryUsage(sql: SqlHandle, runId: string): Promise<HistoryUsage> {
  const [row] = await sql.unsafe<HistoryUsage[]>(
    `WITH since AS (
       SELECT coalesce(max(id), 0) AS id FROM run_events WHERE run_id = $1 AND type = 'continued_as_new'
     ), generation AS (
       SELECT type, payload FROM run_events WHERE run_id = $1 AND id >= (SELECT id FROM since)
     )
     SELECT (SELECT count(*) FROM generation)::int AS events,
            (coalesce((SELECT sum(pg_column_size(output)) FROM run_steps WHERE run_id = $1), 0)
             + coalesce((SELECT sum(pg_column_size(response)) FROM run_inputs WHERE run_id = $1), 0))::float8 AS bytes,
            EXISTS (SELECT 1 FROM generation WHERE type = 'log' AND payload->'data' ? 'historyWarning') AS warned`,
    [runId],
    PREPARED,
  );
  return row ?? { events: 0, bytes: 0, warned: false };
}
