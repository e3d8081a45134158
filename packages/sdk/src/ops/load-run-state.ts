import { PREPARED, type SqlHandle } from "@runifold/store";
import type { InputResponse } from "../workflow";

/** A memoized durable operation: its stored value and its position in the call order (null: none). */
export type RecordedStep = { value: unknown; seq: number | null };

export type RunState = {
  steps: Map<string, RecordedStep>;
  answers: Map<string, InputResponse>;
  /**
   * Keys answered when the run was created (MRTR preflight), before it asked anything: answers it
   * may never ask for, so reaching them is not what ends a replay (replay/history.ts).
   */
  preflight: Set<string>;
};

export function emptyRunState(): RunState {
  return { steps: new Map(), answers: new Map(), preflight: new Set() };
}

/** Everything a replay needs in one round trip: memoized steps (with positions) and answered inputs. */
export async function loadRunState(sql: SqlHandle, runId: string): Promise<RunState> {
  const rows = await sql.unsafe<{ kind: "step" | "input" | "preflight"; key: string; value: unknown; seq: number | null }[]>(
    `SELECT 'step' AS kind, key, output AS value, seq FROM run_steps WHERE run_id = $1
     UNION ALL
     SELECT CASE WHEN answered_by = 'preflight' THEN 'preflight' ELSE 'input' END, key, response, NULL
     FROM run_inputs WHERE run_id = $1 AND response IS NOT NULL`,
    [runId],
    PREPARED,
  );
  const state = emptyRunState();
  for (const row of rows) {
    if (row.kind === "step") state.steps.set(row.key, { value: row.value, seq: row.seq });
    else state.answers.set(row.key, row.value as InputResponse);
    if (row.kind === "preflight") state.preflight.add(row.key);
  }
  return state;
}
