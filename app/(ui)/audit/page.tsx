import Link from "next/link";
import { pageOperator } from "@/lib/ui/page-operator";
import { presentAuditPage } from "@/lib/ui/presenters/audit";
import { Card, Empty, inputClass, PageHeader, secondaryButtonClass, Time } from "../_components/ui";

export const dynamic = "force-dynamic";

const FIELD = "flex flex-col gap-1 text-xs font-medium text-slate-600";

// The stored audit trail: admins read every event, members the events about their tenants
// (lib/ui/presenters/audit.ts). A plain GET form, so a filtered view is a link one can share.
export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { operator, ctx } = await pageOperator();
  const raw = await searchParams;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(raw)) if (typeof value === "string") search.set(key, value);
  const view = await presentAuditPage(ctx.sql, operator, search);
  const { values } = view;
  const csvHref = `/api/ui/audit.csv${view.filterQuery ? `?${view.filterQuery}` : ""}`;
  return (
    <>
      <PageHeader
        title="Audit"
        description={
          operator.tenantIds === null
            ? "Sign-ins and every operator action, newest first (stored; not the process log)."
            : "Every operator action on your tenants, newest first (stored; not the process log)."
        }
        actions={
          <a href={csvHref} download className={secondaryButtonClass}>
            Export CSV
          </a>
        }
      />
      <Card>
        <search aria-label="Filter audit events">
          <form className="mb-4 grid grid-cols-2 items-end gap-3 md:grid-cols-3 xl:grid-cols-6" method="get">
            <label className={FIELD}>
              Actor
              <input name="actor" defaultValue={values.actor} placeholder="email, operator:<id>, cli:" className={inputClass} />
            </label>
            <label className={FIELD}>
              Action or prefix
              <input name="action" defaultValue={values.action} placeholder="task.rerun or auth." className={inputClass} />
            </label>
            <label className={FIELD}>
              Tenant
              <select name="tenant" defaultValue={values.tenant} className={inputClass}>
                <option value="">All tenants</option>
                {view.tenants.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.slug}
                  </option>
                ))}
              </select>
            </label>
            <label className={FIELD}>
              From (UTC)
              <input type="datetime-local" name="from" defaultValue={values.from} className={inputClass} />
            </label>
            <label className={FIELD}>
              To (UTC)
              <input type="datetime-local" name="to" defaultValue={values.to} className={inputClass} />
            </label>
            <div className="flex gap-2">
              <button type="submit" className={secondaryButtonClass}>
                Filter
              </button>
              <Link href="/audit" className="self-center text-sm text-slate-600 hover:underline">
                Clear
              </Link>
            </div>
          </form>
        </search>
        {view.error ? (
          <p role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800">
            {view.error}
          </p>
        ) : view.entries.length === 0 ? (
          <Empty>No events match these filters.</Empty>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Audit events, newest first</caption>
              <thead className="text-xs uppercase text-slate-500">
                <tr>
                  <th scope="col" className="py-1 pr-3">
                    When
                  </th>
                  <th scope="col" className="py-1 pr-3">
                    Action
                  </th>
                  <th scope="col" className="py-1 pr-3">
                    Actor
                  </th>
                  <th scope="col" className="py-1 pr-3">
                    Tenant
                  </th>
                  <th scope="col" className="py-1 pr-3">
                    Address
                  </th>
                  <th scope="col" className="py-1">
                    Details
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {view.entries.map((event) => (
                  <tr key={event.id} data-audit-id={event.id}>
                    <td className="whitespace-nowrap py-1 pr-3">
                      <Time iso={event.at} />
                    </td>
                    <td className="py-1 pr-3 font-mono">{event.action}</td>
                    <td className="py-1 pr-3 font-mono" title={event.actor}>
                      {event.operatorEmail ?? event.actor}
                    </td>
                    <td className="whitespace-nowrap py-1 pr-3">{event.tenantSlug ?? "—"}</td>
                    <td className="py-1 pr-3 font-mono">{event.address ?? "—"}</td>
                    <td className="break-all py-1 font-mono text-xs text-slate-600">{JSON.stringify(event.fields)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <nav aria-label="Pages" className="mt-3 flex gap-3 text-sm">
          {search.get("cursor") && (
            <Link className="text-indigo-700 hover:underline" href={`/audit${view.filterQuery ? `?${view.filterQuery}` : ""}`}>
              ← Newest
            </Link>
          )}
          {view.next && (
            <Link
              className="text-indigo-700 hover:underline"
              href={`/audit?${new URLSearchParams([...new URLSearchParams(view.filterQuery), ["cursor", view.next]])}`}
            >
              Older events →
            </Link>
          )}
        </nav>
      </Card>
    </>
  );
}
