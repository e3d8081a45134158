import { PREPARED, type SqlHandle } from "@runifold/store";
import type { InputResponse } from "../workflow";

/**
 * A memoized durable operation: its stored value and its position in the call order (null: none).
 * `lazy`: a large step output left in the store; `value` is null until ctx.step reads it
 * (ops/read-step-output.ts), so a resume no longer holds every output in memory at once.
 */
export type RecordedStep = { value: unknown; seq: number | null; lazy?: true };

export type RunState = {
  steps: Map<string, RecordedStep>;
  answers: Map<string, InputResponse>;
  /**
   * Keys answered when the run was created (MRTR preflight), before it asked anything: answers it
   * may never ask for, so reaching them is not what ends a replay (replay/history.ts).
   */
  preflight: Set<string>;
};

/**
 * Step outputs stored larger than this (PostgreSQL's stored size, read without decompressing) are
 * loaded on first use. Only ctx.step's own rows (a user key, `repeat:…`, a hook's `onfailure:…`): the
 * engine's bookkeeping rows are small and read synchronously by the code that wrote them.
 */
export const LAZY_STEP_BYTES = 8 * 1024;

/** The engine's history keys (context/keys.ts) and the hook's failure record: never lazy. */
const EAGER_KEYS = "^(sleep|signal|input|deadline|retry|approval|now|random|uuid|child|child-result|patched):|^onfailure$";

export function emptyRunState(): RunState {
  return { steps: new Map(), answers: new Map(), preflight: new Set() };
}

/**
 * Everything a replay needs in one round trip: memoized steps (with positions; large step outputs
 * as placeholders) and answered inputs.
 */
export async function loadRunState(sql: SqlHandle, runId: string): Promise<RunState> {
  const rows = await sql.unsafe<
    { kind: "step" | "input" | "preflight"; key: string; value: unknown; seq: number | null; lazy: boolean }[]
  >(
    `WITH steps AS (
       SELECT key, seq, output, pg_column_size(output) > $2 AND key !~ $3 AS lazy FROM run_steps WHERE run_id = $1
     )
     SELECT 'step' AS kind, key, CASE WHEN lazy THEN NULL ELSE output END AS value, seq, lazy FROM steps
     UNION ALL
     SELECT CASE WHEN answered_by = 'preflight' THEN 'preflight' ELSE 'input' END, key, response, NULL, false
     FROM run_inputs WHERE run_id = $1 AND response IS NOT NULL`,
    [runId, LAZY_STEP_BYTES, EAGER_KEYS],
    PREPARED,
  );
  const state = emptyRunState();
  for (const row of rows) {
    if (row.kind === "step")
      state.steps.set(row.key, row.lazy ? { value: null, seq: row.seq, lazy: true } : { value: row.value, seq: row.seq });
    else state.answers.set(row.key, row.value as InputResponse);
    if (row.kind === "preflight") state.preflight.add(row.key);
  }
  return state;
}
