import { inTransaction, jsonParam, type SqlHandle } from "@runifold/store";
import { CHANNELS } from "../channels";
import { encodeJson } from "../json-value";
import { DEFAULT_LIMITS } from "../limits";
import { isTerminal, type RunStatus } from "../states";
import type { InputResponse } from "../workflow";
import { requireTenantId } from "./require-tenant";

export type ProvideInputResult = { found: boolean; accepted: string[]; resumed: boolean };

export type ProvideInputParams = {
  runId: string;
  responses: Record<string, InputResponse>;
  actor: string;
  maxAnswerBytes?: number;
};

/**
 * THE way to answer input requests of a run of `tenantId` — MCP `tasks/update`, legacy
 * elicitation responses and the operator's form all call this. Unknown, already-answered and closed
 * (timed-out) keys are ignored (first answer wins); when the last request of the run's current wait
 * (`wait_detail.input.keys`) is answered the run is queued again. An answer over `maxAnswerBytes` (limits.ts) is refused before anything is written. Another
 * tenant's run answers `{ found: false }`, exactly like an unknown one; a missing tenant is refused
 * before any query (require-tenant.ts).
 */
export async function provideInputForTenant(
  sql: SqlHandle,
  params: ProvideInputParams & { tenantId: string },
): Promise<ProvideInputResult> {
  requireTenantId(params.tenantId, "provideInputForTenant");
  return provideWhere(sql, params, params.tenantId);
}

/** provideInputForTenant for a run of any tenant: the CLI's admin commands and tenant-less engine internals only. */
export async function provideInputAsAdmin(sql: SqlHandle, params: ProvideInputParams): Promise<ProvideInputResult> {
  return provideWhere(sql, params, null);
}

/** @deprecated The optional-tenant form (security review L10: no tenant meant every tenant); use provideInputForTenant or provideInputAsAdmin. */
export async function provideInput(
  sql: SqlHandle,
  params: ProvideInputParams & { tenantId?: string },
): Promise<ProvideInputResult> {
  const { tenantId, ...rest } = params;
  return tenantId === undefined ? provideInputAsAdmin(sql, rest) : provideInputForTenant(sql, { ...rest, tenantId });
}

/** The one transaction of both forms; `tenantId` null only through provideInputAsAdmin. */
async function provideWhere(sql: SqlHandle, params: ProvideInputParams, tenantId: string | null): Promise<ProvideInputResult> {
  const maxBytes = params.maxAnswerBytes ?? DEFAULT_LIMITS.inputAnswerBytes;
  for (const [key, response] of Object.entries(params.responses)) encodeJson(response, `the answer to input "${key}"`, maxBytes);
  return inTransaction(sql, async (tx) => {
    const target = await tx.unsafe<{ status: RunStatus }[]>(
      "SELECT status FROM runs WHERE id = $1 AND ($2::uuid IS NULL OR tenant_id = $2::uuid) FOR UPDATE",
      [params.runId, tenantId],
    );
    const status = target[0]?.status;
    if (!status) return { found: false, accepted: [], resumed: false };
    if (isTerminal(status)) return { found: true, accepted: [], resumed: false };
    const answered = await tx.unsafe<{ key: string }[]>(
      `WITH answered AS (
         UPDATE run_inputs i SET response = r.value, answered_by = $3, answered_at = now()
         FROM jsonb_each($2::text::jsonb) AS r(key, value)
         WHERE i.run_id = $1 AND i.key = r.key AND i.response IS NULL AND i.answered_at IS NULL
         RETURNING i.run_id, i.key
       ), history AS (
         INSERT INTO run_events (run_id, type, payload)
         SELECT run_id, 'input_answered', jsonb_build_object('key', key, 'by', $3::text) FROM answered
       )
       SELECT key FROM answered`,
      [params.runId, jsonParam(params.responses), params.actor],
    );
    if (answered.length === 0) return { found: true, accepted: [], resumed: false };
    // The wait's own keys decide, not every open request of the run: a request the workflow moved
    // past must never hold the run (a wait parked before wait_detail named its keys: every open one).
    const stillOpen = `SELECT i.key FROM run_inputs i WHERE i.run_id = $1 AND i.response IS NULL AND i.answered_at IS NULL
         AND (runs.wait_detail #> '{input,keys}' IS NULL OR runs.wait_detail #> '{input,keys}' ? i.key)`;
    const resumed = await tx.unsafe(
      `UPDATE runs SET status = 'queued', claimable_at = now(), wait_detail = NULL, updated_at = now()
       WHERE id = $1 AND status = 'waiting_input' AND NOT EXISTS (${stillOpen})
       RETURNING pg_notify('${CHANNELS.wake}', workflow_key)`,
      [params.runId],
    );
    if (resumed.length === 0) {
      // Partly answered: the remaining keys are still outstanding, but listeners should see the change.
      await tx.unsafe(
        `UPDATE runs SET updated_at = now(),
                wait_detail = jsonb_set(wait_detail, '{input,keys}', (SELECT coalesce(jsonb_agg(key), '[]'::jsonb) FROM (${stillOpen}) open))
         WHERE id = $1 AND status = 'waiting_input' AND wait_detail ? 'input'`,
        [params.runId],
      );
    }
    await tx.unsafe(`SELECT pg_notify('${CHANNELS.task}', $1)`, [params.runId]);
    return { found: true, accepted: answered.map((row) => row.key), resumed: resumed.length === 1 };
  });
}
