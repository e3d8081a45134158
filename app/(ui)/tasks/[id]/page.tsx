import { deniedPage, pageOperator } from "@/lib/ui/page-operator";
import { presentTaskApprovals } from "@/lib/ui/presenters/task-approvals";
import { presentTaskView } from "@/lib/ui/presenters/task-detail";
import { ApprovalsPanel } from "./approvals-panel";
import { PurgedTaskView } from "./purged-task-view";
import { TaskDetailView } from "./task-detail-view";

export const dynamic = "force-dynamic";

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { operator, ctx } = await pageOperator();
  // Scoped lookup: another tenant's task (or tombstone) is exactly the 404 of a missing one.
  const view = await presentTaskView(ctx.sql, operator, id);
  if (!view) return deniedPage(ctx, "page:/tasks/{id}", { taskId: id });
  if (view.purged) return <PurgedTaskView task={view} />;
  const approvals = await presentTaskApprovals(ctx.sql, operator, id);
  return (
    <>
      <TaskDetailView initial={view} />
      {approvals.length > 0 && <ApprovalsPanel taskId={id} approvals={approvals} />}
    </>
  );
}
