import Link from "next/link";
import { listAudit } from "@/lib/admin";
import { pageOperator } from "@/lib/ui/page-operator";
import { Card, Empty, PageHeader, Time } from "../_components/ui";

export const dynamic = "force-dynamic";

const PAGE = 100;

// The stored audit trail, admins only (a member gets the ordinary 404).
export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { ctx } = await pageOperator({ role: "admin" });
  const params = await searchParams;
  const action = params.action?.slice(0, 100) || undefined;
  const beforeId = params.before && /^\d{1,15}$/.test(params.before) ? Number(params.before) : undefined;
  const events = await listAudit(ctx, { limit: PAGE, action, beforeId });
  const older = events.length === PAGE ? events.at(-1)?.id : undefined;
  return (
    <>
      <PageHeader title="Audit" description="Sign-ins and every admin action, newest first (stored; not the process log)." />
      <Card>
        <form className="mb-3 flex items-end gap-2 text-sm" aria-label="Filter audit events">
          <label className="flex flex-col gap-1 font-medium text-slate-700">
            Action or prefix
            <input
              name="action"
              defaultValue={action}
              placeholder="auth. or tenant.disable"
              className="rounded-md border border-slate-300 px-2 py-1"
            />
          </label>
          <button type="submit" className="rounded-md border border-slate-300 px-3 py-1">
            Filter
          </button>
        </form>
        {events.length === 0 ? (
          <Empty>No events.</Empty>
        ) : (
          <table className="w-full text-left text-sm">
            <thead className="text-xs uppercase text-slate-500">
              <tr>
                <th className="py-1 pr-3">When</th>
                <th className="py-1 pr-3">Action</th>
                <th className="py-1 pr-3">Actor</th>
                <th className="py-1 pr-3">Address</th>
                <th className="py-1">Details</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {events.map((event) => (
                <tr key={event.id}>
                  <td className="whitespace-nowrap py-1 pr-3">
                    <Time iso={event.at} />
                  </td>
                  <td className="py-1 pr-3 font-mono">{event.action}</td>
                  <td className="py-1 pr-3 font-mono">{event.actor}</td>
                  <td className="py-1 pr-3 font-mono">{event.address ?? "—"}</td>
                  <td className="break-all py-1 font-mono text-xs text-slate-600">{JSON.stringify(event.fields)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {older !== undefined && (
          <Link
            className="mt-3 inline-block text-sm text-indigo-700 hover:underline"
            href={`/audit?${new URLSearchParams({ ...(action ? { action } : {}), before: String(older) })}`}
          >
            Older events
          </Link>
        )}
      </Card>
    </>
  );
}
