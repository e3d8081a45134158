"use client";

import { useActionState } from "react";
import { buttonClass, dangerButtonClass, inputClass } from "../_components/ui";
import { decideApprovalForm } from "../actions";

/**
 * Approve or reject with a comment. It posts to a server action (decideApprovalForm), so a decision
 * made before the page's scripts load is sent too; the pressed button names the decision.
 */
export function DecideForm({ taskId, approvalKey }: { taskId: string; approvalKey: string }) {
  const [result, send, pending] = useActionState(decideApprovalForm, null);
  return (
    <form action={send} className="mt-3 flex flex-col gap-2" aria-label={`Decide ${approvalKey}`}>
      <input type="hidden" name="taskId" value={taskId} />
      <input type="hidden" name="key" value={approvalKey} />
      <label className="text-xs text-slate-600">
        Comment (optional)
        <textarea name="comment" maxLength={2000} rows={2} className={`${inputClass} mt-1 w-full`} />
      </label>
      <div className="flex gap-2">
        <button type="submit" name="decision" value="approve" className={buttonClass} disabled={pending}>
          Approve
        </button>
        <button type="submit" name="decision" value="reject" className={dangerButtonClass} disabled={pending}>
          Reject
        </button>
      </div>
      {result?.ok && (
        <p role="status" className="text-sm text-emerald-700">
          Recorded{result.data.outcome ? `: the approval is ${result.data.outcome}` : ""}.
        </p>
      )}
      {result && !result.ok && (
        <p role="alert" className="text-sm text-red-700">
          {result.error}
        </p>
      )}
    </form>
  );
}
