import { isUuid, type SqlHandle } from "@runifold/store";
import { eligibility, type NormalizedPolicy, type Person } from "../approvals/policy";
import type { DecidingOperator } from "./decide-approval";

/** An open approval a person may decide now through the MCP task: what its decision form asks. */
export type CallerApproval = { key: string; message: string; requestedSchema: unknown };

/**
 * May the person behind an MCP caller's credential decide this approval through the task now
 * (docs/approvals.md "The task while it waits")? Yes only when it is open and not past its expiry
 * by the store's clock, the person is enabled and a member of the task's tenant, the policy lets
 * them decide on the `mcp` channel (approvers, escalation once due, separation of duties,
 * `caller: "never"`) and they have not decided it yet — the same checks decideApproval makes under
 * its lock, read here without one: the task then shows `input_required` with the decision form, and
 * the decision itself is still checked by decideApproval when it comes.
 */
export async function readCallerApproval(
  sql: SqlHandle,
  operator: DecidingOperator,
  taskId: string,
  key: string,
): Promise<CallerApproval | undefined> {
  if (!isUuid(taskId) || !isUuid(operator.operatorId) || !isUuid(operator.tenantId)) return undefined;
  const [row] = await sql.unsafe<
    {
      message: string;
      requested_schema: unknown;
      policy: NormalizedPolicy;
      excluded: string[];
      escalation_due: boolean;
      person: Person | null;
    }[]
  >(
    `SELECT a.message, a.requested_schema, a.policy, a.excluded_operator_ids::text[] AS excluded,
            coalesce(a.escalates_at <= now(), false) AS escalation_due,
            (SELECT jsonb_build_object('id', o.id::text, 'email', o.email, 'role', o.role, 'groups', to_jsonb(o.groups))
             FROM operators o
             WHERE o.id = $3 AND o.disabled_at IS NULL
               AND (o.role = 'admin' OR EXISTS (SELECT 1 FROM operator_tenants m WHERE m.operator_id = o.id AND m.tenant_id = $4))
            ) AS person
     FROM approvals a
     WHERE a.run_id = $1 AND a.key = $2 AND a.tenant_id = $4 AND a.status = 'open'
       AND (a.expires_at IS NULL OR a.expires_at > now())
       AND NOT EXISTS (SELECT 1 FROM approval_decisions d WHERE d.run_id = a.run_id AND d.key = a.key AND d.operator_id = $3)`,
    [taskId, key, operator.operatorId, operator.tenantId],
  );
  if (!row?.person) return undefined;
  const verdict = eligibility(row.policy, row.person, {
    excluded: row.excluded,
    escalated: row.escalation_due,
    channel: "mcp",
  });
  return verdict.ok ? { key, message: row.message, requestedSchema: row.requested_schema } : undefined;
}
