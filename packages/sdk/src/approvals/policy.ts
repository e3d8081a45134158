import { WorkflowMisuse } from "../errors";

/**
 * The approval policy (DESIGN §8, docs/approvals.md): who may decide, how many approvals approve,
 * how many rejections reject, separation of duties, expiry, escalation, and whether the MCP caller
 * may decide through the task. Pure: the store's side (ops/decide-approval.ts, ops/await-approval.ts)
 * hands in the person, the decisions so far and the clock's verdicts.
 */

/** Who may decide: any of these. */
export type Approvers = { roles?: string[]; groups?: string[]; operators?: string[] };

/** What a workflow writes. Durations: a number of milliseconds or "30s", "15m", "2h", "7d". */
export type ApprovalPolicy = {
  approvers: Approvers;
  quorum?: number;
  rejectQuorum?: number;
  separationOfDuties?: boolean;
  expiresIn?: string | number;
  onExpire?: "reject" | "approve";
  escalate?: { after: string | number; to: Approvers };
  remind?: { every: string | number };
  caller?: "if-eligible" | "never";
};

/** The stored, digested form: every default filled in, durations in milliseconds, lists sorted. */
export type NormalizedPolicy = {
  approvers: Required<Approvers>;
  quorum: number;
  rejectQuorum: number;
  separationOfDuties: boolean;
  expiresInMs: number | null;
  onExpire: "reject" | "approve" | null;
  escalate: { afterMs: number; to: Required<Approvers> } | null;
  remindEveryMs: number | null;
  caller: "if-eligible" | "never";
};

export type Decision = "approve" | "reject";
export type ApprovalOutcome = "approved" | "rejected" | "expired";
export type ApprovalChannel = "console" | "mcp" | "email" | "cli" | "http";

/** The person deciding, as the store knows them now. */
export type Person = { id: string; email: string; role: string; groups: string[] };

export type Eligibility =
  | { ok: true }
  | { ok: false; code: "separation_of_duties" | "not_an_approver" | "caller_excluded"; message: string };

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "15m", "2h", "7d", "250ms", or a number of milliseconds ≥ 0. */
export function parseDuration(value: unknown, what: string): number {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value;
  const match = typeof value === "string" ? /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim()) : null;
  if (!match)
    throw misuse(`${what} must be milliseconds or a duration like "30s", "15m", "2h", "7d" (got ${JSON.stringify(value)})`);
  return Math.round(Number(match[1]) * (UNITS[match[2] as string] as number));
}

function misuse(message: string): WorkflowMisuse {
  return new WorkflowMisuse("invalid_argument", `ctx.requestApproval: ${message}`);
}

function stringList(value: unknown, what: string, lower = false): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item.length === 0 || item.length > 200))
    throw misuse(`${what} must be a list of non-empty strings`);
  const items = (value as string[]).map((item) => (lower ? item.trim().toLowerCase() : item.trim()));
  return [...new Set(items)].sort();
}

function normalizeApprovers(value: unknown, what: string): Required<Approvers> {
  if (typeof value !== "object" || value === null) throw misuse(`${what} must be { roles?, groups?, operators? }`);
  const raw = value as Approvers;
  const approvers = {
    roles: stringList(raw.roles, `${what}.roles`),
    groups: stringList(raw.groups, `${what}.groups`),
    // Operators are named by email, compared case-insensitively as sign-in compares them.
    operators: stringList(raw.operators, `${what}.operators`, true),
  };
  if (approvers.roles.length + approvers.groups.length + approvers.operators.length === 0)
    throw misuse(`${what} names nobody: give roles, groups or operators`);
  return approvers;
}

function count(value: unknown, what: string): number {
  if (value === undefined) return 1;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 100)
    throw misuse(`${what} must be a whole number from 1 to 100`);
  return value;
}

/** Checks a workflow's policy and fills in the defaults; throws WorkflowMisuse naming the field. */
export function normalizePolicy(raw: unknown): NormalizedPolicy {
  if (typeof raw !== "object" || raw === null) throw misuse("policy must be an object with approvers");
  const policy = raw as ApprovalPolicy;
  if (policy.onExpire !== undefined && policy.onExpire !== "reject" && policy.onExpire !== "approve")
    throw misuse('policy.onExpire must be "reject" or "approve"');
  if (policy.caller !== undefined && policy.caller !== "if-eligible" && policy.caller !== "never")
    throw misuse('policy.caller must be "if-eligible" or "never"');
  if (policy.separationOfDuties !== undefined && typeof policy.separationOfDuties !== "boolean")
    throw misuse("policy.separationOfDuties must be true or false");
  if (policy.onExpire !== undefined && policy.expiresIn === undefined) throw misuse("policy.onExpire needs policy.expiresIn");
  const escalate = policy.escalate;
  if (escalate !== undefined && (typeof escalate !== "object" || escalate === null))
    throw misuse("policy.escalate must be { after, to }");
  return {
    approvers: normalizeApprovers(policy.approvers, "policy.approvers"),
    quorum: count(policy.quorum, "policy.quorum"),
    rejectQuorum: count(policy.rejectQuorum, "policy.rejectQuorum"),
    separationOfDuties: policy.separationOfDuties ?? true,
    expiresInMs: policy.expiresIn === undefined ? null : parseDuration(policy.expiresIn, "policy.expiresIn"),
    onExpire: policy.onExpire ?? null,
    escalate: escalate
      ? {
          afterMs: parseDuration(escalate.after, "policy.escalate.after"),
          to: normalizeApprovers(escalate.to, "policy.escalate.to"),
        }
      : null,
    remindEveryMs: policy.remind === undefined ? null : remindEvery(policy.remind?.every),
    caller: policy.caller ?? "if-eligible",
  };
}

/** A reminder period under a minute would only flood the approvers (and wake the run as often). */
const MIN_REMIND_EVERY_MS = 60_000;

function remindEvery(value: unknown): number {
  const ms = parseDuration(value, "policy.remind.every");
  if (ms < MIN_REMIND_EVERY_MS) throw misuse(`policy.remind.every must be at least 1m (got ${JSON.stringify(value)})`);
  return ms;
}

function named(approvers: Required<Approvers>, person: Person): boolean {
  return (
    approvers.roles.includes(person.role) ||
    approvers.operators.includes(person.email.toLowerCase()) ||
    person.groups.some((group) => approvers.groups.includes(group))
  );
}

/**
 * May this person decide now? `excluded`: the people separation of duties keeps out (the operator
 * behind the run's credential, the creator of its API key); `escalated`: the escalation is due by
 * the store's clock, so its approvers may decide too.
 */
export function eligibility(
  policy: NormalizedPolicy,
  person: Person,
  context: { excluded: readonly string[]; escalated: boolean; channel: ApprovalChannel },
): Eligibility {
  if (policy.separationOfDuties && context.excluded.includes(person.id))
    return {
      ok: false,
      code: "separation_of_duties",
      message: "Separation of duties: the person who started this run (or created its API key) cannot decide its approval",
    };
  if (context.channel === "mcp" && policy.caller === "never")
    return {
      ok: false,
      code: "caller_excluded",
      message: "This approval's policy does not let the MCP caller decide through the task",
    };
  const escalatedTo = context.escalated && policy.escalate ? named(policy.escalate.to, person) : false;
  if (!named(policy.approvers, person) && !escalatedTo)
    return {
      ok: false,
      code: "not_an_approver",
      message: `${person.email} is not an approver of this approval (${describeApprovers(policy, context.escalated)})`,
    };
  return { ok: true };
}

/** The outcome the decisions reach, if any: rejections first, so a tie at both quorums rejects. */
export function tally(policy: NormalizedPolicy, decisions: readonly { decision: Decision }[]): ApprovalOutcome | undefined {
  const rejections = decisions.filter((d) => d.decision === "reject").length;
  if (rejections >= policy.rejectQuorum) return "rejected";
  const approvals = decisions.filter((d) => d.decision === "approve").length;
  return approvals >= policy.quorum ? "approved" : undefined;
}

/** What an approval becomes when it expires: onExpire's outcome, or "expired" when the policy gives none. */
export function expiryOutcome(policy: NormalizedPolicy): ApprovalOutcome {
  return policy.onExpire === "approve" ? "approved" : policy.onExpire === "reject" ? "rejected" : "expired";
}

/** "roles admin; groups finance; operators cfo@example.com", and the escalation's once it is due. */
export function describeApprovers(policy: NormalizedPolicy, escalated = false): string {
  const words = (a: Required<Approvers>) =>
    [
      a.roles.length ? `role ${a.roles.join(", ")}` : "",
      a.groups.length ? `group ${a.groups.join(", ")}` : "",
      a.operators.length ? `operator ${a.operators.join(", ")}` : "",
    ]
      .filter(Boolean)
      .join("; ");
  const base = words(policy.approvers);
  return escalated && policy.escalate ? `${base}; escalated to ${words(policy.escalate.to)}` : base;
}
