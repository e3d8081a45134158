import { createRun, type RunStatus, TERMINAL_STATUSES_SQL } from "@runifold/sdk";
import { inTransaction, isUuid, jsonParam, type SqlHandle } from "@runifold/store";

/** The history event types that link a rerun and its original, both ways (payload `{taskId, actor}`). */
export const RERUN_OF_EVENT = "rerun_of";
export const RERUN_AS_EVENT = "rerun_as";

export type RerunOutcome =
  | { outcome: "rerun"; tenantId: string; rerunId: string }
  | { outcome: "not_terminal"; tenantId: string; status: RunStatus }
  | { outcome: "tenant_disabled"; tenantId: string }
  | { outcome: "not_found" };

type Original = {
  tenant_id: string;
  route_id: string | null;
  workflow_name: string;
  workflow_version: number;
  status: RunStatus;
  terminal: boolean;
  tenant_disabled: boolean;
  input: unknown;
  ttl_ms: number | null;
  poll_interval_ms: number;
  timeout_ms: number | null;
};

/**
 * Starts a finished task again: a new run of the same route revision and exact workflow version,
 * with the same input, the same handle ttl, poll interval and run timeout. `scope` is the operator's
 * tenants (null: every tenant), in the WHERE clause, so another tenant's task is "not found" like a
 * missing one. The new run, its `created` event and the two link events (`rerun_as` on the original,
 * `rerun_of` on the rerun) commit together. The original is read `FOR SHARE`: the retention cleaner
 * (FOR UPDATE SKIP LOCKED) cannot purge it between the read and the link, and terminal runs never
 * change, so the status read here stays true until commit.
 *
 * A task of a disabled tenant is not rerun (`tenant_disabled`): enable the tenant first.
 *
 * The rerun belongs to no API key (origin `operator`): the MCP client that created the original
 * never sees it through its handle binding; operators follow it in the console.
 */
export async function rerunTaskInScope(
  sql: SqlHandle,
  params: { taskId: string; scope: string[] | null; actor: string },
): Promise<RerunOutcome> {
  if (!isUuid(params.taskId)) return { outcome: "not_found" };
  return inTransaction(sql, async (tx) => {
    const [original] = await tx.unsafe<Original[]>(
      `SELECT r.tenant_id, r.route_id, r.workflow_name, r.workflow_version, r.status, r.status IN ${TERMINAL_STATUSES_SQL} AS terminal,
              t.disabled_at IS NOT NULL AS tenant_disabled,
              r.input, r.ttl_ms::float8 AS ttl_ms, r.poll_interval_ms,
              (extract(epoch FROM r.deadline_at - r.created_at) * 1000)::float8 AS timeout_ms
       FROM runs r JOIN tenants t ON t.id = r.tenant_id
       WHERE r.id = $1 AND ($2::uuid[] IS NULL OR r.tenant_id = ANY($2::uuid[]))
       FOR SHARE OF r`,
      [params.taskId, params.scope],
    );
    if (!original) return { outcome: "not_found" };
    if (!original.terminal) return { outcome: "not_terminal", tenantId: original.tenant_id, status: original.status };
    // A disabled tenant's runs are never claimed (claim-runs.ts): a rerun would wait, unseen by its
    // clients (their keys answer 401), until someone enabled the tenant. Refused instead, saying why.
    if (original.tenant_disabled) return { outcome: "tenant_disabled", tenantId: original.tenant_id };
    const rerun = await createRun(tx, {
      tenantId: original.tenant_id,
      routeId: original.route_id,
      workflowName: original.workflow_name,
      workflowVersion: original.workflow_version,
      input: original.input,
      origin: "operator",
      ttlMs: original.ttl_ms,
      pollIntervalMs: original.poll_interval_ms,
      timeoutMs: original.timeout_ms && original.timeout_ms > 0 ? original.timeout_ms : undefined,
    });
    await tx.unsafe(
      `INSERT INTO run_events (run_id, type, payload) VALUES
         ($1, '${RERUN_AS_EVENT}', $3::text::jsonb), ($2, '${RERUN_OF_EVENT}', $4::text::jsonb)`,
      [
        params.taskId,
        rerun.id,
        jsonParam({ taskId: rerun.id, actor: params.actor }),
        jsonParam({ taskId: params.taskId, actor: params.actor }),
      ],
    );
    return { outcome: "rerun", tenantId: original.tenant_id, rerunId: rerun.id };
  });
}
