import Link from "next/link";
import { pageOperator } from "@/lib/ui/page-operator";
import { presentOverview } from "@/lib/ui/presenters/overview";
import { AutoRefresh } from "../_components/auto-refresh";
import { MinuteChart, routeColor } from "../_components/minute-chart";
import { Card, Empty, PageHeader, StatusBadge, Time } from "../_components/ui";

export const dynamic = "force-dynamic";

export default async function OverviewPage() {
  const { operator, ctx } = await pageOperator();
  const view = await presentOverview(ctx.sql, operator);
  const routes = [...new Set([...view.chart.created, ...view.chart.finished].map((s) => s.route))].sort();
  return (
    <>
      <AutoRefresh seconds={10} />
      <PageHeader title="Overview" description={operator.tenantIds === null ? "All tenants." : "Your tenants."} />
      <div className="grid gap-4 lg:grid-cols-4">
        <Card title="Tasks by status" className="lg:col-span-3">
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
            {view.counts.map((count) => (
              <div key={count.status} className="rounded-md bg-slate-50 p-3">
                <dt className="flex items-center justify-between gap-2">
                  <StatusBadge status={count.status} />
                  <span className="text-xs text-slate-500">{count.window === "24h" ? "24 h" : "now"}</span>
                </dt>
                <dd className="mt-2 text-2xl font-semibold tabular-nums">{count.n}</dd>
              </div>
            ))}
          </dl>
        </Card>
        <Card title="Workers">
          <p className="text-3xl font-semibold tabular-nums">{view.workersOnline}</p>
          <p className="text-sm text-slate-600">online</p>
          <p className="mt-3 text-xs text-slate-500">Serving: {view.workflowsServed.join(", ") || "nothing"}</p>
          <Link href="/workers" className="mt-3 inline-block text-sm text-indigo-700 hover:underline">
            Workers →
          </Link>
        </Card>
        <Card title="Last hour, per minute, by route" className="lg:col-span-4">
          {routes.length === 0 ? (
            <Empty>No tasks were created or finished in the last hour.</Empty>
          ) : (
            <>
              <div className="grid gap-6 md:grid-cols-2">
                <MinuteChart title="Created" minutes={view.chart.minutes} series={view.chart.created} routes={routes} />
                <MinuteChart title="Finished" minutes={view.chart.minutes} series={view.chart.finished} routes={routes} />
              </div>
              <ul className="mt-3 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-600" aria-label="Routes">
                {routes.map((route, i) => (
                  <li key={route} className="flex items-center gap-1.5">
                    <span className="inline-block size-3 rounded-sm" style={{ background: routeColor(i) }} aria-hidden />
                    {route}
                  </li>
                ))}
              </ul>
            </>
          )}
        </Card>
        <Card title="Recent failures (24 h)" className="lg:col-span-4">
          {view.recentFailures.length === 0 ? (
            <Empty>No failures in the last 24 hours.</Empty>
          ) : (
            <ul className="divide-y divide-slate-100">
              {view.recentFailures.map((failure) => (
                <li key={failure.id} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 py-2 text-sm">
                  <Link href={`/tasks/${failure.id}`} className="font-mono text-indigo-700 hover:underline">
                    {failure.id.slice(0, 8)}
                  </Link>
                  <span className="text-slate-700">{failure.route}</span>
                  <span className="min-w-0 flex-1 truncate text-red-700">{failure.message}</span>
                  <span className="text-xs text-slate-500">
                    <Time iso={failure.finishedAt} />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </>
  );
}
