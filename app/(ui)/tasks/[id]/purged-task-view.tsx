import Link from "next/link";
import { STATUS_LABEL } from "@/lib/ui/presenters/status-labels";
import type { PurgedTask } from "@/lib/ui/presenters/task-detail";
import { Card, Time } from "../../_components/ui";
import { TaskHeading } from "./task-heading";

// A purged task's page (no hooks: rendered by the server page, or by the live detail view when
// the cleaner purges the task while it is open). A tombstone never changes, so nothing polls.
export function PurgedTaskView({ task }: { task: PurgedTask }) {
  return (
    <div className="flex flex-col gap-4">
      <TaskHeading
        task={task}
        badges={
          <span className="inline-flex items-center rounded-full bg-slate-800 px-2 py-0.5 text-xs font-medium text-white">
            purged
          </span>
        }
        facts={
          <>
            {task.workflowKey}
            {task.routeRevision ? ` · route revision ${task.routeRevision}` : ""}
          </>
        }
      />
      <section
        aria-labelledby="purged-heading"
        data-testid="purged-notice"
        className="rounded-lg border border-slate-300 bg-slate-50 p-4"
      >
        <h2 id="purged-heading" className="font-medium text-slate-900">
          Purged at <Time iso={task.purgedAt} /> with final status {STATUS_LABEL[task.status]}
        </h2>
        <p className="mt-1 text-sm text-slate-600">
          The retention cleaner deleted this run with its input, result and history once it had been finished for longer than its
          tenant keeps finished tasks (currently {task.retention}). This tombstone is all that remains; it cannot be changed, and
          MCP clients get “not found” for this ID.
        </p>
      </section>
      <Card title="Tombstone">
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Tenant</dt>
          <dd>{task.tenantSlug}</dd>
          <dt className="text-slate-500">Tool</dt>
          <dd>{task.tool ?? <span className="text-slate-400">—</span>}</dd>
          <dt className="text-slate-500">Workflow</dt>
          <dd className="font-mono text-xs leading-5">{task.workflowKey}</dd>
          <dt className="text-slate-500">Final status</dt>
          <dd>{STATUS_LABEL[task.status]}</dd>
          <dt className="text-slate-500">Created</dt>
          <dd>
            <Time iso={task.createdAt} />
          </dd>
          <dt className="text-slate-500">Finished</dt>
          <dd>
            <Time iso={task.finishedAt} />
          </dd>
          <dt className="text-slate-500">Purged</dt>
          <dd>
            <Time iso={task.purgedAt} />
          </dd>
          <dt className="text-slate-500">Purge epoch</dt>
          <dd className="tabular-nums">{task.purgeEpoch}</dd>
          <dt className="text-slate-500">Result digest</dt>
          <dd className="break-all font-mono text-xs leading-5">
            {task.resultDigest ?? <span className="text-slate-400">none</span>}
          </dd>
        </dl>
        <p className="mt-3 text-xs text-slate-500">
          The digest is the SHA-256 of the final result as it was stored: whoever kept a copy of the result can prove it was this
          task’s final one.
        </p>
      </Card>
      <p className="text-sm">
        <Link href="/retention" className="text-indigo-700 hover:underline">
          Retention settings and cleaner runs →
        </Link>
      </p>
    </div>
  );
}
