import { pageOperator } from "@/lib/ui/page-operator";
import { ALL_TENANTS, type ConnectionItem, type MintedKeyItem, presentConnections } from "@/lib/ui/presenters/connections";
import { Card, Empty, PageHeader, Time } from "../_components/ui";
import { RevokeConnectionButton } from "./revoke-button";

export const dynamic = "force-dynamic";

// Connected clients: the OAuth grants people approved on the consent page (/oauth/authorize).
export default async function ConnectionsPage({ searchParams }: { searchParams: Promise<Record<string, string | undefined>> }) {
  const { operator, ctx } = await pageOperator();
  const params = await searchParams;
  const view = await presentConnections(ctx.sql, operator, params.tenant?.slice(0, 100));
  return (
    <>
      <PageHeader
        title="Connections"
        description="MCP clients you connected with OAuth. Revoking one ends its access at once; the client has to ask again."
      />
      <div className="flex flex-col gap-4">
        <Card title="Your connected clients">
          <ConnectionTable label="Your connected clients" items={view.mine} showPerson={false} scope="own" />
        </Card>
        <Card title="API keys you created">
          <KeyTable keys={view.keys} />
        </Card>
        {view.tenantView && (
          <Card title="Every connection in a tenant">
            <form className="mb-3 flex items-end gap-2 text-sm" aria-label="Choose tenant">
              <label className="flex flex-col gap-1 font-medium text-slate-700">
                Tenant
                <select
                  name="tenant"
                  defaultValue={view.tenantView.selected}
                  className="rounded-md border border-slate-300 px-2 py-1"
                >
                  <option value={ALL_TENANTS}>All tenants</option>
                  {view.tenantView.tenants.map((tenant) => (
                    <option key={tenant.id} value={tenant.slug}>
                      {tenant.slug}
                    </option>
                  ))}
                </select>
              </label>
              <button type="submit" className="rounded-md border border-slate-300 px-3 py-1">
                Show
              </button>
            </form>
            <ConnectionTable label="Tenant connections" items={view.tenantView.grants} showPerson scope="tenant" />
          </Card>
        )}
      </div>
    </>
  );
}

function ConnectionTable({
  label,
  items,
  showPerson,
  scope,
}: {
  label: string;
  items: ConnectionItem[];
  showPerson: boolean;
  scope: "own" | "tenant";
}) {
  if (items.length === 0) return <Empty>No connected clients.</Empty>;
  return (
    <div className="overflow-x-auto">
      <table aria-label={label} className="w-full text-left text-sm">
        <thead className="text-xs uppercase text-slate-500">
          <tr>
            <th className="py-1 pr-3">Client</th>
            <th className="py-1 pr-3">Tenant</th>
            {showPerson && <th className="py-1 pr-3">Person</th>}
            <th className="py-1 pr-3">Scopes</th>
            <th className="py-1 pr-3">Connected</th>
            <th className="py-1 pr-3">Last used</th>
            <th className="py-1">
              <span className="sr-only">Revoke</span>
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {items.map((item) => (
            <tr key={item.id} data-grant-id={item.id}>
              <td className="py-2 pr-3">
                <span className="font-medium text-slate-900">{item.clientName}</span>
                {item.clientKind === "cimd" && (
                  <span className="block break-all font-mono text-xs text-slate-500">{item.clientId}</span>
                )}
              </td>
              <td className="py-2 pr-3">{item.tenantSlug}</td>
              {showPerson && <td className="py-2 pr-3">{item.operatorEmail}</td>}
              <td className="py-2 pr-3 font-mono text-xs">{item.scopes.join(" ")}</td>
              <td className="whitespace-nowrap py-2 pr-3">
                <Time iso={item.connectedAt} />
              </td>
              <td className="whitespace-nowrap py-2 pr-3">
                <Time iso={item.lastUsedAt} />
              </td>
              <td className="py-2 text-right">
                <RevokeConnectionButton grantId={item.id} tenantId={item.tenantId} clientName={item.clientName} scope={scope} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The keys act in the tenant, not as the person: they are revoked on the tenant's page (a member leaving a tenant revokes its keys there). */
function KeyTable({ keys }: { keys: MintedKeyItem[] }) {
  if (keys.length === 0) return <Empty>No active API keys.</Empty>;
  return (
    <div className="overflow-x-auto">
      <table aria-label="API keys you created" className="w-full text-left text-sm">
        <thead className="text-xs uppercase text-slate-500">
          <tr>
            <th className="py-1 pr-3">Key</th>
            <th className="py-1 pr-3">Tenant</th>
            <th className="py-1 pr-3">Scopes</th>
            <th className="py-1 pr-3">Created</th>
            <th className="py-1 pr-3">Last used</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {keys.map((key) => (
            <tr key={key.id} data-key-id={key.id}>
              <td className="py-2 pr-3">
                <span className="font-medium text-slate-900">{key.name}</span>{" "}
                <code className="text-xs text-slate-500">rf_{key.id}_…</code>
              </td>
              <td className="py-2 pr-3">
                <a href={`/tenants/${key.tenantSlug}`} className="text-indigo-700 hover:underline">
                  {key.tenantSlug}
                </a>
              </td>
              <td className="py-2 pr-3 font-mono text-xs">{key.scopes.join(" ")}</td>
              <td className="whitespace-nowrap py-2 pr-3">
                <Time iso={key.createdAt} />
              </td>
              <td className="whitespace-nowrap py-2 pr-3">
                <Time iso={key.lastUsedAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
