import { isUuid, type SqlHandle } from "@runifold/store";
import { type ApprovalChannel, describeApprovers, eligibility, type NormalizedPolicy, type Person } from "../approvals/policy";
import type { ApprovalDecision } from "../approvals/receipt";
import { TERMINAL_STATUSES_SQL } from "../states";
import type { DecidingOperator } from "./decide-approval";

/** An open approval as the list shows it: what is asked, the policy in words, the decisions so far, its clock. */
export type OpenApproval = {
  taskId: string;
  key: string;
  message: string;
  details: unknown;
  requestedSchema: unknown;
  /** The run's arguments (the call the approval covers, digested into the receipt's argsDigest). */
  arguments: unknown;
  workflow: string;
  version: number;
  tool: string | null;
  approvers: string;
  quorum: number;
  rejectQuorum: number;
  decisions: ApprovalDecision[];
  openedAt: string;
  expiresAt: string | null;
  escalatesAt: string | null;
  /** Whether this person may decide it now (eligible and not decided yet). */
  canDecide: boolean;
};

type Row = {
  run_id: string;
  key: string;
  message: string;
  details: unknown;
  requested_schema: unknown;
  policy: NormalizedPolicy;
  excluded_operator_ids: string[];
  escalation_due: boolean;
  input: unknown;
  workflow_name: string;
  workflow_version: number;
  tool_name: string | null;
  opened_at: string;
  expires_at: string | null;
  escalates_at: string | null;
  decisions: ApprovalDecision[];
};

const ISO = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The open approvals of the operator's tenant (the credential's, never the request's), oldest first,
 * at most `limit`: those this person may decide now, or with `all` every open one (what the tenant
 * waits on). An approval past its expiry, or of a run that ended (cancelled), is left out.
 */
export async function listApprovals(
  sql: SqlHandle,
  operator: DecidingOperator,
  options: { all?: boolean; limit?: number; channel?: ApprovalChannel } = {},
): Promise<OpenApproval[]> {
  if (!isUuid(operator.operatorId) || !isUuid(operator.tenantId)) return [];
  const [person] = await sql.unsafe<Person[]>(
    `SELECT o.id::text AS id, o.email, o.role, o.groups FROM operators o
     WHERE o.id = $1 AND o.disabled_at IS NULL
       AND (o.role = 'admin' OR EXISTS (SELECT 1 FROM operator_tenants m WHERE m.operator_id = o.id AND m.tenant_id = $2))`,
    [operator.operatorId, operator.tenantId],
  );
  if (!person) return [];
  const rows = await sql.unsafe<Row[]>(
    `SELECT a.run_id, a.key, a.message, a.details, a.requested_schema, a.policy,
            a.excluded_operator_ids::text[] AS excluded_operator_ids, coalesce(a.escalates_at <= now(), false) AS escalation_due,
            r.input, r.workflow_name, r.workflow_version, ro.tool_name, ${ISO("a.opened_at")} AS opened_at,
            ${ISO("a.expires_at")} AS expires_at, ${ISO("CASE WHEN a.escalated_at IS NULL THEN a.escalates_at END")} AS escalates_at,
            coalesce((SELECT jsonb_agg(jsonb_build_object('operatorId', d.operator_id, 'email', d.email, 'channel', d.channel,
                        'decision', d.decision, 'comment', d.comment, 'at', ${ISO("d.at")}) ORDER BY d.at, d.id)
                      FROM approval_decisions d WHERE d.run_id = a.run_id AND d.key = a.key), '[]'::jsonb) AS decisions
     FROM approvals a JOIN runs r ON r.id = a.run_id LEFT JOIN routes ro ON ro.id = r.route_id
     WHERE a.tenant_id = $1 AND a.status = 'open' AND (a.expires_at IS NULL OR a.expires_at > now())
       AND r.status NOT IN ${TERMINAL_STATUSES_SQL}
     ORDER BY a.opened_at, a.run_id, a.key
     LIMIT $2`,
    [operator.tenantId, Math.min(Math.max(options.limit ?? 100, 1), 500)],
  );
  const listed = rows.map((row): OpenApproval => {
    const verdict = eligibility(row.policy, person, {
      excluded: row.excluded_operator_ids,
      escalated: row.escalation_due,
      channel: options.channel ?? "http",
    });
    return {
      taskId: row.run_id,
      key: row.key,
      message: row.message,
      details: row.details,
      requestedSchema: row.requested_schema,
      arguments: row.input,
      workflow: row.workflow_name,
      version: row.workflow_version,
      tool: row.tool_name,
      approvers: describeApprovers(row.policy, row.escalation_due),
      quorum: row.policy.quorum,
      rejectQuorum: row.policy.rejectQuorum,
      decisions: row.decisions,
      openedAt: row.opened_at,
      expiresAt: row.expires_at,
      escalatesAt: row.escalates_at,
      canDecide: verdict.ok && !row.decisions.some((d) => d.operatorId === person.id),
    };
  });
  return options.all ? listed : listed.filter((approval) => approval.canDecide);
}
