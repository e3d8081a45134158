import { PREPARED, type SqlHandle } from "@runifold/store";

/**
 * A lazy step's output (ops/load-run-state.ts), read when the replay reaches its ctx.step. A read, so
 * no lease guard: a recorded output never changes. Undefined if the row is gone — only a
 * continue-as-new of this very run removes rows, and it ends the attempt that could ask.
 */
export async function readStepOutput(sql: SqlHandle, runId: string, key: string): Promise<{ value: unknown } | undefined> {
  const [row] = await sql.unsafe<{ output: unknown }[]>(
    "SELECT output FROM run_steps WHERE run_id = $1 AND key = $2",
    [runId, key],
    PREPARED,
  );
  return row ? { value: row.output } : undefined;
}
