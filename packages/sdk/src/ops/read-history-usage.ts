/** What the current generation of a run has stored (context/history-budget.ts checks it against the limits). */
export type HistoryUsage = {
  /** Timeline events since the generation started (its `continued_as_new` event, or the run's creation). */
  events: number;
  /** Bytes of the history a resume loads (step outputs and answers), as PostgreSQL stores them. */
  bytes: number;
  /** Whether this generation's 80 % warning is on its timeline already. */
  warned: boolean;
};

/** The columns historyUsageColumns adds to a claimed run's row. */
export type HistoryUsageColumns = { history_events: number; history_bytes: number; history_warned: boolean };

/**
 * A run's history usage as three columns of the statement that claims it (claim-runs.ts), so an
 * attempt learns it without a round trip of its own: a read per attempt was one more transaction
 * per run, about a third of a one-step run's cost in the bench. Every part is served by a primary
 * key or `run_events_run_idx`, and `pg_column_size` reads a value's stored size without
 * decompressing it. `extraEvents` counts events the same statement writes, which its own reads do
 * not see (the claim's `leased` event).
 */
export function historyUsageColumns(runId: string, extraEvents: number): string {
  const since = `(SELECT coalesce(max(c.id), 0) FROM run_events c WHERE c.run_id = ${runId} AND c.type = 'continued_as_new')`;
  return `(SELECT count(*) FROM run_events e WHERE e.run_id = ${runId} AND e.id >= ${since})::int + ${extraEvents} AS history_events,
          (coalesce((SELECT sum(pg_column_size(s.output)) FROM run_steps s WHERE s.run_id = ${runId}), 0)
           + coalesce((SELECT sum(pg_column_size(i.response)) FROM run_inputs i WHERE i.run_id = ${runId}), 0))::float8 AS history_bytes,
          EXISTS (SELECT 1 FROM run_events w WHERE w.run_id = ${runId} AND w.id >= ${since}
                    AND w.type = 'log' AND w.payload->'data' ? 'historyWarning') AS history_warned`;
}

/** The usage a claimed run's row carries (historyUsageColumns). */
export function historyUsageOf(row: HistoryUsageColumns): HistoryUsage {
  return { events: row.history_events, bytes: row.history_bytes, warned: row.history_warned };
}
