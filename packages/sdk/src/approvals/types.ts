import type { ApprovalOutcome, ApprovalPolicy } from "./policy";
import type { ApprovalDecision } from "./receipt";

/** What ctx.requestApproval takes (DESIGN §8, docs/approvals.md). */
export type ApprovalOptions = {
  message: string;
  /** Shown to approvers and part of the receipt (its digest). */
  details?: unknown;
  /** Extra fields an approver may fill beside decision and comment (an elicitation-style object schema). */
  requestedSchema?: Record<string, unknown>;
  policy: ApprovalPolicy;
};

/** What ctx.requestApproval returns, memoized as the step `approval:<key>`. */
export type ApprovalResult = { outcome: ApprovalOutcome; decisions: ApprovalDecision[]; receipt: string };
