import { pageOperator } from "@/lib/ui/page-operator";
import type { ApprovalItem } from "@/lib/ui/presenters/approvals";
import { presentApprovalsPage } from "@/lib/ui/presenters/approvals";
import { AutoRefresh } from "../_components/auto-refresh";
import { Card, Empty, PageHeader } from "../_components/ui";
import { DecideForm } from "./decide-form";

export const dynamic = "force-dynamic";

// What the signed-in person may decide (the call shown in full: message, details, workflow and tool,
// the policy in words, the decisions so far, the clock), and apart what their tenants wait on from
// others. Deciding posts a form; the receipt is in the task's result once the approval settles.
export default async function ApprovalsPage() {
  const { operator, ctx } = await pageOperator();
  const view = await presentApprovalsPage(ctx.sql, operator);
  return (
    <>
      <AutoRefresh seconds={10} />
      <PageHeader title="Approvals" description="Decisions workflows wait for, under their policies (docs/approvals.md)." />
      <p role="note" className="mb-4 text-xs text-slate-600">
        {view.emailOn
          ? "Approvers are emailed when an approval opens or escalates."
          : "Email to approvers is off: RUNIFOLD_SMTP_URL is not set (docs/approvals.md)."}
      </p>
      <div className="flex flex-col gap-4">
        <Card title="Yours to decide">
          {view.mine.length === 0 ? (
            <Empty>Nothing waits for your decision.</Empty>
          ) : (
            view.mine.map((item) => (
              <Approval key={`${item.taskId}:${item.key}`} item={item}>
                <DecideForm taskId={item.taskId} approvalKey={item.key} />
              </Approval>
            ))
          )}
        </Card>
        <Card title="Waiting on others">
          {view.others.length === 0 ? (
            <Empty>No other open approvals in your tenants.</Empty>
          ) : (
            view.others.map((item) => <Approval key={`${item.taskId}:${item.key}`} item={item} />)
          )}
        </Card>
      </div>
    </>
  );
}

function Approval({ item, children }: { item: ApprovalItem; children?: React.ReactNode }) {
  const approved = item.decisions.filter((d) => d.decision === "approve").length;
  return (
    <section
      aria-label={`Approval ${item.key} of task ${item.taskId}`}
      className="mb-3 rounded-lg border border-slate-200 bg-white p-4 shadow-sm last:mb-0"
    >
      <p className="font-medium text-slate-900">{item.message}</p>
      <p className="mt-1 text-xs text-slate-500">
        {item.tenantSlug} · {item.tool ?? "no route"} · {item.workflow}@{item.version} ·{" "}
        <a className="underline" href={`/tasks/${item.taskId}`}>
          task {item.taskId}
        </a>{" "}
        · key {item.key}
      </p>
      <p className="mt-1 text-xs text-slate-600">
        {approved} of {item.quorum} from {item.approvers}
        {item.escalatesAt ? ` · escalates ${item.escalatesAt}` : ""}
        {item.expiresAt ? ` · expires ${item.expiresAt}` : ""}
      </p>
      <p className="mt-2 text-xs font-medium text-slate-600">Arguments</p>
      <pre className="mt-1 max-h-64 overflow-auto rounded bg-slate-50 p-2 text-xs text-slate-800">
        {JSON.stringify(item.arguments, null, 2)}
      </pre>
      {item.details !== null && item.details !== undefined && (
        <>
          <p className="mt-2 text-xs font-medium text-slate-600">Details</p>
          <pre className="mt-1 max-h-64 overflow-auto rounded bg-slate-50 p-2 text-xs text-slate-800">
            {JSON.stringify(item.details, null, 2)}
          </pre>
        </>
      )}
      {item.decisions.length > 0 && (
        <ul className="mt-2 text-xs text-slate-700">
          {item.decisions.map((d) => (
            <li key={d.operatorId}>
              {d.email} {d.decision === "approve" ? "approved" : "rejected"} via {d.channel} at {d.at}
              {d.comment ? ` — “${d.comment}”` : ""}
            </li>
          ))}
        </ul>
      )}
      {children}
    </section>
  );
}
