import { approvalMailConfig, mailApprovers } from "../approvals/mail";
import { normalizePolicy } from "../approvals/policy";
import { approvalKeyMaterial } from "../approvals/signing-keys";
import type { ApprovalOptions, ApprovalResult } from "../approvals/types";
import { LeaseLost, RunSuspended, WorkflowMisuse } from "../errors";
import { encodeJson } from "../json-value";
import { awaitApproval } from "../ops/await-approval";
import { spanEvent } from "../telemetry/spans";
import type { Attempt } from "./attempt";
import { checkKey } from "./keys";

/**
 * ctx.requestApproval: a durable wait like every other (context/waits.ts). The first time, the
 * approval opens and the run parks; each decision that settles it (ops/decide-approval.ts) queues
 * the run again, as does its escalation or expiry coming due by the store's clock; the settled
 * result is memoized as the step `approval:<key>`, so replays return the recorded outcome.
 */
export async function requestApproval(attempt: Attempt, rawKey: string, options: ApprovalOptions): Promise<ApprovalResult> {
  const key = checkKey(rawKey, "ctx.requestApproval key");
  const what = `ctx.requestApproval("${key}")`;
  if (typeof options !== "object" || options === null || typeof options.message !== "string" || options.message.length === 0)
    throw new WorkflowMisuse("invalid_argument", `${what} needs { message, policy }`);
  const policy = normalizePolicy(options.policy);
  attempt.ensureOutsideStep(what);
  attempt.ensureLive();
  const stepKey = `approval:${key}`;
  attempt.claimKey(stepKey);
  const { deps } = attempt;
  const op = deps.history.enter(stepKey);
  try {
    const recorded = deps.state.steps.get(stepKey);
    if (recorded) return attempt.keepReceipt(recorded.value as ApprovalResult);
    encodeJson(options.details ?? null, `${what} details`, deps.limits.inputAnswerBytes);
    const signer = { material: approvalKeyMaterial(), issuer: process.env.RUNIFOLD_PUBLIC_URL || "runifold" };
    const request = {
      key,
      message: options.message,
      details: options.details ?? null,
      requestedSchema: options.requestedSchema,
      policy,
      seq: op.seq,
    };
    const outcome = await attempt.exclusiveWait(what, () =>
      attempt.store(() => awaitApproval(deps.sql, deps.lease, request, signer)),
    );
    if (outcome.kind === "lease_lost") throw new LeaseLost("lease lost");
    if (outcome.kind === "suspended") {
      spanEvent("runifold.wait.approval", { "runifold.approval.key": key });
      // After the commit, before the attempt ends: the approvers learn of it (best effort, never fails the run).
      const mail = approvalMailConfig();
      if (mail && outcome.notify)
        await mailApprovers(deps.sql, mail, deps.logger, { runId: deps.lease.runId, key, event: outcome.notify });
      if (mail && outcome.remind)
        await mailApprovers(deps.sql, mail, deps.logger, { runId: deps.lease.runId, key, event: "reminded" });
      throw attempt.park(new RunSuspended(`waiting for approval ${key}`));
    }
    deps.state.steps.set(stepKey, { value: outcome.result, seq: op.seq });
    return attempt.keepReceipt(outcome.result);
  } finally {
    op.done();
  }
}
