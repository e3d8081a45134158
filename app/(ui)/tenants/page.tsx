import Link from "next/link";
import { pageOperator } from "@/lib/ui/page-operator";
import { presentOperatorList, presentTenantList } from "@/lib/ui/presenters/tenants";
import { Card, Empty, PageHeader, Time } from "../_components/ui";
import { CreateTenantForm, OperatorsAdmin, TenantStateButton } from "./admin-forms";

export const dynamic = "force-dynamic";

export default async function TenantsPage() {
  const { operator, ctx } = await pageOperator();
  const tenants = await presentTenantList(ctx.sql, operator);
  const isAdmin = operator.role === "admin";
  const operators = await presentOperatorList(ctx.sql, operator);
  return (
    <>
      <PageHeader
        title="Tenants"
        description={isAdmin ? "Every tenant. Admins create tenants and operators." : "The tenants you are a member of."}
      />
      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="Tenants" className="lg:col-span-2">
          {tenants.length === 0 ? (
            <Empty>No tenants yet.</Empty>
          ) : (
            <ul className="divide-y divide-slate-100">
              {tenants.map((tenant) => (
                <li key={tenant.id} className="flex flex-wrap items-baseline justify-between gap-2 py-2">
                  <Link href={`/tenants/${tenant.slug}`} className="font-medium text-indigo-700 hover:underline">
                    {tenant.slug}
                  </Link>
                  <span className="min-w-0 flex-1 truncate text-sm text-slate-600">{tenant.name}</span>
                  {tenant.disabled && <span className="text-xs text-red-700">disabled</span>}
                  {isAdmin && <TenantStateButton tenantId={tenant.id} slug={tenant.slug} disabled={tenant.disabled} />}
                  <span className="text-xs text-slate-500">
                    <Time iso={tenant.createdAt} />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Card>
        {isAdmin && (
          <Card title="New tenant">
            <CreateTenantForm />
          </Card>
        )}
        {isAdmin && (
          <Card title="Operators" className="lg:col-span-3">
            <OperatorsAdmin selfId={operator.id} operators={operators} />
          </Card>
        )}
      </div>
    </>
  );
}
