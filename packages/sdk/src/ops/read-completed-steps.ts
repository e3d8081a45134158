import { PREPARED, type SqlHandle } from "@runifold/store";
import type { CompletedStep } from "../compensation/types";
import { checkKey } from "../context/keys";

/**
 * The body steps a run completed, in the order their checkpoints committed (what a saga undoes in
 * reverse: compensation/saga.ts). Only the workflow's own step keys — `charge`, `repeat:charge#2` —
 * not the engine's bookkeeping (`sleep:`, `retry:`, `now:1`, …) nor the compensation's `onfailure:` rows.
 */
export async function readCompletedSteps(sql: SqlHandle, runId: string): Promise<CompletedStep[]> {
  const rows = await sql.unsafe<{ key: string; output: unknown }[]>(
    "SELECT key, output FROM run_steps WHERE run_id = $1 ORDER BY completed_at, seq NULLS LAST, key",
    [runId],
    PREPARED,
  );
  return rows.filter((row) => isBodyStepKey(row.key)).map((row) => ({ key: row.key, output: row.output }));
}

/** A key the body's ctx.step wrote: a user key (no reserved prefix), or its numbered repeat. */
export function isBodyStepKey(key: string): boolean {
  const repeated = /^repeat:(.+)#\d+$/.exec(key);
  const userKey = repeated ? (repeated[1] as string) : key;
  if (userKey === "onfailure" || userKey.startsWith("onfailure:")) return false;
  try {
    checkKey(userKey, "key");
    return true;
  } catch {
    return false;
  }
}
