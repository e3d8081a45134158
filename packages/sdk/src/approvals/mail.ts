import type { SqlHandle } from "@runifold/store";
import type { Logger } from "../logger";
import { createMailTransport as createTransport } from "../mail-transport";
import { describeApprovers, eligibility, type NormalizedPolicy, type Person } from "./policy";

/**
 * Email to the people who may decide an approval (docs/approvals.md "Email"): when it opens, to
 * the escalation's approvers when it escalates, and on each reminder (policy.remind) to everyone who
 * may decide now and has not. Sent by the worker right after the change committed,
 * best effort and at most once (a worker that dies in between sends nothing; the console, the list
 * API and the webhooks still say what waits). The link goes to the console's Approvals page, which
 * needs a sign-in; opening it decides nothing.
 */
export type ApprovalMailConfig = { smtpUrl: string; from: string; publicUrl: string | undefined };

/** RUNIFOLD_SMTP_URL (e.g. `smtp://user:pass@mail.example.com:587`) turns email on; unset, nothing is sent. */
export function approvalMailConfig(env: Record<string, string | undefined> = process.env): ApprovalMailConfig | undefined {
  if (!env.RUNIFOLD_SMTP_URL) return undefined;
  return {
    smtpUrl: env.RUNIFOLD_SMTP_URL,
    from: env.RUNIFOLD_MAIL_FROM || "runifold@localhost",
    publicUrl: env.RUNIFOLD_PUBLIC_URL,
  };
}

type Approval = {
  message: string;
  policy: NormalizedPolicy;
  excluded: string[];
  tenantId: string;
  tenantSlug: string;
  /** The escalation is due (or recorded): its approvers may decide too. */
  escalated: boolean;
  /** The people who decided already (a reminder skips them). */
  decided: string[];
};

export type ApprovalMailEvent = "opened" | "escalated" | "reminded";

async function readApproval(sql: SqlHandle, runId: string, key: string): Promise<Approval | undefined> {
  const [row] = await sql.unsafe<Approval[]>(
    `SELECT a.message, a.policy, a.excluded_operator_ids::text[] AS excluded, a.tenant_id::text AS "tenantId", t.slug AS "tenantSlug",
            (a.escalated_at IS NOT NULL OR coalesce(a.escalates_at <= now(), false)) AS escalated,
            ARRAY(SELECT d.operator_id::text FROM approval_decisions d WHERE d.run_id = a.run_id AND d.key = a.key) AS decided
     FROM approvals a JOIN tenants t ON t.id = a.tenant_id WHERE a.run_id = $1 AND a.key = $2 AND a.status = 'open'`,
    [runId, key],
  );
  return row;
}

/**
 * The enabled operators of the tenant (members and admins) who may decide now: everyone when it
 * opens, only the escalation's when it escalates, and for a reminder everyone eligible now (the
 * escalation's too once due) who has not decided.
 */
async function recipients(sql: SqlHandle, approval: Approval, event: ApprovalMailEvent): Promise<string[]> {
  const people = await sql.unsafe<Person[]>(
    `SELECT o.id::text AS id, o.email, o.role, o.groups FROM operators o
     WHERE o.disabled_at IS NULL
       AND (o.role = 'admin' OR EXISTS (SELECT 1 FROM operator_tenants m WHERE m.operator_id = o.id AND m.tenant_id = $1))`,
    [approval.tenantId],
  );
  const before = (person: Person) =>
    eligibility(approval.policy, person, { excluded: approval.excluded, escalated: false, channel: "email" }).ok;
  const escalation = event === "escalated";
  const now = (person: Person) =>
    eligibility(approval.policy, person, {
      excluded: approval.excluded,
      escalated: escalation || (event === "reminded" && approval.escalated),
      channel: "email",
    }).ok;
  if (event === "reminded")
    return people.filter((person) => now(person) && !approval.decided.includes(person.id)).map((person) => person.email);
  return people.filter((person) => now(person) && (!escalation || !before(person))).map((person) => person.email);
}

export async function mailApprovers(
  sql: SqlHandle,
  config: ApprovalMailConfig,
  logger: Logger,
  target: { runId: string; key: string; event: ApprovalMailEvent },
): Promise<number> {
  try {
    const approval = await readApproval(sql, target.runId, target.key);
    if (!approval) return 0;
    const to = await recipients(sql, approval, target.event);
    if (to.length === 0) return 0;
    const link = config.publicUrl ? `${config.publicUrl.replace(/\/+$/, "")}/approvals` : undefined;
    const transport = createTransport(config.smtpUrl);
    const prefix = target.event === "escalated" ? "Escalated: " : target.event === "reminded" ? "Reminder: " : "";
    const subject = `${prefix}Approval needed in ${approval.tenantSlug}: ${approval.message}`.slice(0, 200);
    const text = [
      approval.message,
      "",
      `Who may decide: ${describeApprovers(approval.policy, target.event === "escalated" || approval.escalated)}; ${approval.policy.quorum} approval(s) needed.`,
      `Task ${target.runId}, approval "${target.key}".`,
      link ? `Decide in the console (sign-in required): ${link}` : "Decide in the Runifold console's Approvals page.",
    ].join("\n");
    for (const address of to) await transport.sendMail({ from: config.from, to: address, subject, text });
    transport.close();
    return to.length;
  } catch (error) {
    logger.warn("approval email not sent", { runId: target.runId, key: target.key, error: (error as Error).message });
    return 0;
  }
}
