import type { TaskApproval } from "@/lib/ui/presenters/task-approvals";
import { Card } from "../../_components/ui";

/**
 * The task's approvals (docs/approvals.md): each request, its policy in words, every decision (who,
 * through which channel, when, with what comment), the outcome, and the signed receipt to download.
 * Rendered on the server beside the live task view; the page is reloaded to see new decisions.
 */
export function ApprovalsPanel({ taskId, approvals }: { taskId: string; approvals: TaskApproval[] }) {
  return (
    <Card title="Approvals" className="mt-4">
      {approvals.map((approval) => (
        <section key={approval.key} aria-label={`Approval ${approval.key}`} className="mb-3 last:mb-0">
          <p className="font-medium text-slate-900">
            {approval.message} <span className="text-xs font-normal text-slate-500">(key {approval.key})</span>
          </p>
          <p className="mt-1 text-xs text-slate-600">
            {approval.status === "open"
              ? "Open"
              : `Settled: ${approval.outcome}${approval.status === "expired" ? " (expired)" : ""}`}{" "}
            · {approval.quorum} of {approval.approvers}
            {approval.escalatedAt ? ` · escalated ${approval.escalatedAt}` : ""}
            {approval.expiresAt ? ` · expires ${approval.expiresAt}` : ""}
          </p>
          {approval.decisions.length > 0 && (
            <ul className="mt-1 text-xs text-slate-700">
              {approval.decisions.map((d) => (
                <li key={d.operatorId}>
                  {d.email} {d.decision === "approve" ? "approved" : "rejected"} via {d.channel} at {d.at}
                  {d.comment ? ` — “${d.comment}”` : ""}
                </li>
              ))}
            </ul>
          )}
          {approval.receipt && (
            <a
              className="mt-1 inline-block text-xs underline"
              href={`/api/ui/tasks/${taskId}/approvals/${encodeURIComponent(approval.key)}/receipt`}
            >
              Download the signed receipt
            </a>
          )}
        </section>
      ))}
    </Card>
  );
}
