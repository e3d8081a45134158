import { deniedPage, pageOperator } from "@/lib/ui/page-operator";
import { presentTenantDetail } from "@/lib/ui/presenters/tenants";
import { Card, PageHeader } from "../../_components/ui";
import { KeysPanel } from "./keys-panel";
import { MembersPanel } from "./members-panel";

export const dynamic = "force-dynamic";

export default async function TenantPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const { operator, ctx } = await pageOperator();
  // Scoped by slug AND the operator's tenants: a foreign tenant is the same 404 as a missing one.
  const view = await presentTenantDetail(ctx.sql, operator, slug);
  if (!view) return deniedPage(ctx, "page:/tenants/{slug}", { slug: slug });
  return (
    <>
      <PageHeader title={view.tenant.slug} description={view.tenant.name} />
      <div className="grid gap-4 lg:grid-cols-3">
        <Card title="API keys" className="lg:col-span-2">
          <KeysPanel tenantId={view.tenant.id} keys={view.keys} />
        </Card>
        <Card title="Members">
          <MembersPanel tenantId={view.tenant.id} members={view.members} operators={view.operators} />
        </Card>
      </div>
    </>
  );
}
