import type { RunStatus } from "@runifold/sdk";
import Link from "next/link";
import type { ReactNode } from "react";
import { StatusBadge } from "../../_components/ui";

/** Breadcrumb, task ID and status line shared by the live and the purged task page. */
export function TaskHeading(props: {
  task: { id: string; tenantSlug: string; tool?: string | null; workflowKey: string; status: RunStatus };
  badges?: ReactNode;
  facts: ReactNode;
}) {
  const { task } = props;
  return (
    <div className="min-w-0">
      <p className="text-sm text-slate-500">
        <Link href="/tasks" className="hover:underline">
          Tasks
        </Link>{" "}
        / {task.tenantSlug}/{task.tool ?? task.workflowKey}
      </p>
      <h1 className="mt-1 break-all font-mono text-lg font-semibold text-slate-900">{task.id}</h1>
      <div className="mt-2 flex flex-wrap items-center gap-2 text-sm">
        <span data-testid="task-status">
          <StatusBadge status={task.status} />
        </span>
        {props.badges}
        <span className="text-slate-500">{props.facts}</span>
      </div>
    </div>
  );
}
