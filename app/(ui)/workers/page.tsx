import { pageOperator } from "@/lib/ui/page-operator";
import { presentWorkers } from "@/lib/ui/presenters/workers";
import { AutoRefresh } from "../_components/auto-refresh";
import { Empty, PageHeader, Time } from "../_components/ui";

export const dynamic = "force-dynamic";

export default async function WorkersPage() {
  const { operator, ctx } = await pageOperator();
  const workers = await presentWorkers(ctx.sql, operator);
  return (
    <>
      <AutoRefresh seconds={5} />
      <PageHeader
        title="Workers"
        description={`Online: a heartbeat in the last 15 s. Leases count ${operator.role === "admin" ? "every tenant" : "your tenants only"}.`}
      />
      {workers.length === 0 ? (
        <Empty>No worker is online: queued tasks will wait. Start one with `npm run worker`.</Empty>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <caption className="sr-only">Online workers</caption>
            <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="px-3 py-2">
                  Worker
                </th>
                <th scope="col" className="px-3 py-2">
                  Serves
                </th>
                <th scope="col" className="px-3 py-2">
                  Leases held
                </th>
                <th scope="col" className="hidden px-3 py-2 md:table-cell">
                  Started
                </th>
                <th scope="col" className="px-3 py-2">
                  Last heartbeat
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {workers.map((worker) => (
                <tr key={worker.id}>
                  <td className="px-3 py-2">
                    <div className="font-mono text-xs">{worker.id}</div>
                    <div className="text-xs text-slate-500">{worker.host}</div>
                  </td>
                  <td className="px-3 py-2">
                    <ul className="flex flex-wrap gap-1">
                      {worker.workflows.map((w) => (
                        <li key={w} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs">
                          {w}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td className="px-3 py-2 tabular-nums">
                    {worker.leases} <span className="text-xs text-slate-500">/ {worker.concurrency}</span>
                  </td>
                  <td className="hidden px-3 py-2 text-slate-600 md:table-cell">
                    <Time iso={worker.startedAt} />
                  </td>
                  <td className="px-3 py-2 text-slate-600">
                    <Time iso={worker.heartbeatAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
