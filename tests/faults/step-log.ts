import postgres from "postgres";

export const STEP_LOG_DDL =
  "CREATE TABLE IF NOT EXISTS step_log (run_id uuid, key text, pid int, at timestamptz DEFAULT clock_timestamp())";

let logSql: postgres.Sql | undefined;

/** Appends one row per real step execution (in the worker process, to DATABASE_URL). */
export async function stepLog(runId: string, key: string) {
  logSql ??= postgres(process.env.DATABASE_URL ?? "", { max: 2, onnotice: () => {} });
  await logSql`INSERT INTO step_log (run_id, key, pid) VALUES (${runId}, ${key}, ${process.pid})`;
}
