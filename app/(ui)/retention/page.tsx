import Link from "next/link";
import { pageOperator } from "@/lib/ui/page-operator";
import { presentRetention, type RetentionRunItem } from "@/lib/ui/presenters/retention";
import { AutoRefresh } from "../_components/auto-refresh";
import { Card, Empty, PageHeader, StatusBadge, Time } from "../_components/ui";

export const dynamic = "force-dynamic";

const RUN_TONE: Record<string, string> = {
  completed: "bg-emerald-50 text-emerald-800 ring-emerald-600/20",
  running: "bg-indigo-50 text-indigo-800 ring-indigo-600/20",
  fenced: "bg-amber-50 text-amber-800 ring-amber-600/20",
  failed: "bg-red-50 text-red-800 ring-red-600/20",
  interrupted: "bg-slate-100 text-slate-700 ring-slate-500/20",
};

function RunStatus({ run }: { run: RetentionRunItem }) {
  return (
    <span className="flex flex-wrap items-center gap-1">
      <span
        className={`inline-flex items-center whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${RUN_TONE[run.status] ?? RUN_TONE.interrupted}`}
      >
        {run.status}
      </span>
      {run.dryRun && <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">dry run</span>}
    </span>
  );
}

export default async function RetentionPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { operator, ctx } = await pageOperator();
  const { before } = await searchParams;
  const view = await presentRetention(ctx.sql, operator, { cursor: typeof before === "string" ? before : undefined });
  const mine = view.scope === "member";
  return (
    <>
      <AutoRefresh seconds={10} />
      <PageHeader
        title="Retention"
        description={`How long finished tasks are kept, what the cleaner did, and what is left of purged tasks${mine ? " — your tenants only" : " — all tenants"}.`}
      />
      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="Settings" className="lg:col-span-2">
          {view.tenants.length === 0 ? (
            <Empty>You are not a member of any tenant.</Empty>
          ) : (
            <div className="overflow-x-auto">
              <table className="min-w-full divide-y divide-slate-200 text-sm">
                <caption className="sr-only">Retention settings per tenant</caption>
                <thead className="text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                  <tr>
                    <th scope="col" className="py-2 pr-3">
                      Tenant
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Keeps finished tasks
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Max task ttl
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {view.tenants.map((tenant) => (
                    <tr key={tenant.id} data-tenant={tenant.slug}>
                      <th scope="row" className="py-2 pr-3 text-left font-medium">
                        <Link href={`/tenants/${tenant.slug}`} className="text-indigo-700 hover:underline">
                          {tenant.slug}
                        </Link>
                        <span className="ml-2 text-xs font-normal text-slate-500">{tenant.name}</span>
                      </th>
                      <td className="px-3 py-2 tabular-nums" title={`${tenant.retentionMs} ms`}>
                        {tenant.retention}
                      </td>
                      <td className="px-3 py-2 tabular-nums" title={`${tenant.maxTtlMs} ms`}>
                        {tenant.maxTtl}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p className="mt-3 text-xs text-slate-500">
            Finished tasks (completed, failed, cancelled) are purged once they have been finished this long, leaving a tombstone.
            The max ttl caps how long a client’s task ID works from creation; it never stops the task.
          </p>
        </Card>
        <Card title="Fence">
          <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
            <dt className="text-slate-500">Epoch</dt>
            <dd className="tabular-nums" data-testid="fence-epoch">
              {view.fence.epoch}
            </dd>
            <dt className="text-slate-500">Holder</dt>
            <dd className="break-all font-mono text-xs leading-5">
              {view.fence.holder ?? <span className="text-slate-400">nobody yet</span>}
            </dd>
            <dt className="text-slate-500">Acquired</dt>
            <dd>
              <Time iso={view.fence.acquiredAt} />
            </dd>
          </dl>
          <p className="mt-3 text-xs text-slate-500">
            Each real cleaner pass takes the next epoch; a cleaner whose epoch is no longer current deletes nothing.
          </p>
        </Card>
        <Card
          title={`Last ${view.runs.length === 1 ? "cleaner run" : `${view.runs.length} cleaner runs`}`}
          className="lg:col-span-3"
        >
          {view.runs.length === 0 ? (
            <Empty>
              The cleaner has not run yet. Workers run it every 10 minutes; `npm run cli -- retention run` runs it now.
            </Empty>
          ) : (
            <div className="overflow-x-auto">
              <table className="min-w-full divide-y divide-slate-200 text-sm">
                <caption className="sr-only">Cleaner runs, newest first</caption>
                <thead className="text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                  <tr>
                    <th scope="col" className="py-2 pr-3">
                      Started
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Status
                    </th>
                    <th scope="col" className="px-3 py-2 text-right">
                      {mine ? "Purged (yours)" : "Purged"}
                    </th>
                    <th scope="col" className="px-3 py-2 text-right">
                      Batches
                    </th>
                    <th scope="col" className="px-3 py-2 text-right">
                      Duration
                    </th>
                    <th scope="col" className="hidden px-3 py-2 md:table-cell">
                      Holder
                    </th>
                    <th scope="col" className="hidden px-3 py-2 text-right md:table-cell">
                      Epoch
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {view.runs.map((run) => (
                    <tr key={run.id} data-retention-run={run.id}>
                      <td className="py-2 pr-3 text-slate-600">
                        <Time iso={run.startedAt} />
                      </td>
                      <td className="px-3 py-2">
                        <RunStatus run={run} />
                      </td>
                      <td className="px-3 py-2 text-right tabular-nums" data-testid="run-purged">
                        {run.purged === null ? (
                          <span className="text-slate-400" title="A dry run counts every tenant's tasks">
                            —
                          </span>
                        ) : (
                          run.purged
                        )}
                      </td>
                      <td className="px-3 py-2 text-right tabular-nums">{run.batches}</td>
                      <td className="px-3 py-2 text-right tabular-nums">
                        {run.duration ?? <span className="text-slate-400">—</span>}
                      </td>
                      <td className="hidden break-all px-3 py-2 font-mono text-xs md:table-cell">{run.holder}</td>
                      <td className="hidden px-3 py-2 text-right tabular-nums md:table-cell">{run.epoch}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {mine && (
            <p className="mt-3 text-xs text-slate-500">
              A pass covers every tenant: its batches and duration are the whole pass, the purged count only your tenants’ tasks.
            </p>
          )}
        </Card>
        <Card title="Tombstones" className="lg:col-span-3">
          {view.badCursor && (
            <p role="alert" className="mb-3 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-800">
              That page link is not valid; showing the newest tombstones.
            </p>
          )}
          {view.tombstones.length === 0 ? (
            <Empty>No task has been purged{before ? " before these" : ""}.</Empty>
          ) : (
            <div className="overflow-x-auto">
              <table className="min-w-full divide-y divide-slate-200 text-sm">
                <caption className="sr-only">Tombstones of purged tasks, newest purge first</caption>
                <thead className="text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
                  <tr>
                    <th scope="col" className="py-2 pr-3">
                      Task
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Workflow
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Final status
                    </th>
                    <th scope="col" className="hidden px-3 py-2 lg:table-cell">
                      Created
                    </th>
                    <th scope="col" className="hidden px-3 py-2 md:table-cell">
                      Finished
                    </th>
                    <th scope="col" className="px-3 py-2">
                      Purged
                    </th>
                    <th scope="col" className="hidden px-3 py-2 md:table-cell">
                      Result digest
                    </th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {view.tombstones.map((t) => (
                    <tr key={t.runId} data-tombstone={t.runId}>
                      <td className="py-2 pr-3">
                        <Link
                          href={`/tasks/${t.runId}`}
                          className="font-mono text-xs text-indigo-700 hover:underline"
                          title={t.runId}
                        >
                          {t.runId.slice(0, 8)}…
                        </Link>
                        <div className="text-xs text-slate-500">{t.tenantSlug}</div>
                      </td>
                      <td className="px-3 py-2">
                        <div>{t.tool ?? <span className="text-slate-400">—</span>}</div>
                        <div className="font-mono text-xs text-slate-500">{t.workflowKey}</div>
                      </td>
                      <td className="px-3 py-2">
                        <StatusBadge status={t.finalStatus} />
                      </td>
                      <td className="hidden px-3 py-2 text-slate-600 lg:table-cell">
                        <Time iso={t.createdAt} />
                      </td>
                      <td className="hidden px-3 py-2 text-slate-600 md:table-cell">
                        <Time iso={t.finishedAt} />
                      </td>
                      <td className="px-3 py-2 text-slate-600">
                        <Time iso={t.purgedAt} />
                      </td>
                      <td className="hidden px-3 py-2 font-mono text-xs md:table-cell" title={t.resultDigest ?? undefined}>
                        {t.resultDigest ? `${t.resultDigest.slice(0, 12)}…` : <span className="text-slate-400">none</span>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {(view.next || before) && (
            <nav aria-label="Tombstone pages" className="mt-4 flex gap-4 text-sm">
              {before && (
                <Link href="/retention" className="text-indigo-700 hover:underline">
                  ← Newest
                </Link>
              )}
              {view.next && (
                <Link href={`/retention?before=${encodeURIComponent(view.next)}`} className="text-indigo-700 hover:underline">
                  Older →
                </Link>
              )}
            </nav>
          )}
        </Card>
      </div>
    </>
  );
}
