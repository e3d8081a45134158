import type { SqlHandle } from "../../../../db/client";
import { PREPARED } from "../../../../db/sql";
import type { InputResponse } from "../workflow";

export type RunState = { steps: Map<string, unknown>; answers: Map<string, InputResponse> };

/** Everything a replay needs in one round trip: memoized steps and answered inputs. */
export async function loadRunState(sql: SqlHandle, runId: string): Promise<RunState> {
  const rows = await sql.unsafe<{ kind: "step" | "input"; key: string; value: unknown }[]>(
    `SELECT 'step' AS kind, key, output AS value FROM run_steps WHERE run_id = $1
     UNION ALL
     SELECT 'input', key, response FROM run_inputs WHERE run_id = $1 AND response IS NOT NULL`,
    [runId],
    PREPARED,
  );
  const state: RunState = { steps: new Map(), answers: new Map() };
  for (const row of rows) {
    if (row.kind === "step") state.steps.set(row.key, row.value);
    else state.answers.set(row.key, row.value as InputResponse);
  }
  return state;
}
