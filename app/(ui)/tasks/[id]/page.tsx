import { notFound } from "next/navigation";
import { pageOperator } from "@/lib/ui/page-operator";
import { presentTaskDetail } from "@/lib/ui/presenters/task-detail";
import { TaskDetailView } from "./task-detail-view";

export const dynamic = "force-dynamic";

export default async function TaskPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { operator, ctx } = await pageOperator();
  // Scoped lookup: another tenant's task is exactly the 404 of a missing one.
  const detail = await presentTaskDetail(ctx.sql, operator, id);
  if (!detail) notFound();
  return <TaskDetailView initial={detail} />;
}
